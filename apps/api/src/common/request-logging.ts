/**
 * The API's request logging (docs/operations.md → Logs): every line written while a request runs
 * carries its `request_id` (the `X-Request-ID` the API echoes), its `workspace_id` once
 * authenticated (`ApiKeyGuard`), and the `job_id` / `run_id` of its route; and each request ends
 * with one access line (method, route pattern, status, duration). Never a URL, a query string, a
 * header or a body: the route pattern says what was called, the ids which.
 *
 * The fields live in an AsyncLocalStorage store opened by the first `onRequest` hook (no
 * request-scoped Nest providers: they rebuild the controller graph per request). Body parsing
 * continues from socket events, outside that context, so `preValidation` re-enters it through an
 * AsyncResource made inside it, before guards and handlers run (as `@fastify/request-context`).
 */
import { isId } from '@svc/common';
import { type LogFields, type Logger, runWithLogFields } from '@svc/common/logging';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AsyncResource } from 'node:async_hooks';

/** Probes and scrapes: frequent and uneventful, so their access lines are `debug`. */
const PROBES = new Set(['/healthz', '/readyz', '/metrics']);

interface RequestScope {
  fields: LogFields;
  resource: AsyncResource;
}

const scopes = new WeakMap<FastifyRequest, RequestScope>();

export function addRequestLogging(fastify: FastifyInstance, logger: Logger): void {
  // Callback hooks, not async ones: they run on every request, and a promise per request costs.
  fastify.addHook('onRequest', (request, _reply, done) => {
    const fields: LogFields = { request_id: request.id, ...routeIds(request) };
    runWithLogFields(fields, () => {
      scopes.set(request, { fields, resource: new AsyncResource('svc.request') });
      done();
    });
  });
  fastify.addHook('preValidation', (request, _reply, done) => {
    const scope = scopes.get(request);
    if (scope) {
      scope.resource.runInAsyncScope(done);
    } else {
      done();
    }
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url;
    const line = {
      ...scopes.get(request)?.fields,
      request_id: request.id,
      method: request.method,
      route: route ?? 'unmatched',
      status: reply.statusCode,
      duration_ms: Math.round(reply.elapsedTime * 100) / 100,
    };
    if (route && PROBES.has(route)) {
      logger.debug(line, 'request');
    } else {
      logger.info(line, 'request');
    }
    done();
  });
}

/** `job_id` / `run_id` of `/api/v1/jobs/:id…` and `/api/v1/runs/:id…` (well-formed ids only). */
function routeIds(request: FastifyRequest): LogFields {
  const route = request.routeOptions.url;
  const id = (request.params as { id?: unknown } | undefined)?.id;
  if (!route || typeof id !== 'string') {
    return {};
  }
  if (route.startsWith('/api/v1/jobs/:id') && isId('job', id)) {
    return { job_id: id };
  }
  if (route.startsWith('/api/v1/runs/:id') && isId('run', id)) {
    return { run_id: id };
  }
  return {};
}

/**
 * The API's request logging (docs/operations.md → Logs): every line written while a request runs
 * carries its `request_id` (the `X-Request-ID` the API echoes), its `workspace_id` once
 * authenticated (`ApiKeyGuard`), and the `job_id` / `run_id` of its route; and each request ends
 * with one access line (method, route pattern, status, duration). Never a URL, a query string, a
 * header or a body: the route pattern says what was called, the ids which.
 *
 * The fields live in an AsyncLocalStorage store entered by a route's first `preValidation` hook: after the body
 * is read (body parsing continues from socket events, which would leave any earlier context), and
 * before guards, pipes and handlers run. No request-scoped Nest providers: they rebuild the
 * controller graph per request.
 *
 * This runs on every request, so it is written for speed (docs/benchmarks.md → "Request logging and the Quartz shortcut"):
 * callback hooks (no promise per hook), one fixed-shape fields object per request kept on the
 * request, and lines built field by field: object spread in these hooks measured ~10 µs a request.
 */
import { isId } from '@svc/workflow-contract/ids';
import { type LogFields, type Logger, runWithLogFields } from '@svc/common/logging';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * Routes whose access lines are `debug`: probes and scrapes, and the public schedule endpoints
 * (`validate`, `preview`): frequent, unauthenticated and stateless (no workspace, job or run to
 * name), counted in `svc_http_requests_total` by route and status. They also get no log context:
 * they write no lines of their own, and entering one is a measurable share of such a request
 * (docs/benchmarks.md → "Request logging and the Quartz shortcut").
 */
export const QUIET_ROUTES: ReadonlySet<string> = new Set([
  '/healthz',
  '/readyz',
  '/metrics',
  '/api/v1/schedules/validate',
  '/api/v1/schedules/preview',
]);

/** The request's context fields: what `addLogFields` may add in the API, declared up front. */
interface RequestLogFields extends LogFields {
  request_id: string;
  workspace_id: string | undefined;
  job_id: string | undefined;
  run_id: string | undefined;
}

const LOG_FIELDS = Symbol('svc.logFields');
type LoggedRequest = FastifyRequest & { [LOG_FIELDS]?: RequestLogFields };

const enterLogContext = (request: FastifyRequest, _reply: FastifyReply, done: () => void): void => {
  const fields = requestLogFields(request);
  (request as LoggedRequest)[LOG_FIELDS] = fields;
  runWithLogFields(fields, done);
};

export function addRequestLogging(fastify: FastifyInstance, logger: Logger): void {
  // A route-level hook, added to every route but the quiet ones (they pay nothing for it).
  fastify.addHook('onRoute', (route) => {
    if (!QUIET_ROUTES.has(route.url)) {
      route.preValidation = [enterLogContext, ...toArray(route.preValidation)];
    }
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url;
    const level = route && QUIET_ROUTES.has(route) ? 'debug' : 'info';
    if (logger.isLevelEnabled(level)) {
      // Requests answered before `preValidation` (unmatched, unreadable body, quiet) have no fields yet.
      const fields = (request as LoggedRequest)[LOG_FIELDS] ?? requestLogFields(request);
      logger[level](
        {
          request_id: fields.request_id,
          workspace_id: fields.workspace_id,
          job_id: fields.job_id,
          run_id: fields.run_id,
          method: request.method,
          route: route ?? 'unmatched',
          status: reply.statusCode,
          duration_ms: Math.round(reply.elapsedTime * 100) / 100,
        },
        'request',
      );
    }
    done();
  });
}

/** `request_id`, and `job_id` / `run_id` of `/api/v1/jobs/:id…` and `/api/v1/runs/:id…` (well-formed ids only). */
function requestLogFields(request: FastifyRequest): RequestLogFields {
  const fields: RequestLogFields = {
    request_id: request.id,
    workspace_id: undefined,
    job_id: undefined,
    run_id: undefined,
  };
  const id = (request.params as { id?: unknown } | undefined)?.id;
  if (typeof id !== 'string') {
    return fields;
  }
  const route = request.routeOptions.url;
  if (route?.startsWith('/api/v1/jobs/:id') && isId('job', id)) {
    fields.job_id = id;
  } else if (route?.startsWith('/api/v1/runs/:id') && isId('run', id)) {
    fields.run_id = id;
  }
  return fields;
}

const toArray = <T>(value: T | T[] | undefined): T[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

/**
 * A SERVER span per API request (docs/operations.md → Traces), active for everything the request
 * runs (guards, handler, Temporal client calls, the sink test's request), child of the caller's
 * `traceparent` when it sends one. Named `<METHOD> <route pattern>` once Fastify has routed the
 * request, with the stable HTTP semantic-convention attributes. No query string is recorded (it
 * may hold cursors or filters), and probes and `/metrics` scrapes make no spans.
 */
import { context, propagation, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_REQUEST_METHOD_ORIGINAL,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_NETWORK_PROTOCOL_VERSION,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
  ATTR_USER_AGENT_ORIGINAL,
} from '@opentelemetry/semantic-conventions';
import type { FastifyInstance } from 'fastify';
import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';

const TRACER_NAME = '@svc/api';
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'CONNECT']);
/** Probes and scrapes: frequent, and nothing to follow. */
const UNTRACED_PATHS = new Set(['/metrics', '/healthz', '/readyz']);

const requestSpans = new WeakMap<IncomingMessage, Span>();

/**
 * Fastify's `serverFactory`: wraps each request in its span. The request and response emitters
 * are bound to the span's context too, so body parsing (stream events) and everything after it
 * keep the span active.
 */
export function tracedServerFactory(handler: RequestListener): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (UNTRACED_PATHS.has(path)) {
      handler(req, res);
      return;
    }
    const method = (req.method ?? 'GET').toUpperCase();
    const known = KNOWN_METHODS.has(method);
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const [host, port] = splitHost(req.headers.host);
    const span = trace.getTracer(TRACER_NAME).startSpan(
      known ? method : 'HTTP',
      {
        kind: SpanKind.SERVER,
        attributes: {
          [ATTR_HTTP_REQUEST_METHOD]: known ? method : '_OTHER',
          ...(known ? {} : { [ATTR_HTTP_REQUEST_METHOD_ORIGINAL]: req.method }),
          [ATTR_URL_PATH]: path,
          [ATTR_URL_SCHEME]: 'http',
          [ATTR_NETWORK_PROTOCOL_VERSION]: req.httpVersion,
          ...(host ? { [ATTR_SERVER_ADDRESS]: host } : {}),
          ...(port ? { [ATTR_SERVER_PORT]: port } : {}),
          ...(req.headers['user-agent'] ? { [ATTR_USER_AGENT_ORIGINAL]: req.headers['user-agent'] } : {}),
        },
      },
      parent,
    );
    requestSpans.set(req, span);
    res.once('close', () => {
      const status = res.statusCode;
      span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
      if (status >= 500) {
        span.setAttribute(ATTR_ERROR_TYPE, String(status));
        span.setStatus({ code: SpanStatusCode.ERROR });
      } else if (!res.writableFinished) {
        // The client went away before the response was complete.
        span.setAttribute(ATTR_ERROR_TYPE, 'aborted');
        span.setStatus({ code: SpanStatusCode.ERROR, message: 'connection closed before the response ended' });
      }
      span.end();
    });
    const active = trace.setSpan(parent, span);
    context.bind(active, req);
    context.bind(active, res);
    context.with(active, () => handler(req, res));
  });
}

/** Names the span after the route pattern once Fastify knows it, and records the client address. */
export function addRequestSpanHooks(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, _reply, done) => {
    const span = requestSpans.get(request.raw);
    if (span) {
      const route = request.routeOptions.url;
      if (route) {
        span.updateName(`${request.method} ${route}`);
        span.setAttribute(ATTR_HTTP_ROUTE, route);
      }
      span.setAttribute(ATTR_CLIENT_ADDRESS, request.ip);
    }
    done();
  });
}

function splitHost(header: string | undefined): [string | undefined, number | undefined] {
  if (!header) {
    return [undefined, undefined];
  }
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(header);
  if (!match) {
    return [undefined, undefined];
  }
  return [match[1].replace(/^\[|\]$/g, ''), match[2] ? Number(match[2]) : undefined];
}

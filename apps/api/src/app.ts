import 'reflect-metadata';
import { Logger, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  type AppConfig,
  ForbiddenError,
  loadConfig,
  MethodNotAllowedError,
  UnauthorizedError,
  ValidationFailedError,
} from '@svc/common';
import { createLogger, type Logger as PinoLogger, pinoLevelOfNestLevels } from '@svc/common/logging';
import { type ApiMetrics, createApiMetrics, isLoopbackHost, metricsAccess } from '@svc/common/metrics';
import { secretsCipherFromConfig } from '@svc/common/secrets-crypto';
import { PinoNestLogger } from '@svc/common/nest-logger';
import { flushTracing } from '@svc/common/tracing';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { AppModule } from './app.module';
import { useApiBodyParsers } from './common/body-parsers';
import { MAX_PARAM_LENGTH } from './common/path-params';
import { FRAMEWORK_RATE_LIMITS } from './auth/api-rate-limit.hook';
import { clientErrorHandler } from './common/client-error';
import { ErrorFilter, sendError, toErrorResponse } from './common/error.filter';
import { resourceOf, trackRoutes } from './common/openapi/fastify-routes';
import { addRequestLogging } from './common/request-logging';
import type { FastifyRouteDoc } from './common/openapi/openapi.decorators';
import { addRequestSpanHooks, tracedServerFactory } from './common/tracing/http-tracing';
import { createValidationPipe } from './common/validation';

const ONE_MIB = 1024 * 1024;
const REQUEST_ID = /^[\w.:@/+=-]{1,200}$/;

/** `/metrics` in the OpenAPI document (a plain Fastify route, so its description sits here). */
const METRICS_DOC: FastifyRouteDoc = {
  operationId: 'metrics.get',
  tag: 'health',
  summary: 'Prometheus metrics: requests and latency by method, route and status',
  public: true,
  responses: {
    200: { description: 'Prometheus text exposition format', schema: { type: 'string' }, contentType: 'text/plain' },
  },
};

export interface CreateAppOptions {
  config?: AppConfig;
  /** The process's logger (main.ts); else one at `log.level`, or at the threshold of `logLevels`. */
  logger?: PinoLogger;
  /** Nest-style levels for tests (`['error']`, `[]` for none); override `log.level`. */
  logLevels?: LogLevel[];
}

/** Fastify's own errors (body parsing, content type, size, route-level hooks) in the envelope. */
function answerFastifyError(err: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const { status, body } = toErrorResponse(err);
  if (status >= 500) {
    new Logger('Fastify').error({ err, request_id: request.id, route: request.routeOptions.url });
  }
  sendError(reply, status, body);
}

/**
 * The API's Fastify server (exported for the endpoint benchmark): the 1 MiB body limit, an
 * `X-Request-ID` on every response (the client's when well-formed, else a new UUID), and the
 * error envelope for errors raised outside Nest (body parsing, route-level hooks, 404s). With
 * `traced`, a span per request (docs/operations.md → Traces); with a `logger`, the request's
 * context on every line and one access line per request (docs/operations.md → Logs).
 */
export function createFastifyAdapter(
  trustedProxies: false | readonly string[],
  metrics?: ApiMetrics,
  traced = false,
  logger?: PinoLogger,
  metricsToken: string | null = null,
  tokenlessMetrics = true,
): FastifyAdapter {
  const adapter = new FastifyAdapter({
    bodyLimit: ONE_MIB,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // Only these proxies' X-Forwarded-For hops count: `request.ip` is the right-most address not
    // in the list (never `true`, which takes the left-most hop, the one a client writes).
    trustProxy: trustedProxies && trustedProxies.length > 0 ? [...trustedProxies] : false,
    ...(traced ? { serverFactory: tracedServerFactory } : {}),
    requestIdHeader: false,
    clientErrorHandler,
    // What the router refuses before any hook runs (a path parameter over `maxParamLength`
    // characters: 414 from Fastify; a malformed URL) is a malformed request, 400 in the envelope
    // with X-Request-ID like every other error (spec → Errors).
    frameworkErrors: (err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      void reply.header('X-Request-ID', request.id);
      const answer = (limited?: Error) => {
        const { status, body } = toErrorResponse(
          limited ?? new ValidationFailedError({ path: err.message.slice(0, 200) }, 'Malformed request path'),
        );
        sendError(reply, status, body);
      };
      // Counted like every request under /api/v1 (the RateLimit-* headers are part of the contract).
      const limit = FRAMEWORK_RATE_LIMITS.get(fastify);
      if (limit) {
        limit(request, reply, answer);
      } else {
        answer();
      }
    },
    genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => {
      const sent = req.headers['x-request-id'];
      return typeof sent === 'string' && REQUEST_ID.test(sent) ? sent : randomUUID();
    },
  });
  const fastify = adapter.getInstance();
  useApiBodyParsers(adapter, ONE_MIB);
  trackRoutes(fastify); // before any route: the OpenAPI document lists every route registered
  if (logger) {
    addRequestLogging(fastify, logger); // first: every later hook logs in the request's context
  }
  // The error handler goes on each route, not on the server (`setErrorHandler`): Nest installs its
  // exception layer as the server's handler during `init()`, and a route keeps the server's handler
  // of the moment it was registered, so plain Fastify routes registered earlier and Nest's routes
  // would answer Fastify's own errors through different handlers (Fastify 5 warns about the
  // override, FSTWRN004). Per route, every route answers them here; Nest's handler is left with
  // unmatched requests, which its not-found handler and ErrorFilter answer with the same envelope.
  fastify.addHook('onRoute', (route) => {
    route.errorHandler ??= answerFastifyError;
  });
  // A known path asked with a method it does not serve is 405 with `Allow`, not 404 (RFC 9110
  // 15.5.6); so is a path that a parametric route only matched because the path's own resource
  // lacks the method (`PATCH /alert-channels/verify` is not `PATCH /alert-channels/{id}`). A
  // preParsing hook: after every onRequest hook (so rate-limit headers are set as on a 404) and
  // before the body is read, so no body can turn it into a 400.
  fastify.addHook('preParsing', (request, reply, payload, done) => {
    const matched = request.routeOptions.url;
    if (matched !== undefined && !/[:*]/.test(matched)) {
      return done(null, payload); // a literal route: the path's own resource
    }
    const resource = resourceOf(fastify, request.url);
    if (resource.methods.length === 0 || (matched !== undefined && resource.templates.includes(matched))) {
      return done(null, payload);
    }
    const { status, body } = toErrorResponse(new MethodNotAllowedError(request.method, resource.methods));
    void reply.status(status).header('Allow', resource.methods.join(', ')).send({ error: body });
  });
  if (traced) {
    addRequestSpanHooks(fastify);
    // Spans still batched leave before the process does.
    fastify.addHook('onClose', (_instance, done) => void flushTracing().finally(done));
  }
  // A callback hook, not an async one: it runs on every request, and a promise per request costs.
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('X-Request-ID', request.id);
    done();
  });
  // Graceful stop (SIGTERM → app.close(), docs/operations.md → Faults): the listener closes and
  // requests in flight are answered. Each of those answers is the last on its connection, else a
  // keep-alive client would hold the process open for Fastify's keep-alive timeout (72 s).
  let closing = false;
  fastify.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  fastify.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) {
      void reply.header('Connection', 'close');
    }
    done(null, payload);
  });
  if (metrics) {
    // Labelled by the route pattern (never the raw URL, which carries ids), so series stay few.
    fastify.addHook('onResponse', (request, reply, done) => {
      const labels = {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status: String(reply.statusCode),
      };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, reply.elapsedTime / 1000);
      done();
    });
    fastify.get('/metrics', { config: { openapi: METRICS_DOC } }, async (request, reply) => {
      // The TCP peer, never request.ip: a forwarded address is no proof of being on this host.
      const access = metricsAccess(
        metricsToken,
        request.headers.authorization,
        request.socket.remoteAddress,
        tokenlessMetrics,
      );
      if (access === 'unauthorized') {
        throw new UnauthorizedError('Metrics need the bearer token of metrics.token');
      }
      if (access === 'token_required') {
        throw new ForbiddenError(
          'Metrics need metrics.token when the API listens beyond loopback or behind a proxy (http.host, http.trusted_proxies)',
        );
      }
      if (access === 'forbidden') {
        throw new ForbiddenError('Metrics are served to loopback peers only unless metrics.token is set');
      }
      void reply.header('Content-Type', metrics.registry.contentType);
      return metrics.registry.metrics();
    });
  }
  return adapter;
}

/**
 * Builds the API application (exported for tests, which pass their own config and listen on an
 * ephemeral port). Every response carries X-Request-ID; every error uses the envelope.
 */
export async function createApp(options: CreateAppOptions = {}): Promise<NestFastifyApplication> {
  const config = options.config ?? loadConfig();
  // Fail before assembling anything, with the key's own message: secrets cannot work without it.
  secretsCipherFromConfig(config);
  const logger =
    options.logger ??
    createLogger({
      name: 'api',
      level: options.logLevels ? pinoLevelOfNestLevels(options.logLevels) : config.log.level,
    });
  // Behind a proxy or on a public address, a loopback peer may be anyone: no token, no metrics.
  const tokenlessMetrics = isLoopbackHost(config.http.host) && config.http.trusted_proxies.length === 0;
  if (config.metrics.enabled && !config.metrics.token && !tokenlessMetrics) {
    logger.warn(
      'GET /metrics answers 403 to everyone: set metrics.token (METRICS_TOKEN) when the API listens beyond loopback or behind a proxy',
    );
  }
  const adapter = createFastifyAdapter(
    config.http.trusted_proxies,
    config.metrics.enabled ? createApiMetrics() : undefined,
    config.tracing.enabled,
    logger,
    config.metrics.token,
    tokenlessMetrics,
  );
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), adapter, {
    logger: new PinoNestLogger(logger),
    bufferLogs: false,
  });
  app.useGlobalFilters(new ErrorFilter());
  app.useGlobalPipes(createValidationPipe());
  app.enableShutdownHooks();
  await app.init();
  return app;
}

import { RateLimitedError } from '@svc/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { FixedWindowRateLimiter } from '../common/rate-limiter';

/** Spec → Limits: "Request body, schedule endpoints: 16 KiB". */
export const SCHEDULE_BODY_LIMIT = 16 * 1024;

/**
 * Fastify route config that marks the unauthenticated schedule endpoints (schedule.routes.ts).
 * The hooks below only act on routes that carry it.
 */
export const SCHEDULE_ENDPOINT = { scheduleEndpoint: true } as const;

export interface ScheduleEndpointHookOptions {
  /** `null` when the rate limit is off (`limits.schedule_rate_limit_per_minute = 0`). */
  limiter: FixedWindowRateLimiter | null;
  /** `http.trust_proxy`: only then does `X-Forwarded-For` decide the client address. */
  trustProxy: boolean;
}

function isScheduleEndpoint(request: FastifyRequest): boolean {
  const config = request.routeOptions?.config as { scheduleEndpoint?: boolean } | undefined;
  return config?.scheduleEndpoint === true;
}

/**
 * The rate-limit key: the socket's peer address. Proxy headers are ignored unless the operator set
 * `http.trust_proxy` (then Fastify's `request.ip` has already resolved `X-Forwarded-For`); clients
 * behind one untrusted proxy share its bucket (spec → Limits, network rules).
 */
export function rateLimitKey(request: FastifyRequest, trustProxy: boolean): string {
  const address = (trustProxy ? request.ip : request.socket?.remoteAddress) ?? 'unknown';
  // IPv4 clients on a dual-stack socket show up as ::ffff:a.b.c.d; one client, one bucket.
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  return mapped ? mapped[1] : address.toLowerCase();
}

/**
 * Registers the per-IP rate limit of the schedule endpoints as an `onRequest` hook (before the
 * body is read, so malformed and oversized requests count too): `RateLimit-Limit`/`-Remaining`/
 * `-Reset` on every response and `429 rate_limited` + `Retry-After` past the limit. The 16 KiB
 * body limit is the routes' own Fastify `bodyLimit` (schedule.routes.ts), which counts streamed
 * bytes as well; oversized bodies end as `FST_ERR_CTP_BODY_TOO_LARGE`, mapped by the error handler
 * to `400 validation_failed` with `fields.body`. Call before the instance is ready.
 */
export function registerScheduleEndpointHooks(fastify: FastifyInstance, options: ScheduleEndpointHookOptions): void {
  const { limiter, trustProxy } = options;

  fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
    if (!isScheduleEndpoint(request)) {
      return done();
    }
    if (limiter) {
      const decision = limiter.hit(rateLimitKey(request, trustProxy));
      const resetSeconds = Math.max(1, Math.ceil(decision.resetMs / 1000));
      void reply.header('RateLimit-Limit', decision.limit);
      void reply.header('RateLimit-Remaining', decision.remaining);
      void reply.header('RateLimit-Reset', resetSeconds);
      if (!decision.allowed) {
        void reply.header('Retry-After', resetSeconds);
        return done(new RateLimitedError());
      }
    }
    done();
  });
}

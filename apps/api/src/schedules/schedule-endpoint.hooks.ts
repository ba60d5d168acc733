import type { FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import { applyRateLimit, rateLimitKey, type RateLimitStore } from '../common/rate-limiter';

/** Spec → Limits: "Request body, schedule endpoints: 16 KiB". */
export const SCHEDULE_BODY_LIMIT = 16 * 1024;

export interface ScheduleEndpointHookOptions {
  /** `null` when the rate limit is off (`limits.schedule_rate_limit_per_minute = 0`). */
  limiter: RateLimitStore | null;
  /** `http.trust_proxy`: only then does `X-Forwarded-For` decide the client address. */
  trustProxy: boolean;
}

/**
 * Route options for the unauthenticated schedule endpoints (schedule.routes.ts): the routes' own
 * 16 KiB `bodyLimit` (which counts streamed bytes as well; oversized bodies end as
 * `FST_ERR_CTP_BODY_TOO_LARGE`, mapped by the error handler to `400 validation_failed` with
 * `fields.body`), and, when the limit is on, the per-IP rate limit as a route-level `onRequest`
 * hook (before the body is read, so malformed and oversized requests count too; route-level so
 * other routes pay nothing for it): `RateLimit-Limit`/`-Remaining`/`-Reset` on every response and
 * `429 rate_limited` + `Retry-After` past the limit.
 */
export function scheduleRouteOptions(options: ScheduleEndpointHookOptions): RouteShorthandOptions {
  const { limiter, trustProxy } = options;
  if (!limiter) {
    return { bodyLimit: SCHEDULE_BODY_LIMIT };
  }
  const rateLimit = (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void): void => {
    applyRateLimit(limiter, rateLimitKey(request, trustProxy), reply, done);
  };
  return { bodyLimit: SCHEDULE_BODY_LIMIT, onRequest: rateLimit };
}

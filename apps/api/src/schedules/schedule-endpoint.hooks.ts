import { RateLimitedError } from '@svc/common';
import { errorCodes, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { Transform, type TransformCallback } from 'node:stream';
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
  bodyLimit?: number;
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

/** Counts the body bytes as they stream in and fails once they pass `limit` (chunked uploads). */
class ByteLimit extends Transform {
  receivedEncodedLength = 0;
  constructor(private readonly limit: number) {
    super();
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.receivedEncodedLength += chunk.length;
    if (this.receivedEncodedLength > this.limit) {
      return callback(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
    }
    callback(null, chunk);
  }
}

/**
 * Registers, on the Fastify instance, what Nest cannot express per route:
 *
 * - `onRequest`: the per-IP rate limit (before the body is read, so malformed and oversized
 *   requests count too) with `RateLimit-Limit`/`-Remaining`/`-Reset` on every response and
 *   `429 rate_limited` + `Retry-After` past the limit; then a `Content-Length` above the body
 *   limit is refused without reading the body.
 * - `preParsing`: bodies without a length (chunked) are counted while they stream.
 *
 * Oversized bodies end as Fastify's `FST_ERR_CTP_BODY_TOO_LARGE`, which the error filter maps to
 * `400 validation_failed` with `fields.body`. Must be called before the instance is ready
 * (hooks are attached to routes at `preReady`).
 */
export function registerScheduleEndpointHooks(fastify: FastifyInstance, options: ScheduleEndpointHookOptions): void {
  const bodyLimit = options.bodyLimit ?? SCHEDULE_BODY_LIMIT;
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
    const length = Number(request.headers['content-length']);
    if (Number.isFinite(length) && length > bodyLimit) {
      return done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
    }
    done();
  });

  fastify.addHook('preParsing', (request: FastifyRequest, _reply: FastifyReply, payload, done) => {
    if (!isScheduleEndpoint(request)) {
      return done(null, payload);
    }
    const counted = new ByteLimit(bodyLimit);
    // pipe() rather than pipeline(): on overflow the request must stay open for the 400 reply.
    payload.on('error', (err) => counted.destroy(err));
    done(null, payload.pipe(counted));
  });
}

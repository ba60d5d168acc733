/**
 * In-memory fixed-window rate limiter (spec → Limits: "60 requests per minute per peer IP").
 *
 * - A key's window opens at its first request and lasts `windowMs`; at most `limit` requests are
 *   allowed in it. The next request after the window closed opens a new one (the behaviour of
 *   @fastify/rate-limit's default store, whose headers clients already know).
 * - Rejected requests do not extend the window, so `Retry-After` is always honest.
 * - Memory is bounded: expired windows are swept at most once per `windowMs`, and when `maxKeys`
 *   live windows exist the oldest one is evicted (an address spray can only reset the oldest
 *   buckets, never grow the map without bound).
 * - Per process (`limits.store: memory`, for a single replica); `SharedRateLimiter` below counts
 *   in PostgreSQL for all replicas. No clock reads except the injected `now` (tests pass a fake one).
 */
import { RateLimitedError } from '@svc/common';
import type { WindowHit } from '@svc/persistence';

export interface RateLimitDecision {
  allowed: boolean;
  /** The configured number of requests per window (`RateLimit-Limit`). */
  limit: number;
  /** Requests left in the current window after this one (`RateLimit-Remaining`). */
  remaining: number;
  /** Milliseconds until the current window closes (`RateLimit-Reset`, `Retry-After`). */
  resetMs: number;
}

export interface RateLimiterOptions {
  /** Requests per window; must be a positive integer. */
  limit: number;
  /** Window length in ms (default one minute). */
  windowMs?: number;
  /** Clock in ms (default `Date.now`). */
  now?: () => number;
  /** Upper bound on tracked keys (default 100 000). */
  maxKeys?: number;
}

interface Window {
  count: number;
  resetAt: number;
}

/** A limiter the hooks can use: in this process, or shared by every replica. */
export interface RateLimitStore {
  readonly limit: number;
  hit(key: string): RateLimitDecision | Promise<RateLimitDecision>;
}

export class FixedWindowRateLimiter implements RateLimitStore {
  readonly limit: number;
  readonly windowMs: number;
  private readonly now: () => number;
  private readonly maxKeys: number;
  private readonly windows = new Map<string, Window>();
  private nextSweepAt: number;

  constructor(options: RateLimiterOptions) {
    if (!Number.isInteger(options.limit) || options.limit < 1) {
      throw new RangeError(`rate limit must be a positive integer, got ${options.limit}`);
    }
    this.limit = options.limit;
    this.windowMs = options.windowMs ?? 60_000;
    this.now = options.now ?? Date.now;
    this.maxKeys = options.maxKeys ?? 100_000;
    this.nextSweepAt = this.now() + this.windowMs;
  }

  /** Counts one request for `key` and says whether it is allowed. */
  hit(key: string): RateLimitDecision {
    const now = this.now();
    if (now >= this.nextSweepAt) {
      this.sweep(now);
    }
    let window = this.windows.get(key);
    if (window && window.resetAt <= now) {
      this.windows.delete(key);
      window = undefined;
    }
    if (!window) {
      if (this.windows.size >= this.maxKeys) {
        this.evictOldest(now);
      }
      window = { count: 0, resetAt: now + this.windowMs };
      this.windows.set(key, window);
    }
    const allowed = window.count < this.limit;
    if (allowed) {
      window.count++;
    }
    return { allowed, limit: this.limit, remaining: this.limit - window.count, resetMs: window.resetAt - now };
  }

  /** Number of keys with a window in memory (for tests and metrics). */
  get size(): number {
    return this.windows.size;
  }

  private sweep(now: number): void {
    for (const [key, window] of this.windows) {
      if (window.resetAt <= now) {
        this.windows.delete(key);
      }
    }
    this.nextSweepAt = now + this.windowMs;
  }

  private evictOldest(now: number): void {
    this.sweep(now);
    if (this.windows.size < this.maxKeys) {
      return;
    }
    // Map iteration order is insertion order: the first key has the oldest window.
    const oldest = this.windows.keys().next();
    if (!oldest.done) {
      this.windows.delete(oldest.value);
    }
  }
}

/**
 * Writes a decision's `RateLimit-Limit`, `-Remaining` and `-Reset` headers, plus `Retry-After`
 * when the request is refused (seconds, at least 1), on any reply with a `header` method.
 */
export function writeRateLimitHeaders(
  reply: { header(name: string, value: number): unknown },
  decision: RateLimitDecision,
): void {
  const resetSeconds = Math.max(1, Math.ceil(decision.resetMs / 1000));
  reply.header('RateLimit-Limit', decision.limit);
  reply.header('RateLimit-Remaining', decision.remaining);
  reply.header('RateLimit-Reset', resetSeconds);
  if (!decision.allowed) {
    reply.header('Retry-After', resetSeconds);
  }
}

/**
 * The same fixed windows counted in PostgreSQL (`RateLimitsRepository`), so N API replicas allow
 * the configured rate in total, not N times it. `namespace` keeps the API and schedule-endpoint
 * budgets apart. If the database cannot count, the request is allowed (the limiter must not turn
 * a database hiccup into an outage of the public endpoints) and `onError` is told.
 */
export class SharedRateLimiter implements RateLimitStore {
  constructor(
    private readonly windows: { hit(bucket: string, windowMs: number): Promise<WindowHit> },
    readonly limit: number,
    private readonly options: { namespace: string; windowMs?: number; onError?: (err: unknown) => void },
  ) {
    if (!Number.isInteger(limit) || limit < 1) {
      throw new RangeError(`rate limit must be a positive integer, got ${limit}`);
    }
  }

  async hit(key: string): Promise<RateLimitDecision> {
    const windowMs = this.options.windowMs ?? 60_000;
    try {
      const { count, resetMs } = await this.windows.hit(`${this.options.namespace}:${key}`, windowMs);
      return { allowed: count <= this.limit, limit: this.limit, remaining: Math.max(0, this.limit - count), resetMs };
    } catch (err) {
      this.options.onError?.(err);
      return { allowed: true, limit: this.limit, remaining: this.limit, resetMs: windowMs };
    }
  }
}

/**
 * Counts the request in `limiter` and writes the decision's headers; `done` gets the 429 error
 * when it is refused. A Fastify `onRequest` callback body, synchronous for the in-process store.
 */
export function applyRateLimit(
  limiter: RateLimitStore,
  key: string,
  reply: { header(name: string, value: number): unknown },
  done: (err?: Error) => void,
): void {
  const finish = (decision: RateLimitDecision) => {
    writeRateLimitHeaders(reply, decision);
    done(decision.allowed ? undefined : new RateLimitedError());
  };
  const decision = limiter.hit(key);
  if (decision instanceof Promise) {
    decision.then(finish, (err: Error) => done(err));
  } else {
    finish(decision);
  }
}

/**
 * The rate-limit key of a request without a credential (the schedule endpoints, and the API's
 * requests that present neither key nor session): the socket's peer address. Proxy headers are
 * ignored unless proxies are trusted (`http.trusted_proxies`, or `http.trust_proxy` for a
 * same-host one): then Fastify's `request.ip` is the right-most `X-Forwarded-For` hop that is not
 * a trusted proxy, so a client cannot pick its bucket by writing the header; clients behind one
 * untrusted proxy share its bucket (spec → Limits, network rules).
 */
export function rateLimitKey(
  request: { ip: string; socket?: { remoteAddress?: string } },
  trustProxy: boolean,
): string {
  const address = (trustProxy ? request.ip : request.socket?.remoteAddress) ?? 'unknown';
  // IPv4 clients on a dual-stack socket show up as ::ffff:a.b.c.d; one client, one bucket.
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  return mapped ? mapped[1] : address.toLowerCase();
}

/** The store `limits.store` asks for, or null when the limit is off (0 per minute). */
export function createRateLimitStore(
  config: { limits: { store: 'postgres' | 'memory' } },
  perMinute: number,
  shared: {
    namespace: string;
    windows: { hit(bucket: string, windowMs: number): Promise<WindowHit> };
    onError?: (err: unknown) => void;
  },
): RateLimitStore | null {
  if (perMinute <= 0) {
    return null;
  }
  if (config.limits.store === 'memory') {
    return new FixedWindowRateLimiter({ limit: perMinute, windowMs: 60_000 });
  }
  return new SharedRateLimiter(shared.windows, perMinute, { namespace: shared.namespace, onError: shared.onError });
}

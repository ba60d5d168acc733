/**
 * Response classification (spec: Events → Response classification; decisions: Attempt outcome).
 */
import type { AttemptOutcome } from '@svc/workflow-contract/run-rules';
import type { DeliveryErrorKind } from './http-client';

/** A status class such as `5xx`, or an exact code. */
export type StatusClass = '1xx' | '2xx' | '3xx' | '4xx' | '5xx';
export type RetryOnEntry = StatusClass | number | 'network' | 'timeout';
export type SuccessCodes = '2xx' | number[];

export interface ClassifyPolicy {
  /** Default `2xx`. */
  successCodes: SuccessCodes;
  /** Default `[5xx, 408, 429, network, timeout]`. */
  retryOn: readonly RetryOnEntry[];
}

export const DEFAULT_SUCCESS_CODES: SuccessCodes = '2xx';
export const DEFAULT_RETRY_ON: readonly RetryOnEntry[] = ['5xx', 408, 429, 'network', 'timeout'];

/** The part of an HTTP result classification needs. */
export interface ClassifiableResult {
  statusCode: number | null;
  errorKind?: DeliveryErrorKind;
}

function matchesStatus(entry: RetryOnEntry | number, status: number): boolean {
  if (typeof entry === 'number') {
    return entry === status;
  }
  const m = /^([1-5])xx$/.exec(entry);
  return m !== null && Math.floor(status / 100) === Number(m[1]);
}

/**
 * Outcome of one attempt:
 * 1. an error without a status: `network`/`timeout` are retryable when listed in `retryOn`,
 *    fatal otherwise; `destination_not_allowed`, `too_many_redirects` and `invalid_request`
 *    are always fatal;
 * 2. a status in `successCodes` → success (checked before `retryOn`, so an explicit success
 *    code wins);
 * 3. a status matching `retryOn` (class or exact code) → retryable;
 * 4. any other status (e.g. 400, 401, 404, an unfollowed 3xx) → fatal.
 */
export function classifyResponse(result: ClassifiableResult, policy: ClassifyPolicy): AttemptOutcome {
  const { errorKind, statusCode } = result;
  if (errorKind !== undefined) {
    switch (errorKind) {
      case 'network':
      case 'timeout':
        return policy.retryOn.includes(errorKind) ? 'retryable' : 'fatal';
      case 'destination_not_allowed':
      case 'too_many_redirects':
      case 'invalid_request':
        return 'fatal';
    }
  }
  if (statusCode === null) {
    return 'fatal';
  }
  const success =
    policy.successCodes === '2xx' ? statusCode >= 200 && statusCode < 300 : policy.successCodes.includes(statusCode);
  if (success) {
    return 'success';
  }
  if (policy.retryOn.some((e) => e !== 'network' && e !== 'timeout' && matchesStatus(e, statusCode))) {
    return 'retryable';
  }
  return 'fatal';
}

/**
 * Parse a `Retry-After` value (RFC 9110 10.2.3): delay-seconds or an HTTP date. Returns the delay
 * in ms from `nowMs` (0 for a date in the past), or null when the value is missing or invalid.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | null {
  if (value === null || value === undefined) {
    return null;
  }
  const text = value.trim();
  if (text === '') {
    return null;
  }
  if (/^\d+$/.test(text)) {
    const seconds = Number(text);
    return Number.isSafeInteger(seconds) ? seconds * 1000 : null;
  }
  // HTTP dates always name a weekday/month; this excludes bare numbers like "1.5" or "-3".
  if (!/[A-Za-z]/.test(text)) {
    return null;
  }
  const at = Date.parse(text);
  if (Number.isNaN(at)) {
    return null;
  }
  return Math.max(0, at - nowMs);
}

/**
 * The Retry-After delay of a response that the spec says to honour (429 and 503 only), in ms;
 * null otherwise. Cap it with `computeRetryDelayMs`.
 */
export function getRetryAfterMs(
  result: { statusCode: number | null; headers: Readonly<Record<string, string>> },
  nowMs: number,
): number | null {
  if (result.statusCode !== 429 && result.statusCode !== 503) {
    return null;
  }
  return parseRetryAfter(result.headers['retry-after'], nowMs);
}

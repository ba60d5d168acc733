import { formatDuration, parseDuration, ValidationFailedError } from '@svc/common';
import type { StoredRetryPolicy } from '@svc/persistence';
import type { RetryDto } from './dto/job-body.dto';

/** A job's retry policy in the API's words (durations as strings). */
export interface RetrySettings {
  max_attempts: number;
  backoff: string;
  initial_interval: string;
  max_interval: string;
  multiplier: number;
  jitter: number;
}

/** Server defaults (decisions.md → retry defaults, timeout). */
export const DEFAULT_RETRY: StoredRetryPolicy = {
  max_attempts: 3,
  backoff: 'exponential',
  initial_interval_ms: 10_000,
  max_interval_ms: 600_000,
  multiplier: 2,
  jitter: 0.2,
};
export const DEFAULT_TIMEOUT_MS = 30_000;

/** A partial `retry` merged over a base policy (the defaults on create, the stored one on PATCH). */
export function mergeRetry(base: StoredRetryPolicy, patch: RetryDto | undefined): StoredRetryPolicy {
  if (!patch) {
    return base;
  }
  return {
    max_attempts: patch.max_attempts ?? base.max_attempts,
    backoff: patch.backoff ?? base.backoff,
    initial_interval_ms: patch.initial_interval ? parseDuration(patch.initial_interval)! : base.initial_interval_ms,
    max_interval_ms: patch.max_interval ? parseDuration(patch.max_interval)! : base.max_interval_ms,
    multiplier: patch.multiplier ?? base.multiplier,
    jitter: patch.jitter ?? base.jitter,
  };
}

/** A complete retry policy in the API's shape (durations as strings) → the stored policy. */
export function storedRetry(retry: RetrySettings): StoredRetryPolicy {
  return {
    max_attempts: retry.max_attempts,
    backoff: retry.backoff as StoredRetryPolicy['backoff'],
    initial_interval_ms: parseDuration(retry.initial_interval)!,
    max_interval_ms: parseDuration(retry.max_interval)!,
    multiplier: retry.multiplier,
    jitter: retry.jitter,
  };
}

/** The retry policy if it is consistent, else `400` (the initial interval above the maximum). */
export function checkRetry(retry: StoredRetryPolicy): StoredRetryPolicy {
  if (retry.initial_interval_ms > retry.max_interval_ms) {
    throw new ValidationFailedError({ 'retry.initial_interval': 'must not exceed retry.max_interval' });
  }
  return retry;
}

export function retryResponse(retry: StoredRetryPolicy) {
  return {
    max_attempts: retry.max_attempts,
    backoff: retry.backoff,
    initial_interval: formatDuration(retry.initial_interval_ms),
    max_interval: formatDuration(retry.max_interval_ms),
    multiplier: retry.multiplier,
    jitter: retry.jitter,
  };
}

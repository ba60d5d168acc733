import { formatDuration, parseDuration, ValidationFailedError } from '@svc/common';
import { shortestGapMs } from '@svc/orchestration';
import type { BackoffKind } from '@svc/workflow-contract/backoff';
import { DEFAULT_STORED_RETRY, type StoredRetryPolicy } from '@svc/workflow-contract/run-rules';
import type { OverlapPolicy } from '@svc/workflow-contract/definitions';

/** A job's retry policy in the API's words (durations as strings). */
export interface RetrySettings {
  max_attempts: number;
  backoff: BackoffKind;
  initial_interval: string;
  max_interval: string;
  multiplier: number;
  jitter: number;
}

/** Server defaults (decisions.md → retry defaults, timeout): the contract's stored retry default. */
export const DEFAULT_RETRY: StoredRetryPolicy = DEFAULT_STORED_RETRY;
export const DEFAULT_TIMEOUT_MS = 30_000;

/** A complete retry policy in the API's shape (durations as strings) → the stored policy. */
export function storedRetry(retry: RetrySettings): StoredRetryPolicy {
  return {
    max_attempts: retry.max_attempts,
    backoff: retry.backoff,
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

/** The fire times a start window is checked against (their shortest gap is the job's interval). */
export const START_WINDOW_SAMPLE = 101;

/** A job's spread window and run cap as stored. */
export interface SpreadColumns {
  startWindowMs: number | null;
  maxConcurrentRuns: number | null;
}

/**
 * The spread window and run cap if they fit the job, else one `400` naming each that does not: a
 * window longer than the schedule's shortest gap between occurrences (`fireTimes`, computed only
 * when a window is asked for) could reorder them; a cap above 1 means something only under
 * `overlap_policy: allow` (the other policies keep one run in flight by definition).
 */
export function checkSpread(
  settings: { start_window: string | null; max_concurrent_runs: number | null; overlap_policy: OverlapPolicy },
  fireTimes: () => Date[],
): SpreadColumns {
  const fields: Record<string, string> = {};
  const startWindowMs = settings.start_window === null ? null : parseDuration(settings.start_window)!;
  if (startWindowMs !== null) {
    const gap = shortestGapMs(fireTimes());
    if (gap !== null && startWindowMs > gap) {
      fields.start_window =
        `must not exceed the schedule's shortest interval between occurrences (${formatDuration(gap)}): ` +
        'a longer window could fire occurrences out of order';
    }
  }
  const cap = settings.max_concurrent_runs;
  if (cap !== null && cap > 1 && settings.overlap_policy !== 'allow') {
    fields.max_concurrent_runs = `must be 1 or null under overlap_policy ${settings.overlap_policy} (it allows one run in flight); more needs allow`;
  }
  if (Object.keys(fields).length > 0) {
    throw new ValidationFailedError(fields);
  }
  return { startWindowMs, maxConcurrentRuns: cap };
}

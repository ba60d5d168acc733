/**
 * Retry delays (decisions: retry defaults). Pure: randomness is a parameter, so the workflow can
 * pass its deterministic PRNG.
 */

export const BACKOFF_KINDS = ['exponential', 'linear', 'fixed'] as const;
export type BackoffKind = (typeof BACKOFF_KINDS)[number];

export interface RetryDelayPolicy {
  backoff: BackoffKind;
  /** ms; default 10 s */
  initialIntervalMs: number;
  /** ms; default 10 min. No delay ever exceeds it. */
  maxIntervalMs: number;
  /** Growth factor of `exponential`; default 2. Ignored otherwise. */
  multiplier: number;
  /** Fraction 0..1 of the delay added or removed at random; default 0.2. */
  jitter: number;
}

export const DEFAULT_RETRY_DELAY_POLICY: RetryDelayPolicy = {
  backoff: 'exponential',
  initialIntervalMs: 10_000,
  maxIntervalMs: 600_000,
  multiplier: 2,
  jitter: 0.2,
};

export interface ComputeRetryDelayInput {
  /** 0-based index of the attempt that just failed (0 after the first try). */
  attemptIndex: number;
  policy: RetryDelayPolicy;
  /** A `Retry-After` delay in ms from a 429/503 (see `getRetryAfterMs`), if any. */
  retryAfterMs?: number | null;
  /** Uniform in [0, 1), e.g. `Math.random` or the workflow's deterministic PRNG. */
  random: () => number;
}

/**
 * Delay in whole ms before the next attempt.
 * - base: exponential `initial · multiplier^n`, linear `initial · (n + 1)`, fixed `initial`,
 *   where n = `attemptIndex`; capped at `maxIntervalMs`;
 * - jitter: multiplied by `1 + jitter · (2·random() − 1)`, i.e. ± `jitter` of the delay, then
 *   clamped to [0, `maxIntervalMs`];
 * - Retry-After: the delay is at least `retryAfterMs` (the server asked us to wait that long),
 *   but never more than `maxIntervalMs` (spec: honoured, capped at `max_interval`).
 */
export function computeRetryDelayMs(input: ComputeRetryDelayInput): number {
  const { attemptIndex: n, policy, retryAfterMs, random } = input;
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new RangeError('attemptIndex must be a non-negative integer');
  }
  const max = Math.max(0, policy.maxIntervalMs);
  const initial = Math.max(0, policy.initialIntervalMs);
  let base: number;
  switch (policy.backoff) {
    case 'exponential':
      base = initial * Math.pow(policy.multiplier, n);
      break;
    case 'linear':
      base = initial * (n + 1);
      break;
    case 'fixed':
      base = initial;
      break;
  }
  if (!Number.isFinite(base) || base > max) {
    base = max;
  }
  const jitter = Math.min(1, Math.max(0, policy.jitter));
  const jittered = base * (1 + jitter * (2 * random() - 1));
  let delay = Math.min(max, Math.max(0, jittered));
  if (retryAfterMs !== null && retryAfterMs !== undefined && retryAfterMs > delay) {
    delay = Math.min(max, retryAfterMs);
  }
  return Math.round(delay);
}

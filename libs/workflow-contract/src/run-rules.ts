/**
 * The run's decisions (decisions.md → Run transitions, `retry` defaults, `misfire_policy`), pure:
 * the attempt activity (apps/worker/src/activities/run.activities.ts) reads the rows, asks
 * `decideClaim` before an attempt and `decideOutcome` after it, and writes what they decide. The
 * misfire rule is the job workflow's own (`isMissed`, `missedOccurrenceFate` in
 * occurrence-rules.ts); the delay is `computeRetryDelayMs` (backoff.ts).
 */
import { type BackoffKind, computeRetryDelayMs, DEFAULT_RETRY_DELAY_POLICY, type RetryDelayPolicy } from './backoff';
import type { JobState, MisfirePolicy, RunTrigger } from './definitions';
import { isMissed, missedOccurrenceFate } from './occurrence-rules';

/** A run's status (decisions.md → Run transitions; the runs table's `RUN_STATUSES`, libs/persistence). */
export type RunStatus = 'running' | 'deferred' | 'succeeded' | 'failed' | 'skipped' | 'cancelled';

/** What an attempt's answer means for its run (the sink kinds classify it, libs/delivery). */
export type AttemptOutcome = 'success' | 'retryable' | 'fatal';

/** Stored retry policy (decisions.md → `retry` defaults, the jobs table's `retry`); durations in milliseconds. */
export interface StoredRetryPolicy {
  max_attempts: number;
  backoff: BackoffKind;
  initial_interval_ms: number;
  max_interval_ms: number;
  multiplier: number;
  jitter: number;
}

/** decisions.md → `retry` defaults, as stored: 3 attempts apart by the default delays (`DEFAULT_RETRY_DELAY_POLICY`). */
export const DEFAULT_STORED_RETRY: StoredRetryPolicy = {
  max_attempts: 3,
  backoff: DEFAULT_RETRY_DELAY_POLICY.backoff,
  initial_interval_ms: DEFAULT_RETRY_DELAY_POLICY.initialIntervalMs,
  max_interval_ms: DEFAULT_RETRY_DELAY_POLICY.maxIntervalMs,
  multiplier: DEFAULT_RETRY_DELAY_POLICY.multiplier,
  jitter: DEFAULT_RETRY_DELAY_POLICY.jitter,
};

/** The statuses a run ends in (decisions.md → Run transitions: terminal). */
export type EndedRunStatus = Exclude<RunStatus, 'running' | 'deferred'>;

/**
 * The status of a run that is no longer open (`running` or `deferred`), or null while it is: an
 * attempt that finds its run ended (a re-executed activity, a run cancelled meanwhile) sends
 * nothing and writes nothing. A run whose row is gone counts as cancelled.
 */
export function endedStatus(run: { status: RunStatus } | null): EndedRunStatus | null {
  if (run === null) {
    return 'cancelled';
  }
  return run.status === 'running' || run.status === 'deferred' ? null : run.status;
}

/** What the run rules look at in a run row (`RunEntity`, libs/persistence). */
export interface ClaimRun {
  status: RunStatus;
  attemptsCount: number;
  jobVersion: number;
  scheduledAt: Date;
  /** Nominal time + the job's offset; null or absent: `scheduledAt`. */
  plannedAt?: Date | null;
  /** Why a deferred run waits for its destination; null or absent: it does not. */
  deferredReason?: string | null;
}
/** What the run rules look at in a job row (`JobEntity`, libs/persistence). */
export interface ClaimJob {
  state: JobState;
  version: number;
  retry: StoredRetryPolicy;
  misfirePolicy: MisfirePolicy;
  /** Upcoming occurrences a user skipped, by ISO instant. */
  occurrenceSkips?: Record<string, { note: string }>;
}

/** What the claim read before an attempt. */
export interface ClaimFacts<R extends ClaimRun = ClaimRun, J extends ClaimJob = ClaimJob> {
  /** The run row, open when first read; read again at its instant when the attempt waited for it. */
  run: R | null;
  /** The run's job (null once deleted). */
  job: J | null;
  /** The attempt waited for the scheduled instant of a run opened ahead of it (`scheduler.prepare_ahead`). */
  waitedForInstant: boolean;
  /** The run workflow's trigger. */
  trigger: RunTrigger;
  /** When a queued occurrence was released (ISO): its lateness counts from then. */
  releasedAt?: string;
  now: Date;
  /** `scheduler.misfire_threshold`. */
  misfireThresholdMs: number;
  /** Whether a later occurrence of the job has a run; read only when asked (`read_later_occurrence`). */
  laterOccurrenceHasRun?: boolean;
}

export type ClaimDecision<R extends ClaimRun = ClaimRun, J extends ClaimJob = ClaimJob> =
  /** The run ended meanwhile: nothing to send or write. */
  | { kind: 'ended'; status: EndedRunStatus }
  /** The job is gone: close the run `cancelled`. */
  | { kind: 'cancel' }
  /**
   * The job was paused, disabled or changed before the instant came (and no newer version adopted
   * the row): under the job as it now is this occurrence never existed (decisions.md: paused
   * occurrences never exist; PATCH recomputes from now). Delete the unstarted row and its usage.
   */
  | { kind: 'withdraw'; run: R }
  /** No attempt left (the last one was interrupted): close it `interrupted` and fail the run. */
  | { kind: 'exhausted'; error: string }
  /** A user skipped this occurrence: close the run `skipped` (`occurrence_skipped`) with the note. */
  | { kind: 'skipped_by_user'; note: string }
  /** A missed first attempt the misfire policy does not deliver: close the run `skipped` (misfire). */
  | { kind: 'misfire' }
  /** The answer depends on whether a later occurrence has a run (`fire_once`): read it, ask again. */
  | { kind: 'read_later_occurrence' }
  /** Make attempt `n` (0-based) of this run of this job. */
  | { kind: 'attempt'; run: R; job: J; n: number };

/**
 * Decides what an attempt does once its run and job are read. A backlog (an attempt that starts
 * after the instant) is never withdrawn: it delivers as it always did. The misfire rule applies
 * to the first attempt of a scheduled run only, never to a manual one or a retry.
 */
export function decideClaim<R extends ClaimRun, J extends ClaimJob>(facts: ClaimFacts<R, J>): ClaimDecision<R, J> {
  const { run, job } = facts;
  if (job === null) {
    return { kind: 'cancel' };
  }
  const ended = endedStatus(run);
  if (run === null || ended !== null) {
    return { kind: 'ended', status: ended ?? 'cancelled' };
  }
  if (
    facts.waitedForInstant &&
    (job.state === 'paused' || job.state === 'disabled' || job.version !== run.jobVersion)
  ) {
    return { kind: 'withdraw', run };
  }
  const n = run.attemptsCount;
  if (n >= job.retry.max_attempts) {
    return { kind: 'exhausted', error: `interrupted (after ${n} attempts)` };
  }
  if (n > 0 || facts.trigger !== 'schedule') {
    return { kind: 'attempt', run, job, n };
  }
  // Read at the claim (at the instant for a run prepared ahead), so a skip reaches a run already
  // opened, a parked job and a queued occurrence alike, with no change to the job workflow.
  const skip = job.occurrenceSkips?.[run.scheduledAt.toISOString()];
  if (skip) {
    return { kind: 'skipped_by_user', note: skip.note };
  }
  // A run that waited for its destination was claimed on time: the wait is not lateness.
  if (run.status === 'deferred' && run.deferredReason) {
    return { kind: 'attempt', run, job, n };
  }
  // Lateness from the planned time (a start window), or from a queued run's release.
  const releasedAt = Math.max(
    (run.plannedAt ?? run.scheduledAt).getTime(),
    facts.releasedAt ? Date.parse(facts.releasedAt) : 0,
  );
  if (!isMissed(releasedAt, facts.now.getTime(), facts.misfireThresholdMs)) {
    return { kind: 'attempt', run, job, n };
  }
  // The attempt does not see the plan that opened its run: it is the latest missed occurrence
  // unless a later occurrence has a run. That is read only when the policy's answer depends on it.
  // The job row's policy was validated when written.
  const delivers = (latest: boolean) => missedOccurrenceFate(job.misfirePolicy, latest) === 'deliver';
  let latest = true;
  if (delivers(true) !== delivers(false)) {
    if (facts.laterOccurrenceHasRun === undefined) {
      return { kind: 'read_later_occurrence' };
    }
    latest = !facts.laterOccurrenceHasRun;
  }
  return delivers(latest) ? { kind: 'attempt', run, job, n } : { kind: 'misfire' };
}

/** What an attempt produced. */
export interface OutcomeFacts {
  /** The attempt (0-based). */
  n: number;
  outcome: AttemptOutcome;
  error: string | null;
  /** A `Retry-After` the sink answered with (ms). */
  retryAfterMs: number | null;
  /** The attempt was cancelled while sending (overlap `cancel_previous`, job deleted). */
  cancelled: boolean;
  retry: StoredRetryPolicy;
  /** Uniform in [0, 1): the jitter. */
  random: () => number;
}

export type OutcomeDecision =
  /** Close the run `cancelled` with this attempt recorded, whatever the sink answered. */
  | { kind: 'cancel'; error: string | null }
  /** Close the run: succeeded, or failed (a fatal outcome, or the last attempt failed). */
  | { kind: 'close'; status: 'succeeded' | 'failed'; error: string | null }
  /** Defer the run and retry after `delayMs` (the job's backoff with jitter and `Retry-After`). */
  | { kind: 'defer'; delayMs: number };

/** Decides how a run goes on after attempt `n` (decisions.md → Run transitions, `retry` defaults). */
export function decideOutcome(facts: OutcomeFacts): OutcomeDecision {
  const { n, outcome, error, retry } = facts;
  if (facts.cancelled) {
    return { kind: 'cancel', error };
  }
  // `max_attempts` counts the first attempt.
  const exhausted = n + 1 >= retry.max_attempts;
  if (outcome === 'success') {
    return { kind: 'close', status: 'succeeded', error };
  }
  if (outcome === 'fatal') {
    return { kind: 'close', status: 'failed', error };
  }
  if (exhausted) {
    return { kind: 'close', status: 'failed', error: `${error} (after ${n + 1} attempts)` };
  }
  const delayMs = computeRetryDelayMs({
    attemptIndex: n,
    policy: retryDelayPolicy(retry),
    retryAfterMs: facts.retryAfterMs,
    random: facts.random,
  });
  return { kind: 'defer', delayMs };
}

/** A job's stored retry policy as the backoff computes with it. */
export function retryDelayPolicy(retry: StoredRetryPolicy): RetryDelayPolicy {
  return {
    backoff: retry.backoff,
    initialIntervalMs: retry.initial_interval_ms,
    maxIntervalMs: retry.max_interval_ms,
    multiplier: retry.multiplier,
    jitter: retry.jitter,
  };
}

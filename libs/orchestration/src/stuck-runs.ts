import { computeRetryDelayMs } from '@svc/workflow-contract/backoff';
import { retryDelayPolicy, type StoredRetryPolicy } from '@svc/workflow-contract/run-rules';

/**
 * Stuck runs (docs/operations.md → Stuck runs): open runs whose run workflow is running
 * in Temporal but not progressing. Distinct from *stalled* runs (apps/worker/src/reconciler/
 * stalled-runs.ts): an open row with no running workflow, which the worker repairs by itself.
 * Pure: the clock, the job's policy and Temporal's view of the attempt are parameters.
 */

/** Slack on top of the retry budget: bookkeeping, task dispatch and clock skew between hosts. */
export const STUCK_MARGIN_MS = 60_000;

export const STUCK_REASONS = ['past_retry_budget', 'no_heartbeat'] as const;
export type StuckReason = (typeof STUCK_REASONS)[number];

/** The run row's facts the rule reads. */
export interface StuckRunFacts {
  scheduledAt: Date;
  /** First attempt's start, null before it. */
  startedAt: Date | null;
  /** When the waiting retry is due (the real delay: backoff with jitter, or Retry-After). */
  nextAttemptAt: Date | null;
  /** Attempts made so far. */
  attemptsCount: number;
}

/** The job's policy that bounds a run. */
export interface StuckRunPolicy {
  timeoutMs: number;
  retry: StoredRetryPolicy;
}

/** Temporal's pending activity of the run workflow (DescribeWorkflowExecution), if it has one. */
export interface PendingAttemptFacts {
  /** `scheduled` (waiting for a worker or for its retry time), `started`, `cancel_requested`… */
  state: string;
  /** When the current attempt was (or will be) scheduled: in the future while a retry waits. */
  scheduledAt: Date | null;
  lastStartedAt: Date | null;
  lastHeartbeatAt: Date | null;
}

/** Upper bound (ms) of the backoff before retry `k + 1` (0-based), jitter at its maximum. */
export function maxRetryDelayMs(retry: StoredRetryPolicy, attemptIndex: number): number {
  return computeRetryDelayMs({ attemptIndex, policy: retryDelayPolicy(retry), random: () => 1 });
}

/**
 * The instant by which the run must have ended: from its first attempt (or its occurrence, before
 * one), `timeout × max_attempts` plus every backoff delay at its longest plus `marginMs`. While a
 * retry waits (`next_attempt_at`), the remaining attempts are counted from that instant instead
 * when it is later (a Retry-After longer than the backoff), so an honoured Retry-After never
 * makes a run stuck.
 */
export function runDeadline(run: StuckRunFacts, policy: StuckRunPolicy, marginMs = STUCK_MARGIN_MS): Date {
  const max = Math.max(1, policy.retry.max_attempts);
  const budget = (fromAttempt: number) => {
    let ms = policy.timeoutMs * (max - fromAttempt);
    for (let k = fromAttempt; k < max - 1; k += 1) {
      ms += maxRetryDelayMs(policy.retry, k);
    }
    return ms + marginMs;
  };
  const start = (run.startedAt ?? run.scheduledAt).getTime();
  let deadline = start + budget(0);
  if (run.nextAttemptAt) {
    const done = Math.min(run.attemptsCount, max - 1);
    deadline = Math.max(deadline, run.nextAttemptAt.getTime() + budget(done));
  }
  return new Date(deadline);
}

/**
 * When the attempt last showed life: its last heartbeat or start, or the moment it became due to a
 * worker. Null while it waits for a retry time still ahead (Temporal's backoff: healthy).
 */
export function lastSignOfLife(pending: PendingAttemptFacts, now: Date): Date | null {
  if (pending.state === 'scheduled' && pending.scheduledAt && pending.scheduledAt.getTime() > now.getTime()) {
    return null;
  }
  const times = [
    pending.lastHeartbeatAt,
    pending.lastStartedAt,
    pending.state === 'scheduled' ? pending.scheduledAt : null,
  ]
    .filter((t): t is Date => t !== null)
    .map((t) => t.getTime());
  return times.length > 0 ? new Date(Math.max(...times)) : null;
}

export interface StuckVerdict {
  stuck: boolean;
  reasons: StuckReason[];
  deadline: Date;
  /** For `no_heartbeat`: how long the attempt has shown no life (ms). */
  silentForMs: number | null;
}

/**
 * A run whose workflow is running is stuck when
 * - `past_retry_budget`: now is past `runDeadline` (every attempt, timeout and backoff used up,
 *   and the run still open); or
 * - `no_heartbeat`: its attempt activity, started or due to a worker, has shown no life (heartbeat,
 *   start, or becoming due) for longer than the heartbeat timeout: no worker runs it, or the one
 *   that does is frozen. An attempt waiting for its retry time never counts, nor one waiting for
 *   its scheduled instant (silence counts from the instant).
 */
export function judgeStuckRun(input: {
  run: StuckRunFacts;
  policy: StuckRunPolicy;
  pending: PendingAttemptFacts | null;
  now: Date;
  heartbeatTimeoutMs: number;
  marginMs?: number;
}): StuckVerdict {
  const { run, policy, pending, now, heartbeatTimeoutMs } = input;
  const deadline = runDeadline(run, policy, input.marginMs);
  const reasons: StuckReason[] = [];
  if (now.getTime() > deadline.getTime()) {
    reasons.push('past_retry_budget');
  }
  let silentForMs: number | null = null;
  if (pending) {
    // An attempt opened ahead waits for its occurrence without heartbeating (its heartbeat
    // timeout covers the wait): silence counts from the scheduled instant at the earliest.
    const heard = lastSignOfLife(pending, now);
    const life = heard && new Date(Math.max(heard.getTime(), run.scheduledAt.getTime()));
    if (life && now.getTime() - life.getTime() > heartbeatTimeoutMs) {
      silentForMs = now.getTime() - life.getTime();
      reasons.push('no_heartbeat');
    }
  }
  return { stuck: reasons.length > 0, reasons, deadline, silentForMs };
}

/**
 * Whether a run could be stuck at all, from its row alone: cheap, so only these are described in
 * Temporal. A run whose retry is still ahead and whose deadline is ahead cannot be; nor can one
 * whose last progress is younger than the heartbeat timeout.
 */
export function mayBeStuck(run: StuckRunFacts, policy: StuckRunPolicy, now: Date, heartbeatTimeoutMs: number): boolean {
  if (now.getTime() > runDeadline(run, policy).getTime()) {
    return true;
  }
  if (run.nextAttemptAt && run.nextAttemptAt.getTime() > now.getTime()) {
    return false;
  }
  const progress = Math.max(
    run.scheduledAt.getTime(),
    run.startedAt?.getTime() ?? 0,
    run.nextAttemptAt?.getTime() ?? 0,
  );
  return now.getTime() - progress > heartbeatTimeoutMs;
}

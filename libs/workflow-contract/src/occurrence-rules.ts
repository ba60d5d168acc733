/**
 * The rules applied to an occurrence when it is due: misfire, suspension, monthly quota and
 * overlap. Pure and deterministic: the job workflow calls it with what it knows (its runs in
 * flight, its queued occurrence) and what a local activity read (the workspace gate).
 *
 * The misfire rule (`isMissed`, `missedOccurrenceFate`) is the one both sides apply: the job
 * workflow's plan (`planOccurrences`) and policy (`applyMisfirePolicy`), and the attempt's claim
 * (`decideClaim` in run-rules.ts), with the threshold from one source,
 * `scheduler.misfire_threshold` of the worker that decides.
 */
import type { OccurrenceDecision, WorkspaceGate } from './activity-types';
import type { MisfirePolicy, OverlapPolicy, Spread, TrackedRun } from './definitions';

export interface DueOccurrences {
  /** Older than the misfire threshold, ascending (the latest `maxCatchUp` of them). */
  missed: string[];
  /** Within the threshold, ascending. */
  onTime: string[];
}

export interface OccurrenceState {
  inFlight: TrackedRun[];
  queued: TrackedRun | null;
}

/** When an occurrence is planned to fire (ISO): its nominal instant without a spread. */
export function plannedAt(scheduledAt: string, spread: Spread | undefined): string {
  if (!spread) {
    return scheduledAt;
  }
  const planned = Date.parse(scheduledAt) + spread.offsetMs;
  const floor = spread.notBefore === undefined ? planned : Date.parse(spread.notBefore);
  return new Date(Math.max(planned, floor)).toISOString();
}

export interface OccurrenceOutcome {
  decisions: OccurrenceDecision[];
  /** Runs to cancel first (overlap_policy `cancel_previous`). */
  cancel: string[];
  /** The job workflow's state after these decisions. */
  state: OccurrenceState;
}

/**
 * Whether an occurrence dispatched at `dispatchedAtMs` is missed (decisions.md → misfire_policy):
 * dispatched the threshold or more after its instant, for whatever reason (worker down, task
 * backlog, slow server). The job workflow dispatches at its wake-up; the attempt at its start,
 * measured from the later of the instant and the release of a queued occurrence.
 */
export function isMissed(occurrenceAtMs: number, dispatchedAtMs: number, thresholdMs: number): boolean {
  return dispatchedAtMs - occurrenceAtMs >= thresholdMs;
}

/**
 * What the misfire policy makes of a missed occurrence (decisions.md → misfire_policy), knowing
 * whether it is the latest of the missed ones: `deliver` it, record it as a `misfire` (a skipped
 * run), or `collapse` it into the latest (no delivery of its own). `fire_all` delivers every one;
 * `fire_once` delivers only the latest; `skip` records only the latest.
 */
export function missedOccurrenceFate(policy: MisfirePolicy, latest: boolean): 'deliver' | 'misfire' | 'collapse' {
  if (policy === 'fire_all') {
    return 'deliver';
  }
  if (!latest) {
    return 'collapse';
  }
  return policy === 'skip' ? 'misfire' : 'deliver';
}

/** The occurrences that should fire after the misfire policy (decisions.md → misfire_policy). */
export function applyMisfirePolicy(
  due: DueOccurrences,
  policy: MisfirePolicy,
): Array<{ scheduledAt: string; misfire: boolean }> {
  const result: Array<{ scheduledAt: string; misfire: boolean }> = [];
  due.missed.forEach((scheduledAt, i) => {
    const fate = missedOccurrenceFate(policy, i === due.missed.length - 1);
    if (fate !== 'collapse') {
      result.push({ scheduledAt, misfire: fate === 'misfire' });
    }
  });
  result.push(...due.onTime.map((scheduledAt) => ({ scheduledAt, misfire: false })));
  return result;
}

/**
 * Missed occurrences that get no run of their own: all but the latest under `fire_once` and
 * `skip`, and those beyond the catch-up limit under `fire_all`. They are counted (metric
 * `svc_occurrences_total{action="collapse"}`) so every due occurrence is accounted for.
 */
export function collapsedCount(missedTotal: number, missedKept: number, policy: MisfirePolicy): number {
  if (!missedTotal) {
    // Plans recorded by older workers carry no total.
    return 0;
  }
  const withRun = policy === 'fire_all' ? missedKept : 1;
  return Math.max(0, missedTotal - withRun);
}

/**
 * Decides every due occurrence in order. Skipped ones never count against the quota or take a
 * place in flight; `queue` keeps one waiting occurrence; `cancel_previous` leaves only the newest.
 */
export function decideOccurrences(args: {
  due: DueOccurrences;
  misfirePolicy: MisfirePolicy;
  overlapPolicy: OverlapPolicy;
  gate: WorkspaceGate;
  state: OccurrenceState;
  /** The run id of an occurrence (derived from it: the same occurrence always gets the same id). */
  newRunId: (scheduledAt: string) => string;
  /**
   * `max_concurrent_runs` of an `allow` job: with this many tracked runs in flight the
   * occurrence is skipped (`max_concurrent_runs`). null or absent: unbounded, runs not tracked.
   */
  maxConcurrentRuns?: number | null;
}): OccurrenceOutcome {
  const { gate, overlapPolicy } = args;
  const cap = overlapPolicy === 'allow' ? (args.maxConcurrentRuns ?? null) : null;
  let inFlight = [...args.state.inFlight];
  let queued = args.state.queued;
  const decisions: OccurrenceDecision[] = [];
  const cancel: string[] = [];
  let counted = 0;
  for (const occurrence of applyMisfirePolicy(args.due, args.misfirePolicy)) {
    const run = { runId: args.newRunId(occurrence.scheduledAt), scheduledAt: occurrence.scheduledAt };
    const skip = (skipReason: OccurrenceDecision['skipReason']) =>
      decisions.push({ ...run, action: 'skip', skipReason });
    if (occurrence.misfire) {
      skip('misfire');
    } else if (gate.suspended) {
      skip('workspace_suspended');
    } else if (gate.blockingQuota && gate.blockingQuota.used + counted >= gate.blockingQuota.limit) {
      skip('quota_exceeded');
    } else if (cap !== null && inFlight.length >= cap) {
      skip('max_concurrent_runs');
    } else if (overlapPolicy === 'skip' && inFlight.length > 0) {
      skip('previous_run_in_progress');
    } else if (overlapPolicy === 'queue' && (inFlight.length > 0 || queued !== null)) {
      if (queued === null) {
        queued = run;
        counted += 1;
        decisions.push({ ...run, action: 'queue' });
      } else {
        skip('previous_run_in_progress');
      }
    } else {
      if (overlapPolicy === 'cancel_previous') {
        cancel.push(...inFlight.map((r) => r.runId));
        inFlight = [];
      }
      counted += 1;
      decisions.push({ ...run, action: 'start' });
      if (overlapPolicy !== 'allow' || cap !== null) {
        inFlight.push(run);
      }
    }
  }
  return { decisions, cancel, state: { inFlight, queued } };
}

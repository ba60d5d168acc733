/**
 * The one occurrence-decision path: what the job workflow (`openDue` in
 * job.workflow.ts) and the plan activity of an `allow` job (`openDue` in
 * apps/worker/src/activities/schedule.activities.ts) make of the occurrences a plan found due.
 * It applies the occurrence rules (misfire, suspension, quota, run cap, overlap) and builds the
 * `openRuns` request that records and starts them. Pure and deterministic: both callers pass what
 * they know (the job, the gate, the runs tracked, how run ids are made) and then call `openRuns`.
 */
import type { OccurrenceDecision, OpenRunsInput, WorkspaceGate } from './activity-types';
import type { JobDisplay, MisfirePolicy, OverlapPolicy, ScheduleSnapshot, Spread, TrackedRun } from './definitions';
import { collapsedCount, decideOccurrences, type DueOccurrences, type OccurrenceState } from './occurrence-rules';

/** The job as the occurrence rules and `openRuns` see it. */
export interface OpeningJob {
  jobId: string;
  workspaceId: string;
  jobVersion: number;
  display?: JobDisplay;
  misfirePolicy: MisfirePolicy;
  overlapPolicy: OverlapPolicy;
  /** `max_concurrent_runs` of an `allow` job; null or absent: unbounded. */
  maxConcurrentRuns?: number | null;
  schedule: ScheduleSnapshot;
}

export interface OpeningArgs {
  job: OpeningJob;
  /** The due occurrences the plan found (the latest `maxCatchUp` missed ones, and the on-time ones). */
  due: DueOccurrences;
  /** Every missed occurrence the plan counted, kept or not. */
  missedTotal: number;
  /** The `after` the plan scanned from: the earliest a collapsed `fire_all` occurrence can be. */
  after: string;
  gate: WorkspaceGate;
  /** The runs the workflow tracks (none when the plan decides: an `allow` job tracks none). */
  state: OccurrenceState;
  /** The run id of an occurrence (named after it, so a retry opens nothing twice). */
  newRunId: (scheduledAt: string) => string;
  /** Whether the started runs signal `runFinished` to the job workflow (it tracks them). */
  notifyJob: boolean;
  /** The job's start window. */
  spread?: Spread;
}

export interface OccurrenceOpening {
  decisions: OccurrenceDecision[];
  /** Runs to cancel once the new ones are open (overlap_policy `cancel_previous`). */
  cancel: string[];
  /** The tracked runs after these decisions. */
  state: OccurrenceState;
  /** Missed occurrences folded into these decisions by the misfire policy (no run of their own). */
  collapsed: number;
  /** What to ask `openRuns` for: a row per decision, `start` ones started. */
  openRuns: OpenRunsInput;
}

/** Decides the due occurrences and builds the `openRuns` request that records them. */
export function decideOpening(args: OpeningArgs): OccurrenceOpening {
  const { job, due } = args;
  const outcome = decideOccurrences({
    due,
    misfirePolicy: job.misfirePolicy,
    overlapPolicy: job.overlapPolicy,
    gate: args.gate,
    state: args.state,
    newRunId: args.newRunId,
    maxConcurrentRuns: job.maxConcurrentRuns ?? null,
  });
  const collapsed = collapsedCount(args.missedTotal, due.missed.length, job.misfirePolicy);
  const openRuns: OpenRunsInput = {
    jobId: job.jobId,
    workspaceId: job.workspaceId,
    jobVersion: job.jobVersion,
    ...(job.display ? { display: job.display } : {}),
    decisions: outcome.decisions,
    notifyJob: args.notifyJob,
    collapsed,
    ...(args.spread ? { spread: args.spread } : {}),
    // fire_all records the missed occurrences beyond the catch-up limit as skipped misfires.
    ...(collapsed > 0 && job.misfirePolicy === 'fire_all'
      ? { collapsedRange: { schedule: job.schedule, after: args.after, before: due.missed[0] } }
      : {}),
  };
  return { ...outcome, collapsed, openRuns };
}

/**
 * The tracked runs once `openRuns` answered: an occurrence already recorded under another id (by
 * older code that minted ids from workflow time) keeps that run, so it is tracked under it.
 */
/**
 * The tracked runs without those `openRuns` says no `runFinished` will release (ended already, or
 * opened by a backfill): tracking them would hold `skip`/`queue` jobs forever.
 */
export function dropUntracked(state: OccurrenceState, untracked: string[] | undefined): OccurrenceState {
  if (!untracked || untracked.length === 0) {
    return state;
  }
  const gone = new Set(untracked);
  return {
    inFlight: state.inFlight.filter((run) => !gone.has(run.runId)),
    queued: state.queued && !gone.has(state.queued.runId) ? state.queued : null,
  };
}

export function renameTracked(state: OccurrenceState, renamed: Record<string, string> | undefined): OccurrenceState {
  const rename = (run: TrackedRun): TrackedRun => ({ ...run, runId: renamed?.[run.runId] ?? run.runId });
  return { inFlight: state.inFlight.map(rename), queued: state.queued && rename(state.queued) };
}

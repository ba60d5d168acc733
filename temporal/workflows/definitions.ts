/**
 * Everything the API, the worker and the workflows share about the Temporal side: workflow
 * names, signals, argument types and search attributes, defined once (style.md rule 20).
 * Deterministic-safe: only `@temporalio/workflow` definitions and plain types.
 */
import { defineSignal } from '@temporalio/workflow';

export type JobState = 'active' | 'paused' | 'disabled' | 'completed';
export type RunTrigger = 'schedule' | 'manual' | 'retry_manual';
export type MisfirePolicy = 'fire_once' | 'skip' | 'fire_all';
export type OverlapPolicy = 'allow' | 'skip' | 'queue' | 'cancel_previous';

/** The schedule as the job row stores it; computed into occurrences by a local activity. */
export interface ScheduleSnapshot {
  expr: string;
  kind: string;
  timezone: string;
  startsAt: string | null;
  endsAt: string | null;
  count: number | null;
  /** Reference instant (ISO) that phases intervals and anchors relative expressions. */
  anchor: string;
}

/** What the job workflow needs to time occurrences; no sink config or secrets ever enter history. */
export interface JobSnapshot {
  jobId: string;
  workspaceId: string;
  /** Bumped on every config or state change; older snapshots are ignored. */
  revision: number;
  version: number;
  state: JobState;
  schedule: ScheduleSnapshot;
  misfirePolicy: MisfirePolicy;
  misfireThresholdMs: number;
  /**
   * Decided by the job workflow when an occurrence is due. Absent only in snapshots written
   * before the one-activity path; the workflow then reloads the snapshot (see jobWorkflow).
   */
  overlapPolicy?: OverlapPolicy;
  /**
   * `scheduler.prepare_ahead`: the job workflow opens a run this long before its occurrence and
   * the attempt releases the request at the scheduled instant, so start lag does not include the
   * run's own start-up. Absent (0) in snapshots written before it existed.
   */
  prepareAheadMs?: number;
}

/**
 * Patch ids that separate executions begun by the code before the one-activity occurrence path
 * (temporal/workflows/legacy) from those begun by the current code. An execution whose first
 * workflow task ran the older code has no marker and replays through the legacy functions.
 */
export const JOB_PATH_PATCH = 'job-occurrence-path-v2';
export const RUN_PATH_PATCH = 'run-one-attempt-v2';
/**
 * Scheduled runs are named after their occurrence (`occurrenceRunId`), not minted from workflow
 * time, so a workflow task retried after a crash names the same runs (issue #21). Executions that
 * opened runs before it replay with the ids they minted then.
 */
export const OCCURRENCE_RUN_ID_PATCH = 'occurrence-run-id';

/** A run the job workflow started and waits to hear the end of (overlap policies other than allow). */
export interface TrackedRun {
  runId: string;
  scheduledAt: string;
}

export interface JobWorkflowInput {
  snapshot: JobSnapshot;
  /** Carried across continue-as-new: occurrences at or before this instant are done. */
  after?: string;
  /** Carried across continue-as-new: runs in flight, whose end the workflow is told by signal. */
  inFlight?: TrackedRun[];
  /** Carried across continue-as-new: the one occurrence waiting (overlap_policy `queue`). */
  queued?: TrackedRun | null;
}

export interface RunWorkflowInput {
  runId: string;
  jobId: string;
  workspaceId: string;
  jobVersion: number;
  /** ISO instant of the occurrence (nominal time). */
  scheduledAt: string;
  trigger: RunTrigger;
  /**
   * When the occurrence was released to run (ISO): its scheduled time, or the end of the run it
   * waited for (overlap_policy `queue`). Lateness is measured from here.
   */
  releasedAt?: string;
  /** Signal `runFinished` to the job workflow at the end (it tracks runs for its overlap policy). */
  notifyJob?: boolean;
  retryOf?: string;
  /** Only in inputs written by the older job workflow: the run is recorded skipped (misfire). */
  skipReason?: 'misfire';
}

export const jobChangedSignal = defineSignal<[JobSnapshot]>('jobChanged');
export const jobDeletedSignal = defineSignal<[]>('jobDeleted');
/** A tracked run ended (any terminal status); sent by the run workflow. */
export const runFinishedSignal = defineSignal<[string]>('runFinished');

/** Memo of a job workflow: the revision it runs on, so the reconciler can find drift by listing. */
export interface JobWorkflowMemo {
  revision: number;
}

export const JOB_WORKFLOW = 'jobWorkflow';
export const RUN_WORKFLOW = 'runWorkflow';

/** Registered on the dev server by scripts/lib.sh and in docker-compose (names must match). */
export const SEARCH_ATTRIBUTES = {
  jobId: 'SvcJobId',
  workspaceId: 'SvcWorkspaceId',
  trigger: 'SvcTrigger',
} as const;

/** Workflow id of a job's long-running workflow: the job id itself (architecture.md). */
export function jobWorkflowId(jobId: string): string {
  return jobId;
}

/** Alerts (docs/alerts.md): one workflow per event, id = the event id, so duplicate starts coalesce. */
export const ALERT_WORKFLOW = 'alertWorkflow';
/** Mails an email channel its confirmation link. */
export const CHANNEL_VERIFICATION_WORKFLOW = 'channelVerificationWorkflow';

/** Error type of an alert send that cannot succeed by trying again (4xx answer, refused recipient…). */
export const ALERT_REFUSED = 'AlertRefused';

export interface AlertWorkflowInput {
  eventId: string;
}

export interface ChannelVerificationInput {
  channelId: string;
}

/**
 * The task queue of alert workflows and their activities: beside the jobs' own, with its own
 * worker slots, so a channel that keeps failing never holds a slot a job delivery needs.
 */
export function alertsTaskQueue(jobsTaskQueue: string): string {
  return `${jobsTaskQueue}-alerts`;
}

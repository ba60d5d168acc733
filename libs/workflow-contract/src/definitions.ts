/**
 * Everything the API, the worker and the workflows share about the Temporal side: workflow
 * names, signals, argument types and search attributes, defined once (style.md rule 20).
 * Deterministic-safe: only `@temporalio/workflow` definitions and plain types (type-only imports of
 * pure libs).
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { ScheduleKind } from '@svc/schedule';

export type JobState = 'active' | 'paused' | 'disabled' | 'completed';
export type RunTrigger = 'schedule' | 'manual' | 'retry_manual' | 'backfill';
/** The job policies, listed once: the API validates against these lists, the jobs table checks them. */
export const MISFIRE_POLICIES = ['fire_once', 'skip', 'fire_all'] as const;
export type MisfirePolicy = (typeof MISFIRE_POLICIES)[number];
export const OVERLAP_POLICIES = ['allow', 'skip', 'queue', 'cancel_previous'] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];

/**
 * The schedule as the job row stores it; computed into occurrences by a local activity
 * (`compileJobSchedule`, libs/orchestration/src/job-schedule.ts).
 */
export interface ScheduleSnapshot {
  expr: string;
  /** The kind the validator detected or was given, never `auto` (the row stores the compiled kind). */
  kind: ScheduleKind;
  timezone: string;
  startsAt: string | null;
  endsAt: string | null;
  count: number | null;
  /** Reference instant (ISO) that phases intervals and anchors relative expressions. */
  anchor: string;
  /**
   * Only for a schedule that excludes workspace calendars: the planner reads their dates
   * from the workspace at every plan (a calendar's change applies from the job's next wake).
   * `exclude` is the job's `schedule.exclude_calendars`; names in the expression need no listing.
   */
  calendars?: { workspaceId: string; exclude: string[] };
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
  /**
   * Not read by this release: its plans take `scheduler.misfire_threshold` from the worker's
   * config, like the attempt (one source). Still written because workers of the previous
   * release plan with it while a rolling upgrade runs, and recorded histories carry it. Drop it
   * with the legacy workflow copies (docs/architecture.md).
   */
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
  /**
   * What a person reading the Temporal Web UI is shown about the job (`describeForTemporal`):
   * never credentials, URL paths or queries, headers or command arguments. Absent in snapshots
   * written before it existed.
   */
  display?: JobDisplay;
  /**
   * The job's offset inside its start window (ms, > 0): each occurrence fires this long
   * after its nominal instant. Absent: at the nominal instant (no window, older snapshots).
   */
  startOffsetMs?: number;
  /** `max_concurrent_runs` of an `allow` job; absent: unbounded (runs not tracked). */
  maxConcurrentRuns?: number;
  /**
   * When the job row this snapshot was read from was last written (its `updated_at`, ISO),
   * so no later than the change it carries took effect (a create, a new version, a resume). The job
   * workflow plans from here, not from when it hears of the change (`SCHEDULE_FROM_COMMIT_PATCH`).
   * Absent in snapshots written before it.
   */
  committedAt?: string;
}

/**
 * A job's start window applied to its occurrences: each fires `offsetMs` after its
 * nominal instant (its planned time, `plannedAt` in occurrence-rules.ts). `notBefore`: the instant
 * a new version carried over occurrences whose nominal time had passed but whose planned time had
 * not; none is planned before it, so a new offset neither drops them nor makes them late.
 */
export interface Spread {
  offsetMs: number;
  notBefore?: string;
}

/**
 * The secret-free description of a job shown in the Temporal Web UI (workflow summaries, the
 * attempt activity's summary, `describe` queries). Built by `describeForTemporal` in
 * libs/orchestration; plain data so it can ride in snapshots and run inputs.
 */
export interface JobDisplay {
  name: string;
  /** The schedule as written (`every weekday at 9am`) and its zone. */
  schedule: string;
  timezone: string;
  sink: string;
  /** `POST hooks.example.com` (method and host only) or `command backup.sh` (program name only). */
  target: string;
  maxAttempts: number;
  timeoutMs: number;
}

/**
 * Patch ids that separate executions begun by the code before the one-activity occurrence path
 * (temporal/workflows/legacy) from those begun by the current code. An execution whose first
 * workflow task ran the older code has no marker and replays through the legacy functions.
 */
export const JOB_PATH_PATCH = 'job-occurrence-path-v2';
export const RUN_PATH_PATCH = 'run-one-attempt-v2';
/**
 * Introduced 2026-11-28: Temporal's status is the run's status. A failed run ends its
 * workflow Failed (`RUN_FAILED`), a cancelled one Canceled; the attempt activity's retry policy
 * carries the job's attempt budget. Checked before `RUN_PATH_PATCH`, so a new execution records
 * this one marker only; executions begun before it replay through the older paths.
 */
export const RUN_ENDS_AS_STATUS_PATCH = 'run-ends-as-status';
/**
 * The run workflow's code version, written into every input by the one place that starts runs
 * (`JobWorkflowGateway.startRun`). A run lives minutes, so its path is chosen by its input instead of
 * a `patched()` marker: a marker also upserts `TemporalChangeVersion`, one billable action per run.
 * 3 is the path of `RUN_ENDS_AS_STATUS_PATCH`; inputs without a version replay through the patches.
 * A change to the run workflow's commands raises it and branches on it (docs/decisions.md).
 */
export const RUN_CODE_VERSION = 4;
/**
 * Introduced 2026-11-28: an attempt that waits for its destination (destination limits)
 * fails its activity with the non-retryable `DESTINATION_WAIT`, and the run workflow sleeps on a
 * timer until the time it names, then schedules the attempt again: the wait spends neither the
 * run's attempts nor Temporal's. Inputs of `RUN_CODE_VERSION` 4 take it without a marker; a run
 * started with an older version takes it through this patch (executions begun before it keep
 * Temporal's retry of the wait, paced by `nextRetryDelay`).
 */
export const DESTINATION_WAIT_PATCH = 'run-destination-wait';
/** Error type of `runAttempt` when its destination makes it wait (details: `DestinationWaitDetails`). */
export const DESTINATION_WAIT = 'DestinationWait';
/** Error type of a run workflow whose run failed (its last error and attempt count in `details`). */
export const RUN_FAILED = 'RunFailed';
/** The `details[0]` of a `RunFailed` workflow failure. */
export interface RunFailedDetails {
  runId: string;
  jobId: string;
  /** Attempts the run made (0 when it failed before any, e.g. its job was gone). */
  attempts: number;
  lastError: string;
}
/**
 * Scheduled runs are named after their occurrence (`occurrenceRunId`), not minted from workflow
 * time, so a workflow task retried after a crash names the same runs. Executions that
 * opened runs before it replay with the ids they minted then.
 */
export const OCCURRENCE_RUN_ID_PATCH = 'occurrence-run-id';
/**
 * The job workflow asks its plan for the lead of the next occurrence (longer when many
 * jobs share its instant) and continues-as-new at a shorter history. Executions begun before it
 * keep the fixed `prepareAheadMs` and the longer history until they continue-as-new.
 */
export const PREPARED_BURSTS_PATCH = 'prepared-bursts';
/**
 * A job whose next wake is far away parks (continues-as-new onto the parked task queue,
 * whose worker caches nothing) instead of sleeping in the worker's cache. Executions begun before
 * it never park; they sleep as they recorded.
 */
export const PARKED_JOBS_PATCH = 'parked-idle-jobs';
/**
 * For an `allow` job the plan also decides the due occurrences and opens their runs, in
 * the same local activity (one workflow activation, one marker and one round trip less per
 * occurrence). Executions begun before it keep a plan and an open-runs activity per occurrence.
 */
export const PLAN_OPENS_RUNS_PATCH = 'plan-opens-runs';
/**
 * A job workflow's schedule starts where the job's change was committed
 * (`JobSnapshot.committedAt`), not at the workflow's own clock when it hears of it: a start, a new
 * version or a resume that reaches the workflow late (a Temporal outage, a retried follow-up or
 * first task, the reconciler) no longer drops the occurrences due in between; they follow the
 * misfire policy. Executions that recorded the older rule replay with it.
 */
export const SCHEDULE_FROM_COMMIT_PATCH = 'schedule-from-commit';

/**
 * A parked job run: it only waits, for `until` or a signal, on the parked task queue,
 * then continues-as-new back onto `returnTo` with its state, where it plans as usual.
 */
export interface ParkedJob {
  /** When to go back (ISO): a margin before the wake of `next`. */
  until: string;
  /** The occurrence it will prepare next (ISO), for the describe query. */
  next: string;
  /** The task queue it came from and goes back to. */
  returnTo: string;
}

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
  /** Carried across continue-as-new: the lead of the next occurrence from the last plan (ms). */
  leadMs?: number;
  /** Carried across continue-as-new: the instant the job is counted at in the burst estimate. */
  registered?: string | null;
  /** Set on a parked run only: it waits on the parked task queue. */
  parked?: ParkedJob;
  /** Carried from a parked run: a snapshot signalled while parked, applied as any signalled one. */
  pending?: JobSnapshot | null;
}

export interface RunWorkflowInput {
  runId: string;
  jobId: string;
  workspaceId: string;
  jobVersion: number;
  /** ISO instant of the occurrence (nominal time). */
  scheduledAt: string;
  /** When it is planned to fire (nominal time + the job's offset); absent: `scheduledAt`. */
  plannedAt?: string;
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
  /** For the Temporal Web UI (activity summary, `describe`); absent in older inputs. */
  display?: JobDisplay;
  /** Attempts the run had before this workflow started (a stalled run started again); default 0. */
  attemptsBefore?: number;
  /** `RUN_CODE_VERSION` of the release that started the run; absent in runs started before it. */
  codeVersion?: number;
}

export const jobChangedSignal = defineSignal<[JobSnapshot]>('jobChanged');
export const jobDeletedSignal = defineSignal<[]>('jobDeleted');
/** A tracked run ended (any terminal status); sent by the run workflow. */
export const runFinishedSignal = defineSignal<[string]>('runFinished');
/**
 * A retry of the run's attempt began (sent by `runAttempt` itself from its second attempt on, best
 * effort): the run workflow's current details follow the attempt, as the Web UI's counter does.
 */
export interface AttemptStarted {
  attempt: number;
  /** The previous attempt's outcome (`attempt 1 of 5 · POST host → HTTP 500`), when known. */
  previous: string | null;
}
export const attemptStartedSignal = defineSignal<[AttemptStarted]>('attemptStarted');

/**
 * `describe` query of a job workflow: what it runs on and what it is waiting for, from its own
 * state (no I/O). `nextOccurrences` is what the last plan returned (the next one; the plan asks
 * for no more), so it is empty while paused or before the first plan.
 */
export interface JobWorkflowDescription {
  jobId: string;
  revision: number;
  version: number;
  state: JobState;
  overlapPolicy: OverlapPolicy;
  display: JobDisplay | null;
  /** The next occurrence(s) known from the last plan (ISO); the timer wakes `prepareAheadMs` before. */
  nextOccurrences: string[];
  /** Occurrences at or before this instant are done. */
  doneUntil: string;
  /** Runs it tracks (overlap policies other than `allow`; under `allow` it tracks none). */
  inFlight: TrackedRun[];
  queued: TrackedRun | null;
  /** A newer snapshot arrived and is applied at the next step. */
  pendingRevision: number | null;
  /** What the workflow is blocked on, in words. */
  waitingFor: string;
}

/**
 * What a run workflow is doing, as it knows it. The attempt activity runs under Temporal's
 * activity retry, which does not wake the workflow between attempts: from `attempt_started` to
 * the end, the attempt number, the last failure and the next retry time are Temporal's pending
 * activity (`temporal workflow describe`, `GET /runs?stuck=true`), not workflow state.
 */
export interface RunWorkflowDescription {
  runId: string;
  jobId: string;
  trigger: RunTrigger;
  scheduledAt: string;
  /**
   * `waiting_for_instant`: the attempt holds the request until `until` (prepare-ahead);
   * `waiting_for_destination`: the destination's limits or hold make the attempt wait until `until`
   *; `attempting`: sending, or waiting for a retry under Temporal's activity retry;
   * `finishing`: recording the end; `done`: ended with `status`.
   */
  phase: 'waiting_for_instant' | 'waiting_for_destination' | 'attempting' | 'finishing' | 'done';
  /** Workflow time when the phase began (ISO). */
  since: string;
  /** `waiting_for_instant`, `waiting_for_destination`: the instant the attempt goes on (ISO). */
  until: string | null;
  /** The attempt number (1-based) the activity began with. */
  firstAttempt: number;
  maxAttempts: number | null;
  target: string | null;
  status: string | null;
  /** Outcome of the last attempt the workflow heard of (`attempt 2 · POST host → 200`). */
  lastOutcome: string | null;
  /**
   * The attempt in progress, from the attempt's `attemptStarted` signal (runs begun under
   * `RUN_ENDS_AS_STATUS_PATCH`; absent before the second attempt and in older runs).
   */
  attempt?: number;
  /** Workflow time of the last activation (a query does not advance it). */
  asOf: string;
}

export const describeJobQuery = defineQuery<JobWorkflowDescription>('describe');
export const describeRunQuery = defineQuery<RunWorkflowDescription>('describe');

/** Memo of a job workflow: the revision it runs on, so the reconciler can find drift by listing. */
export interface JobWorkflowMemo {
  revision: number;
}

/**
 * Heartbeat timeout of the run's attempt activity: a worker that stops heartbeating (killed,
 * frozen, cut off) loses the attempt after this long. Also the stuck-run rule's `no_heartbeat`.
 */
export const ATTEMPT_HEARTBEAT_TIMEOUT_MS = 10_000;
/**
 * How often at most an attempt's heartbeats reach the server (the worker's throttle): 80% of the
 * timeout above, also for attempts whose timeout was lengthened to cover their wait.
 */
export const ATTEMPT_HEARTBEAT_THROTTLE_MS = ATTEMPT_HEARTBEAT_TIMEOUT_MS * 0.8;
/**
 * Start-to-close of one attempt activity besides any wait for its instant: the longest job timeout
 * (120 s) and the bookkeeping (claim, records). An attempt opened ahead gets its wait on top.
 */
export const ATTEMPT_BUDGET_MS = 150_000;

export const JOB_WORKFLOW = 'jobWorkflow';
export const RUN_WORKFLOW = 'runWorkflow';

/** Registered on the dev server by scripts/lib.sh and in docker-compose (names must match). */
export const SEARCH_ATTRIBUTES = {
  jobId: 'SvcJobId',
  workspaceId: 'SvcWorkspaceId',
  trigger: 'SvcTrigger',
  /** The job's key, on job workflows of jobs that have one. */
  jobKey: 'SvcJobKey',
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

/**
 * The task queue of run workflows and their attempts, served by a worker of its own: a
 * burst's run starts take their first workflow task from that worker's slots (eager start), which
 * job workflows busy with their local activities never hold, so they are not sent to the shared
 * queue's backlog (docs/architecture.md → Bursts prepared ahead).
 */
export function runsTaskQueue(jobsTaskQueue: string): string {
  return `${jobsTaskQueue}-runs`;
}

/** The task queue of parked job runs, served by a worker with no workflow cache. */
export function parkedTaskQueue(jobsTaskQueue: string): string {
  return `${jobsTaskQueue}-parked`;
}

/** A bulk action or recover: workflow id = the operation id (`op_…`), on the jobs task queue. */
export const BULK_OPERATION_WORKFLOW = 'bulkOperationWorkflow';

export interface BulkOperationInput {
  operationId: string;
  workspaceId: string;
  /** A pause's maintenance window: its jobs are resumed at this instant (ISO); null otherwise. */
  resumeAt: string | null;
}

/** What a finished bulk operation reports (its workflow result). */
export interface BulkOperationResult {
  batches: number;
  cancelled: boolean;
  /** The maintenance window ended and its jobs were resumed. */
  resumed: boolean;
}

/** `POST /operations/{id}/cancel`: no further batch starts, and a waiting window resumes nothing. */
export const cancelOperationSignal = defineSignal<[]>('cancelOperation');

/** A backfill of a job's past occurrences: workflow id = the backfill id (`bf_…`), on the jobs task queue. */
export const BACKFILL_WORKFLOW = 'backfillWorkflow';

export interface BackfillInput {
  backfillId: string;
  workspaceId: string;
  jobId: string;
  /** Steps taken by earlier runs of this execution chain (continue-as-new). */
  steps?: number;
}

/** What a finished backfill reports (its workflow result). */
export interface BackfillResult {
  steps: number;
  cancelled: boolean;
}

/** `POST /backfills/{id}/cancel`: no occurrence starts after it; runs in flight end on their own. */
export const cancelBackfillSignal = defineSignal<[]>('cancelBackfill');

/**
 * The workflow types the worker registers: the exports of temporal/workflows/index.ts, which
 * `temporal/test/workflow-types.spec.ts` holds to this list, so a workflow added there is named
 * here (and so kept off limits to `temporal_workflow` jobs, libs/orchestration service-workflows.ts).
 */
export const REGISTERED_WORKFLOW_TYPES = [
  JOB_WORKFLOW,
  RUN_WORKFLOW,
  ALERT_WORKFLOW,
  CHANNEL_VERIFICATION_WORKFLOW,
  BULK_OPERATION_WORKFLOW,
  BACKFILL_WORKFLOW,
] as const;

/**
 * Type-only contracts of the activities the workflows call; the worker implements them in
 * apps/worker/src/activities. Kept here so workflow code never imports worker code.
 */
import type {
  JobDisplay,
  JobSnapshot,
  MisfirePolicy,
  OverlapPolicy,
  RunWorkflowInput,
  ScheduleSnapshot,
  Spread,
} from './definitions';

export interface PlanOccurrencesInput {
  schedule: ScheduleSnapshot;
  /** Occurrences at or before this instant are done (ISO). */
  after: string;
  /** The workflow's clock plus `leadMs` (ISO): occurrences up to here are due. */
  now: string;
  /**
   * How far `now` is ahead of the workflow's clock (occurrences within the lead are opened ahead):
   * lateness is measured from `now` less it. Absent (0) in plans of the legacy loop.
   */
  leadMs?: number;
  /**
   * Ignored: the plan reads the threshold from the worker's `scheduler.misfire_threshold`, as the
   * attempt does. Still sent by the frozen legacy loop (legacy/job.workflow.v1.ts).
   */
  misfireThresholdMs?: number;
  maxCatchUp: number;
  /**
   * Asks for the lead of `next`: the job is counted in the burst estimate of `next`
   * (unless it is `registered` there already) and the plan returns `leadMs`. Absent in plans
   * recorded before it.
   */
  prepare?: PlanPrepareInput;
  /**
   * Read the workspace gate in the same activity when occurrences are due (one local activity
   * less per occurrence). Absent in plans recorded before it.
   */
  gate?: { workspaceId: string; month: string };
  /**
   * Decide the due occurrences and open their runs in the same activity (`allow` jobs
   * only: their decisions do not depend on runs in flight). Needs `gate`. Absent in plans
   * recorded before it, and for other overlap policies, whose workflow decides and opens.
   */
  open?: PlanOpenInput;
  /**
   * The job's start window: an occurrence is due, on time or missed by its planned time
   * (nominal + offset), and `next` is the first whose planned time is after `now`; the occurrences
   * themselves stay nominal. Absent: planned at their nominal instant.
   */
  spread?: Spread;
}

/** What the plan needs to decide an `allow` job's due occurrences and open their runs. */
export interface PlanOpenInput {
  jobId: string;
  workspaceId: string;
  jobVersion: number;
  misfirePolicy: MisfirePolicy;
  display?: JobDisplay;
}

export interface PlanPrepareInput {
  jobId: string;
  /** The instant this job was last counted at (not counted twice). */
  registered: string | null;
  overlapPolicy: OverlapPolicy;
  /** Sent by job workflows started before the lead stopped depending on it; ignored. */
  timeoutMs?: number | null;
}

export interface OccurrencePlan {
  /** Due within the misfire threshold: each one fires (ISO, ascending). */
  onTime: string[];
  /** The latest missed occurrences (at most maxCatchUp), older than the threshold. */
  missed: string[];
  missedTotal: number;
  /** First occurrence after `now`, or null. */
  next: string | null;
  /** Everything up to here was examined (the next `after`). */
  scannedUntil: string;
  /** True when the series has no occurrence after `scannedUntil`. */
  ended: boolean;
  /** Set when the schedule no longer compiles. */
  error?: string;
  /** How long before `next` to wake and prepare it (only when asked with `prepare`). */
  leadMs?: number;
  /** The burst estimate the lead was computed from (for the workflow's details). */
  burst?: number;
  /** The workspace gate, read when asked with `gate` and occurrences are due. */
  gate?: WorkspaceGate;
  /**
   * Set when the worker parks idle jobs (`worker.park_idle_after`): a job whose wake is
   * further away than `afterMs` waits on `taskQueue` instead of in the worker's cache.
   */
  park?: ParkSettings;
  /**
   * Set when the plan was asked with `open` and occurrences were due: what it decided and opened
   * (every decision's run row is written, `start` ones started). The workflow then has nothing to
   * open itself.
   */
  opened?: { decisions: OccurrenceDecision[]; collapsed: number; renamed?: Record<string, string> };
}

export interface ParkSettings {
  taskQueue: string;
  afterMs: number;
}

export interface ScheduleActivities {
  planOccurrences(input: PlanOccurrencesInput): Promise<OccurrencePlan>;
}

/** What the job workflow's rules need to know about the workspace when occurrences are due. */
export interface WorkspaceGate {
  suspended: boolean;
  /** Monthly cap that blocks scheduled runs, or null when there is none (or the policy is `allow`). */
  blockingQuota: { limit: number; used: number } | null;
}

export type SkipReason =
  'misfire' | 'workspace_suspended' | 'quota_exceeded' | 'previous_run_in_progress' | 'max_concurrent_runs';

/** One occurrence as the job workflow decided it. */
export interface OccurrenceDecision {
  runId: string;
  scheduledAt: string;
  /** `start`: record and start its run workflow; `queue`: record as waiting; `skip`: record skipped. */
  action: 'start' | 'queue' | 'skip';
  skipReason?: SkipReason;
}

export interface OpenRunsInput {
  jobId: string;
  workspaceId: string;
  jobVersion: number;
  decisions: OccurrenceDecision[];
  /** Run workflows started for `start` decisions signal their end to the job workflow. */
  notifyJob: boolean;
  /** Missed occurrences folded into these decisions by the misfire policy (no run of their own). */
  collapsed?: number;
  /**
   * `fire_all` only: the missed occurrences beyond the catch-up limit lie strictly between these
   * instants; each is recorded as a `skipped` run with `skip_reason: misfire` (decisions.md).
   */
  collapsedRange?: { schedule: ScheduleSnapshot; after: string; before: string };
  /** The job's display, for the run workflows' summaries (absent in older inputs). */
  display?: JobDisplay;
  /** The job's start window: each run row and run workflow gets its planned time. */
  spread?: Spread;
}

export interface OpenRunsResult {
  /**
   * Decided run id → the id the occurrence already has, for occurrences recorded earlier under
   * another id (by code that minted ids from workflow time). Absent in results recorded before it.
   */
  renamed?: Record<string, string>;
  /**
   * Runs (by the id they hold) the job workflow must not track: the occurrence was already
   * recorded and has ended, or a backfill opened it (its run signals no job workflow), so no
   * `runFinished` would ever release it. Absent in results recorded before it.
   */
  untracked?: string[];
}

export interface StartQueuedRunInput {
  jobId: string;
  workspaceId: string;
  jobVersion: number;
  run: { runId: string; scheduledAt: string };
  /** The workflow clock when the run it waited for ended (ISO). */
  releasedAt: string;
  /** The job's display, for the run workflow's summaries (absent in older inputs). */
  display?: JobDisplay;
}

export interface JobActivities {
  /** Reads what the occurrence rules need: suspension and the blocking monthly cap. */
  readWorkspaceGate(input: { workspaceId: string; month: string }): Promise<WorkspaceGate>;
  /**
   * Records one run row per decision (skipped ones terminal, the rest `running`, or `deferred` while
   * queued) and starts the run workflows of `start` decisions. Idempotent by occurrence: an
   * occurrence already recorded keeps its row and run id, and its workflow is started only while
   * the row is open.
   */
  openRuns(input: OpenRunsInput): Promise<OpenRunsResult | void>;
  /** Starts the run workflow of a queued occurrence once the run it waited for has ended. */
  startQueuedRun(input: StartQueuedRunInput): Promise<void>;
  /** Cancels runs (overlap_policy `cancel_previous`, job deleted): their workflows and waiting rows. */
  cancelRuns(input: { runIds: string[] }): Promise<void>;
  /** The job's current snapshot (or null when it is gone), for executions carried from older code. */
  loadJobSnapshot(input: { jobId: string }): Promise<JobSnapshot | null>;
  /** Marks an active job `completed` when its schedule has no further occurrence. */
  markJobCompleted(input: { jobId: string; revision: number }): Promise<void>;
}

export interface RunAttemptResult {
  status: 'succeeded' | 'failed' | 'skipped' | 'cancelled';
  /** `attempt 2 of 3 · POST host → HTTP 200`, for the Temporal Web UI (absent in older results). */
  outcome?: string;
  /** Attempts the run made in all (absent in older results and when no attempt was made). */
  attempts?: number;
  /** The run's last error when it ended `failed`. */
  error?: string | null;
}

/** `details[0]` of a `RetryableDelivery` failure of `runAttempt`: attempts the run made so far. */
export interface RetryableDeliveryDetails {
  attempts: number;
}

/** `details[0]` of a `DestinationWait` failure of `runAttempt`. */
export interface DestinationWaitDetails {
  /** Attempts the run made so far (the wait made none). */
  attempts: number;
  /** When to try again (ISO). */
  retryAt: string;
  reason: 'destination_limit' | 'destination_held';
  destination: string;
}

export interface FinishRunInput {
  runId: string;
  status: 'succeeded' | 'failed' | 'cancelled';
  error?: string | null;
}

export interface RunActivities {
  /**
   * One delivery attempt in one step: claims the run (misfire check on the first attempt), records
   * the attempt, sends, classifies, and closes the run when the outcome is final. Retryable
   * outcomes throw with the next-retry delay; the run's own attempt counter decides exhaustion.
   */
  runAttempt(input: RunWorkflowInput): Promise<RunAttemptResult>;
  /** Closes a run that ended outside an attempt (cancelled, or failed by an infrastructure error). */
  finishRun(input: FinishRunInput): Promise<void>;
}

/** One alert of one event to one channel. */
export interface SendAlertInput {
  eventId: string;
  channelId: string;
}

/** `skipped`: the channel was deleted, or is an unverified address, by the time of sending. */
export type SendAlertOutcome = 'sent' | 'skipped';

export interface AlertActivities {
  /**
   * Matches the event against the workspace's rules and cooldowns once (later calls find it
   * planned) and returns the channels still to send to.
   */
  planAlert(input: { eventId: string }): Promise<{ channelIds: string[] }>;
  /**
   * Sends the event to one channel, unless it went out already. Throws to be retried on a
   * failure that may pass (`AlertNotSent`), non-retryable (`AlertRefused`) when it cannot.
   */
  sendAlert(input: SendAlertInput): Promise<SendAlertOutcome>;
  /** Marks a delivery failed after its retries ran out. */
  recordAlertFailure(input: SendAlertInput & { error: string }): Promise<void>;
  /** Mails an email channel a fresh confirmation link (skipped once it is verified). */
  sendChannelVerification(input: { channelId: string }): Promise<SendAlertOutcome>;
}

/** The operation's status as its workflow moves it (`running` is its status from the start). */
export type OperationStep = 'waiting' | 'succeeded' | 'cancelled';

export interface OperationActivities {
  /**
   * Handles the operation's next batch of pending items (each once, a bounded number at a time)
   * and answers how many are left; `cancelled` when a cancel was asked (then nothing is handled).
   */
  applyOperationBatch(input: { operationId: string }): Promise<{ remaining: number; cancelled: boolean }>;
  /**
   * The end of a maintenance window: resumes, in order from `afterSeq`, a batch of the jobs the
   * operation paused that are still in its window; `nextSeq` null once every one was looked at.
   */
  resumeOperationJobs(input: { operationId: string; afterSeq: number }): Promise<{ nextSeq: number | null }>;
  setOperationStatus(input: { operationId: string; status: OperationStep }): Promise<void>;
}

export interface BackfillActivities {
  /**
   * Gives the backfill's next pending occurrences their runs as far as its mode leaves room (each
   * once); `done` once none is pending and none of its runs is in flight, `cancelled` when a cancel
   * was recorded (the occurrences not started are then canceled).
   */
  stepBackfill(input: { backfillId: string }): Promise<{ done: boolean; cancelled: boolean }>;
  /** Ends the backfill: `completed`, or `cancelled` when a cancel was recorded. */
  finishBackfill(input: { backfillId: string }): Promise<void>;
}

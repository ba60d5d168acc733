/** The vocabulary of job changes: what the lifecycle is given, the user state machine and the revision rule. */
import type { AppConfig } from '@svc/common';
import type {
  AlertEventsRepository,
  AuditRepository,
  JobEntity,
  JobState,
  JobsRepository,
  JsonObject,
  RunClose,
  RunEntity,
  RunsRepository,
  WorkspacesRepository,
} from '@svc/persistence';
import type { DataSource, EntityManager } from 'typeorm';
import type { BackgroundWork } from './background-work';
import type { JobScheduleColumns } from './job-schedule';
import type { JobWorkflowGateway } from './job-workflow.gateway';

export interface JobLifecycleDeps {
  dataSource: DataSource;
  jobs: JobsRepository;
  runs: RunsRepository;
  audit: AuditRepository;
  workspaces: WorkspacesRepository;
  gateway: JobWorkflowGateway;
  config: AppConfig;
  /** Where a failed workflow notification is reported (the change itself stands). */
  warn?: (message: string) => void;
  /**
   * Alerts (docs/alerts.md): where `closeRun` records the events it causes, in its transaction,
   * and who starts their delivery once it has committed (a start that is lost is repeated by the
   * worker's sweeper). Absent in processes that close no runs.
   */
  alerts?: { events: AlertEventsRepository; dispatch: (eventIds: string[]) => Promise<void> };
  /** Told once per run, after the transaction that moved it to a terminal status (metrics). */
  onRunClosed?: (run: RunEntity) => void;
  /**
   * The retried follow-ups that tell job workflows of every change (the API passes the one it
   * drains at shutdown); by default one of its own, reporting through `warn`.
   */
  followUps?: BackgroundWork;
}

/** A job's settings as validated by the API: what a create writes and a PATCH replaces. */
export type JobSettingsColumns = JobScheduleColumns &
  Pick<
    JobEntity,
    | 'name'
    | 'description'
    | 'tags'
    | 'sinkKind'
    | 'sinkConfig'
    | 'retry'
    | 'timeoutMs'
    | 'slaThresholdMs'
    | 'misfirePolicy'
    | 'overlapPolicy'
    | 'autoDisableThreshold'
    | 'startWindowMs'
    | 'maxConcurrentRuns'
  >;

/** A created or changed job, with the signing secret it was given (in this answer only). */
export interface WrittenJob {
  job: JobEntity;
  signingSecret?: string;
}

/** One job of `JobLifecycle.createMany`: the caller's validated settings and its identity. */
export interface NewJob {
  settings: JobSettingsColumns;
  /** The job's key (unique in the workspace: `409 conflict` when taken) and owner. */
  identity?: { key: string | null; managedBy: string | null };
  /** The caller's own signing secret (validated by the API) instead of a new one. */
  signingSecret?: string;
}

/** What the caller of a create or PATCH checks inside the write transaction (a throw writes nothing). */
export type InTransactionCheck = (manager: EntityManager) => Promise<void>;

/** A PATCH, validated by the caller against the row it is applied to. */
export interface JobEdit {
  /** The request's top-level fields (audit). */
  fields: string[];
  /**
   * Writes the merged, validated settings onto the locked row, in the transaction (a throw writes
   * nothing). `'unchanged'`: the row already is what the edit asks for (a PUT by key or an apply
   * of an identical declaration): nothing is written, audited or signalled, the version stays.
   */
  apply(job: JobEntity, manager: EntityManager): Promise<void | 'unchanged'>;
  /** Whether the job as edited has an occurrence after now (a `completed` job with one becomes `active`). */
  hasNextOccurrence(job: JobEntity): boolean;
}

/** Options of the writes an apply makes: its one `jobs.apply` audit entry replaces theirs. */
export interface WriteOptions {
  /** Default true: the write's own audit entry. */
  audit?: boolean;
}

/** Why a change was made and by which bulk operation: written into its audit entry as `note` and `operation_id`. */
export interface ChangeNote {
  note?: string | null;
  operationId?: string;
}

/** A state change's options: its note, and for a pause the end of its maintenance window. */
export interface TransitionOptions extends ChangeNote {
  /** pause: when the job's maintenance window resumes it (shown on the job as `resume_at`). */
  resumeAt?: Date | null;
  /**
   * resume: the end of the maintenance window that paused the job at this `resume_at`. A job no
   * longer in that window (resumed by hand, paused again since) is left alone: `409 conflict`.
   */
  windowEnd?: Date;
}

/** The audit details of a change's note (nothing when there is none). */
export function noteDetails(context: ChangeNote): Record<string, string> {
  return {
    ...(context.note ? { note: context.note } : {}),
    ...(context.operationId ? { operation_id: context.operationId } : {}),
  };
}

/** A manual retry: the run that answers it, and whether this request wrote it (else it existed). */
export interface ManualRetry {
  run: RunEntity;
  inserted: boolean;
}

/**
 * A run to close: the change `RunsRepository.close` writes (the attempt that ended the run is closed
 * in the same statement), with the run's error as `error`; the SLA default is the configuration's.
 */
export interface CloseRunInput extends Omit<RunClose, 'status' | 'lastError' | 'defaultSlaThresholdMs'> {
  status: 'succeeded' | 'failed' | 'cancelled' | 'skipped';
  error?: string | null;
}

/** The state changes a user asks for (spec: Job states), and the one state each is allowed from. */
export const USER_TRANSITIONS = {
  pause: { from: 'active', to: 'paused', action: 'job.pause' },
  resume: { from: 'paused', to: 'active', action: 'job.resume' },
  enable: { from: 'disabled', to: 'active', action: 'job.enable' },
} as const satisfies Record<string, { from: JobState; to: JobState; action: string }>;
export type UserTransition = keyof typeof USER_TRANSITIONS;

/** Why a state change is refused, as a sentence naming what the user can do instead. */
export const TRANSITION_REFUSED: Record<UserTransition, (state: string) => string> = {
  pause: (state) => `The job is ${state}; only an active job can be paused`,
  resume: (state) => `The job is ${state}; only a paused job can be resumed`,
  enable: (state) => `The job is ${state}; only a disabled job can be enabled`,
};

/** The states a manual run may start from (spec: Job states; decisions.md: `409` on the others). */
export const TRIGGERABLE: readonly JobState[] = ['active', 'paused'];

/**
 * The one revision rule: every committed change the job's workflow must hear of (a PATCH and every
 * state change) raises `revision` by one, from the row read under its lock or the revision the
 * write is conditioned on. The workflow ignores snapshots at or below the revision it holds, and
 * the reconciler compares it with the workflow's memo. Only a PATCH also raises `version`.
 */
export function nextRevision(job: Pick<JobEntity, 'revision'>): number {
  return job.revision + 1;
}

/** What a manual run is opened for: a trigger (now) or the manual retry of a failed run (its occurrence). */
export type ManualOpening = { trigger: 'manual' } | { trigger: 'retry_manual'; original: RunEntity };

/**
 * A manual run's per-run overrides (docs/api.md → Per-run overrides), validated against the job
 * it opens for once that job is read: the value to record (null: none), or a `400` thrown.
 */
export type OverridesFor = (job: JobEntity) => Promise<JsonObject | null>;

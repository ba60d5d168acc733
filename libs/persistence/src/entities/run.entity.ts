import { Entity, Index } from 'typeorm';
import { BooleanColumn, IntegerColumn, JsonColumn, TextColumn, TimestampColumn } from './columns';
import { TimestampedEntity } from './timestamps';
import { WorkspaceRow } from './workspace-row';
import type { JsonObject, StartedWorkflowColumn } from './json';

export const DEFERRED_REASONS = ['destination_limit', 'destination_held'] as const;
export type DeferredReason = (typeof DEFERRED_REASONS)[number];

export const RUN_STATUSES = ['running', 'deferred', 'succeeded', 'failed', 'skipped', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const RUN_TRIGGERS = ['schedule', 'manual', 'retry_manual', 'backfill'] as const;
export type RunTrigger = (typeof RUN_TRIGGERS)[number];
export const SKIP_REASONS = [
  'quota_exceeded',
  'workspace_suspended',
  'previous_run_in_progress',
  'misfire',
  // A user skipped this occurrence (`POST /jobs/{id}/occurrences/{at}/skip`); see `skip_note`
  'occurrence_skipped',
  'max_concurrent_runs',
] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

/**
 * One occurrence of a job (the queryable mirror of a run workflow; its id, `run_<ulid>`, is the
 * workflow's). No foreign key to jobs: run history outlives a deleted job.
 *
 * List indexes (newest first, ties by id) are created by the migration with DESC orders, which
 * TypeORM decorators cannot express, hence `synchronize: false`.
 */
@Entity({ name: 'runs' })
@Index('idx_runs_job_scheduled', { synchronize: false })
@Index('idx_runs_workspace_scheduled', { synchronize: false })
@Index('idx_runs_workspace_status_scheduled', { synchronize: false })
@Index('idx_runs_workspace_sla_breached', { synchronize: false })
// The SLA watch (docs/alerts.md): in-flight runs not yet marked breached, by occurrence time.
@Index('idx_runs_sla_watch', { synchronize: false })
@Index('idx_runs_awaiting_first_attempt', ['scheduledAt'], { where: `"status" = 'running' AND "started_at" IS NULL` })
@Index('uq_runs_manual_retry_occurrence', ['jobId', 'scheduledAt'], {
  unique: true,
  where: `"trigger" = 'retry_manual'`,
})
// A scheduled run is its occurrence: one row per (job, scheduled_at). Rows that older
// code recorded twice are kept as history, marked `duplicate_of`, outside the index. A backfill's
// first run of an occurrence is the same row: the schedule and a backfill that meet at
// one instant write one run. A backfill's re-run of an occurrence that already ended (`retry_of`)
// is outside it, one per run it re-runs (`uq_runs_backfill_rerun`).
@Index('uq_runs_scheduled_occurrence', ['jobId', 'scheduledAt'], {
  unique: true,
  where: `("trigger" = 'schedule' OR "trigger" = 'backfill' AND "retry_of" IS NULL) AND "duplicate_of" IS NULL`,
})
@Index('uq_runs_backfill_rerun', ['retryOf'], {
  unique: true,
  where: `"trigger" = 'backfill' AND "retry_of" IS NOT NULL`,
})
@Index('idx_runs_backfill', ['backfillId'], { where: `"backfill_id" IS NOT NULL` })
// Open runs by last progress: the stalled-run sweep (runs with no workflow, or one that ended).
@Index('idx_runs_open', ['updatedAt'], { where: `"status" IN ('running', 'deferred')` })
// Runs waiting for their destination, counted per destination.
@Index('idx_runs_destination_wait', ['workspaceId', 'deferredDestination'], {
  where: `"status" = 'deferred' AND "deferred_reason" IS NOT NULL`,
})
// Run retention: terminal runs by finish time, oldest first; open runs stay out.
@Index('idx_runs_finished_terminal', ['finishedAt'], {
  where: `"status" IN ('succeeded', 'failed', 'skipped', 'cancelled')`,
})
export class RunEntity extends WorkspaceRow('runs', TimestampedEntity) {
  @TextColumn('job_id')
  jobId: string;

  @IntegerColumn('job_version')
  jobVersion: number;

  /** Nominal occurrence time (millisecond precision). */
  @TimestampColumn('scheduled_at', { precision: 3 })
  scheduledAt: Date;

  /**
   * When a scheduled run of a job with a start window is planned to fire: the nominal
   * time plus the job's offset. null: at `scheduled_at` (no window, manual runs, older rows).
   */
  @TimestampColumn('planned_at', { precision: 3, nullable: true })
  plannedAt: Date | null;

  @TextColumn('trigger')
  trigger: RunTrigger;

  @TextColumn('status')
  status: RunStatus;

  @IntegerColumn('attempts_count', { default: 0 })
  attemptsCount: number;

  @TimestampColumn('claimed_at', { nullable: true })
  claimedAt: Date | null;

  @TimestampColumn('started_at', { nullable: true })
  startedAt: Date | null;

  @TimestampColumn('finished_at', { nullable: true })
  finishedAt: Date | null;

  @TimestampColumn('next_attempt_at', { nullable: true })
  nextAttemptAt: Date | null;

  @IntegerColumn('start_lag_ms', { nullable: true })
  startLagMs: number | null;

  @IntegerColumn('e2e_ms', { nullable: true })
  e2eMs: number | null;

  @BooleanColumn('sla_breached', { default: false })
  slaBreached: boolean;

  @TextColumn('last_error', { nullable: true })
  lastError: string | null;

  /**
   * Why a `deferred` run waits when no attempt failed: `destination_limit` (its
   * destination's `max_in_flight` or `per_minute` is reached) or `destination_held` (a
   * `Retry-After` holds the destination). Null otherwise; meaningful only while `deferred`.
   */
  @TextColumn('deferred_reason', { nullable: true })
  deferredReason: DeferredReason | null;

  /** The destination a run waits for, with `deferred_reason`. */
  @TextColumn('deferred_destination', { nullable: true })
  deferredDestination: string | null;

  @TextColumn('skip_reason', { nullable: true })
  skipReason: SkipReason | null;

  /** The note of a skipped occurrence (`skip_reason: occurrence_skipped`), else null. */
  @TextColumn('skip_note', { nullable: true })
  skipNote: string | null;

  /** For `retry_manual` runs: the failed run this one retries; for a backfill's re-run, the run it re-runs. */
  @TextColumn('retry_of', { nullable: true })
  retryOf: string | null;

  /** The backfill that opened this run (`trigger: backfill`), else null. */
  @TextColumn('backfill_id', { nullable: true })
  backfillId: string | null;

  /** A second row older code recorded for the same occurrence: the id of the run kept for it. */
  @TextColumn('duplicate_of', { nullable: true })
  duplicateOf: string | null;

  /** The workflow a `temporal_workflow` sink started (the latest attempt's, on the run). */
  @JsonColumn('started_workflow', { nullable: true })
  startedWorkflow: StartedWorkflowColumn | null;

  /** Per-run overrides of the job's sink (a trigger's, retry's or backfill's), applied at each attempt. */
  @JsonColumn('overrides', { nullable: true })
  overrides: JsonObject | null;
}

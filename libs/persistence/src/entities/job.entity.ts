import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { TimestampedEntity } from './timestamps';
import type { ScheduleKind } from '@svc/schedule';
import type { MisfirePolicy, OverlapPolicy } from '@svc/workflow-contract/definitions';
import type { StoredRetryPolicy } from '@svc/workflow-contract/run-rules';
import { JsonObject } from './json';
import { WorkspaceEntity } from './workspace.entity';

export const JOB_STATES = ['active', 'paused', 'disabled', 'completed'] as const;
export type JobState = (typeof JOB_STATES)[number];

/** One webhook signing secret; after a rotation the old one carries `expires_at` (+24 h). */
/** An upcoming occurrence a user skipped (issue 45), keyed in `occurrence_skips` by its ISO instant. */
export interface StoredOccurrenceSkip {
  note: string;
  created_at: string;
}

/** `jobs.occurrence_skips`: ISO instant (`toISOString()`) → the skip. */
export type StoredOccurrenceSkips = Record<string, StoredOccurrenceSkip>;

export interface StoredSigningSecret {
  secret: string;
  /** RFC 3339, or null for the current secret. */
  expires_at: string | null;
}

/**
 * The values the table accepts, for its CHECK constraints: every member of the type, which the
 * compiler holds to (`satisfies`) while the import stays type-only (no runtime edge to the
 * workflow contract from here, which migration tooling loads without path aliases).
 */
const MISFIRE_VALUES = { fire_once: true, skip: true, fire_all: true } satisfies Record<MisfirePolicy, true>;
const OVERLAP_VALUES = { allow: true, skip: true, queue: true, cancel_previous: true } satisfies Record<
  OverlapPolicy,
  true
>;

/** `'a', 'b'` for a CHECK constraint's `IN (…)`. */
function sqlList(values: object): string {
  return Object.keys(values)
    .map((value) => `'${value}'`)
    .join(', ');
}

/**
 * A job's configuration and its mirrored state. `revision` increases on every config or state
 * change and orders the signals sent to the job workflow; `version` increases on every update
 * the spec counts (PATCH). Runs carry no foreign key to jobs: deleting a job keeps its history.
 *
 * Indexes created by the migration only (TypeORM cannot express GIN / opclasses), hence
 * `synchronize: false`: `idx_jobs_tags` (GIN on tags), `idx_jobs_name_trgm` and
 * `idx_jobs_description_trgm` (GIN gin_trgm_ops, serve `q` via ILIKE).
 */
@Entity({ name: 'jobs' })
@Check('ck_jobs_misfire_policy', `"misfire_policy" IN (${sqlList(MISFIRE_VALUES)})`)
@Check('ck_jobs_overlap_policy', `"overlap_policy" IN (${sqlList(OVERLAP_VALUES)})`)
@Index('idx_jobs_workspace_id', ['workspaceId', 'id'])
@Index('idx_jobs_workspace_state', ['workspaceId', 'state', 'id'])
@Index('idx_jobs_tags', { synchronize: false })
@Index('idx_jobs_name_trgm', { synchronize: false })
@Index('idx_jobs_description_trgm', { synchronize: false })
@Index('uq_jobs_workspace_key', { synchronize: false })
@Index('idx_jobs_workspace_managed_by', { synchronize: false })
@Index('idx_jobs_exclude_calendars', { synchronize: false })
export class JobEntity extends TimestampedEntity {
  /** `job_<ulid>`; also the id of the job's workflow. */
  @PrimaryColumn({ name: 'id', type: 'text', primaryKeyConstraintName: 'pk_jobs' })
  id: string;

  @Column({ name: 'workspace_id', type: 'text' })
  workspaceId: string;

  /**
   * The caller's stable name of the job (issue 42), unique per workspace (`uq_jobs_workspace_key`,
   * partial); null for jobs created without one. Never changes once set.
   */
  @Column({ name: 'key', type: 'text', nullable: true })
  key: string | null;

  /** Who declares the job (`git:infra/jobs.yaml`); set by `POST /jobs/apply` only, null otherwise. */
  @Column({ name: 'managed_by', type: 'text', nullable: true })
  managedBy: string | null;

  @Column({ name: 'name', type: 'text' })
  name: string;

  @Column({ name: 'description', type: 'text', default: '' })
  description: string;

  @Column({ name: 'tags', type: 'text', array: true, default: () => "'{}'" })
  tags: string[];

  @Column({ name: 'schedule_expr', type: 'text' })
  scheduleExpr: string;

  /** The compiled kind, never `auto` (the API stores what it detected). */
  @Column({ name: 'schedule_kind', type: 'text' })
  scheduleKind: ScheduleKind;

  @Column({ name: 'schedule_canonical', type: 'text' })
  scheduleCanonical: string;

  @Column({ name: 'schedule_description', type: 'text' })
  scheduleDescription: string;

  /** IANA zone name. */
  @Column({ name: 'schedule_timezone', type: 'text' })
  scheduleTimezone: string;

  @Column({ name: 'schedule_starts_at', type: 'timestamptz', nullable: true })
  scheduleStartsAt: Date | null;

  @Column({ name: 'schedule_ends_at', type: 'timestamptz', nullable: true })
  scheduleEndsAt: Date | null;

  @Column({ name: 'schedule_count', type: 'integer', nullable: true })
  scheduleCount: number | null;

  /** Reference instant for interval phase and relative expressions. */
  @Column({ name: 'schedule_anchor', type: 'timestamptz' })
  scheduleAnchor: Date;

  /** `webhook` or `command`. */
  @Column({ name: 'sink_kind', type: 'text' })
  sinkKind: string;

  @Column({ name: 'sink_config', type: 'jsonb' })
  sinkConfig: JsonObject;

  @Column({ name: 'retry', type: 'jsonb' })
  retry: StoredRetryPolicy;

  @Column({ name: 'timeout_ms', type: 'integer' })
  timeoutMs: number;

  /** null = use the server default (`scheduler.default_sla_threshold`). */
  @Column({ name: 'sla_threshold_ms', type: 'integer', nullable: true })
  slaThresholdMs: number | null;

  @Column({ name: 'misfire_policy', type: 'text' })
  misfirePolicy: MisfirePolicy;

  @Column({ name: 'overlap_policy', type: 'text' })
  overlapPolicy: OverlapPolicy;

  /** Spread window (issue 46): the job fires at a fixed offset inside it; null = none. */
  @Column({ name: 'start_window_ms', type: 'integer', nullable: true })
  startWindowMs: number | null;

  /** Runs in flight at most under overlap policy `allow` (issue 46); null = unbounded. */
  @Column({ name: 'max_concurrent_runs', type: 'integer', nullable: true })
  maxConcurrentRuns: number | null;

  /** null = use the server default. */
  @Column({ name: 'auto_disable_threshold', type: 'integer', nullable: true })
  autoDisableThreshold: number | null;

  @Column({ name: 'state', type: 'text' })
  state: JobState;

  @Column({ name: 'disabled_reason', type: 'text', nullable: true })
  disabledReason: string | null;

  /** Why a paused job is paused (a bulk pause's note, issue 46); cleared when it leaves `paused`. */
  @Column({ name: 'paused_note', type: 'text', nullable: true })
  pausedNote: string | null;

  /** When a paused job's maintenance window resumes it (a bulk pause's `resume_at`); cleared likewise. */
  @Column({ name: 'resume_at', type: 'timestamptz', nullable: true })
  resumeAt: Date | null;

  @Column({ name: 'consecutive_failures', type: 'integer', default: 0 })
  consecutiveFailures: number;

  @Column({ name: 'next_run_at', type: 'timestamptz', nullable: true })
  nextRunAt: Date | null;

  @Column({ name: 'last_run_at', type: 'timestamptz', nullable: true })
  lastRunAt: Date | null;

  @Column({ name: 'last_run_status', type: 'text', nullable: true })
  lastRunStatus: string | null;

  @Column({ name: 'version', type: 'integer', default: 1 })
  version: number;

  @Column({ name: 'revision', type: 'integer', default: 1 })
  revision: number;

  /** Calendars whose days the schedule excludes (issue 45): names of the workspace's `calendars`. */
  @Column({ name: 'exclude_calendars', type: 'text', array: true, default: () => "'{}'" })
  excludeCalendars: string[];

  /**
   * Upcoming occurrences skipped by a user (`POST /jobs/{id}/occurrences/{at}/skip`): the attempt's
   * claim closes such an occurrence's run `skipped` with the note, without delivering. Written only
   * by `JobsRepository.setOccurrenceSkip` (never by a PATCH); neither version nor revision changes.
   */
  @Column({ name: 'occurrence_skips', type: 'jsonb', default: () => "'{}'" })
  occurrenceSkips: StoredOccurrenceSkips;

  /** Never selected unless asked for (`addSelect('job.signingSecrets')`). */
  @Column({ name: 'signing_secrets', type: 'jsonb', default: () => "'[]'", select: false })
  signingSecrets: StoredSigningSecret[];

  @ManyToOne(() => WorkspaceEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id', foreignKeyConstraintName: 'fk_jobs_workspace' })
  workspace?: WorkspaceEntity;
}

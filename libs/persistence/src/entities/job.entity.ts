import { Check, Entity, Index } from 'typeorm';
import { IntegerColumn, JsonColumn, TextColumn, TimestampColumn } from './columns';
import { TimestampedEntity } from './timestamps';
import { WorkspaceRow } from './workspace-row';
import type { ScheduleKind } from '@svc/schedule';
import type { MisfirePolicy, OverlapPolicy } from '@svc/workflow-contract/definitions';
import type { StoredRetryPolicy } from '@svc/workflow-contract/run-rules';
import { JsonObject } from './json';

export const JOB_STATES = ['active', 'paused', 'disabled', 'completed'] as const;
export type JobState = (typeof JOB_STATES)[number];

/** One webhook signing secret; after a rotation the old one carries `expires_at` (+24 h). */
/** An upcoming occurrence a user skipped, keyed in `occurrence_skips` by its ISO instant. */
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
 * A job's configuration and its mirrored state; its id (`job_<ulid>`) is also its workflow's.
 * `revision` increases on every config or state change and orders the signals sent to the job
 * workflow; `version` increases on every update the spec counts (PATCH). Runs carry no foreign key
 * to jobs: deleting a job keeps its history.
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
export class JobEntity extends WorkspaceRow('jobs', TimestampedEntity) {
  /**
   * The caller's stable name of the job, unique per workspace (`uq_jobs_workspace_key`,
   * partial); null for jobs created without one. Never changes once set.
   */
  @TextColumn('key', { nullable: true })
  key: string | null;

  /** Who declares the job (`git:infra/jobs.yaml`); set by `POST /jobs/apply` only, null otherwise. */
  @TextColumn('managed_by', { nullable: true })
  managedBy: string | null;

  @TextColumn('name')
  name: string;

  @TextColumn('description', { default: '' })
  description: string;

  @TextColumn('tags', { array: true, default: () => "'{}'" })
  tags: string[];

  @TextColumn('schedule_expr')
  scheduleExpr: string;

  /** The compiled kind, never `auto` (the API stores what it detected). */
  @TextColumn('schedule_kind')
  scheduleKind: ScheduleKind;

  @TextColumn('schedule_canonical')
  scheduleCanonical: string;

  @TextColumn('schedule_description')
  scheduleDescription: string;

  /** IANA zone name. */
  @TextColumn('schedule_timezone')
  scheduleTimezone: string;

  @TimestampColumn('schedule_starts_at', { nullable: true })
  scheduleStartsAt: Date | null;

  @TimestampColumn('schedule_ends_at', { nullable: true })
  scheduleEndsAt: Date | null;

  @IntegerColumn('schedule_count', { nullable: true })
  scheduleCount: number | null;

  /** Reference instant for interval phase and relative expressions. */
  @TimestampColumn('schedule_anchor')
  scheduleAnchor: Date;

  /** `webhook` or `command`. */
  @TextColumn('sink_kind')
  sinkKind: string;

  @JsonColumn('sink_config')
  sinkConfig: JsonObject;

  @JsonColumn('retry')
  retry: StoredRetryPolicy;

  @IntegerColumn('timeout_ms')
  timeoutMs: number;

  /** null = use the server default (`scheduler.default_sla_threshold`). */
  @IntegerColumn('sla_threshold_ms', { nullable: true })
  slaThresholdMs: number | null;

  @TextColumn('misfire_policy')
  misfirePolicy: MisfirePolicy;

  @TextColumn('overlap_policy')
  overlapPolicy: OverlapPolicy;

  /** Spread window: the job fires at a fixed offset inside it; null = none. */
  @IntegerColumn('start_window_ms', { nullable: true })
  startWindowMs: number | null;

  /** Runs in flight at most under overlap policy `allow`; null = unbounded. */
  @IntegerColumn('max_concurrent_runs', { nullable: true })
  maxConcurrentRuns: number | null;

  /** null = use the server default. */
  @IntegerColumn('auto_disable_threshold', { nullable: true })
  autoDisableThreshold: number | null;

  @TextColumn('state')
  state: JobState;

  @TextColumn('disabled_reason', { nullable: true })
  disabledReason: string | null;

  /** Why a paused job is paused (a bulk pause's note); cleared when it leaves `paused`. */
  @TextColumn('paused_note', { nullable: true })
  pausedNote: string | null;

  /** When a paused job's maintenance window resumes it (a bulk pause's `resume_at`); cleared likewise. */
  @TimestampColumn('resume_at', { nullable: true })
  resumeAt: Date | null;

  @IntegerColumn('consecutive_failures', { default: 0 })
  consecutiveFailures: number;

  @TimestampColumn('next_run_at', { nullable: true })
  nextRunAt: Date | null;

  @TimestampColumn('last_run_at', { nullable: true })
  lastRunAt: Date | null;

  @TextColumn('last_run_status', { nullable: true })
  lastRunStatus: string | null;

  @IntegerColumn('version', { default: 1 })
  version: number;

  @IntegerColumn('revision', { default: 1 })
  revision: number;

  /** Calendars whose days the schedule excludes: names of the workspace's `calendars`. */
  @TextColumn('exclude_calendars', { array: true, default: () => "'{}'" })
  excludeCalendars: string[];

  /**
   * Upcoming occurrences skipped by a user (`POST /jobs/{id}/occurrences/{at}/skip`): the attempt's
   * claim closes such an occurrence's run `skipped` with the note, without delivering. Written only
   * by `JobsRepository.setOccurrenceSkip` (never by a PATCH); neither version nor revision changes.
   */
  @JsonColumn('occurrence_skips', { default: () => "'{}'" })
  occurrenceSkips: StoredOccurrenceSkips;

  /** Never selected unless asked for (`addSelect('job.signingSecrets')`). */
  @JsonColumn('signing_secrets', { default: () => "'[]'", select: false })
  signingSecrets: StoredSigningSecret[];
}

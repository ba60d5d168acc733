import { Entity, Index } from 'typeorm';
import { BelongsTo, BooleanColumn, IntegerColumn, JsonColumn, KeyColumn, TextColumn, TimestampColumn } from './columns';
import { ProgressEntity } from './timestamps';
import { WorkspaceRow } from './workspace-row';
import { JsonObject } from './json';

/** `sequential`: one run at a time, after the job's own runs (its overlap policy); `parallel`: up to `max_runs` at once. */
export const BACKFILL_MODES = ['sequential', 'parallel'] as const;
export type BackfillMode = (typeof BACKFILL_MODES)[number];

/** `running` until every occurrence was started or skipped and its runs ended; `completed`, or `cancelled`. */
export const BACKFILL_STATUSES = ['running', 'completed', 'cancelled'] as const;
export type BackfillStatus = (typeof BACKFILL_STATUSES)[number];

/**
 * An occurrence of a backfill: `pending` until its turn; `started` once it has a run (`run_id`: the
 * backfill's own, or the run the schedule already had in flight for it); `skipped_succeeded` when a
 * run of it had succeeded already; `canceled` when the backfill was cancelled before its turn.
 */
export const BACKFILL_ITEM_STATES = ['pending', 'started', 'skipped_succeeded', 'canceled'] as const;
export type BackfillItemState = (typeof BACKFILL_ITEM_STATES)[number];

/**
 * A backfill of a job's past occurrences, carried out by its `backfillWorkflow`
 * (workflow id = the backfill id). Its occurrences are computed and frozen when it is accepted
 * (`backfill_items`). `POST /backfills/{id}/cancel` sets `cancel_requested_at`.
 * Ids are `bf_<ulid>`.
 */
@Entity({ name: 'backfills' })
@Index('idx_backfills_workspace_job', ['workspaceId', 'jobId', 'id'])
export class BackfillEntity extends WorkspaceRow('backfills', ProgressEntity) {
  /** No foreign key: the backfill (and its runs) outlive a deleted job. */
  @TextColumn('job_id')
  jobId: string;

  @TextColumn('mode')
  mode: BackfillMode;

  /** Runs at once in `parallel` mode (1 in `sequential`). */
  @IntegerColumn('max_runs')
  maxRuns: number;

  @BooleanColumn('skip_succeeded')
  skipSucceeded: boolean;

  /** The range as asked: `[range_from, range_to)`. */
  @TimestampColumn('range_from', { precision: 3 })
  rangeFrom: Date;

  @TimestampColumn('range_to', { precision: 3 })
  rangeTo: Date;

  /** The first and last occurrence it covers; null when it covers none. */
  @TimestampColumn('first_at', { precision: 3, nullable: true })
  firstAt: Date | null;

  @TimestampColumn('last_at', { precision: 3, nullable: true })
  lastAt: Date | null;

  @IntegerColumn('occurrences')
  occurrences: number;

  /** Per-run overrides every run of the backfill carries (validated like a trigger's), or null. */
  @JsonColumn('overrides', { nullable: true })
  overrides: JsonObject | null;

  @TextColumn('status')
  status: BackfillStatus;

  @TextColumn('actor')
  actor: string;
}

/** One occurrence of a backfill, oldest first (`seq`). */
@Entity({ name: 'backfill_items' })
export class BackfillItemEntity {
  @KeyColumn('backfill_items', 'backfill_id')
  backfillId: string;

  @KeyColumn('backfill_items', 'seq', 'integer')
  seq: number;

  @TimestampColumn('scheduled_at', { precision: 3 })
  scheduledAt: Date;

  @TextColumn('state')
  state: BackfillItemState;

  /** The run that holds the occurrence once started; for `skipped_succeeded`, the run that succeeded. */
  @TextColumn('run_id', { nullable: true })
  runId: string | null;

  @BelongsTo('backfill_items', 'backfill', () => BackfillEntity)
  backfill?: BackfillEntity;
}

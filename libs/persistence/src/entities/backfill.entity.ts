import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { JsonObject } from './json';
import { ProgressEntity } from './timestamps';
import { WorkspaceEntity } from './workspace.entity';

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
 * A backfill of a job's past occurrences (issue 45), carried out by its `backfillWorkflow`
 * (workflow id = the backfill id). Its occurrences are computed and frozen when it is accepted
 * (`backfill_items`). `POST /backfills/{id}/cancel` sets `cancel_requested_at`.
 */
@Entity({ name: 'backfills' })
@Index('idx_backfills_workspace_job', ['workspaceId', 'jobId', 'id'])
export class BackfillEntity extends ProgressEntity {
  /** `bf_<ulid>`. */
  @PrimaryColumn({ name: 'id', type: 'text', primaryKeyConstraintName: 'pk_backfills' })
  id: string;

  @Column({ name: 'workspace_id', type: 'text' })
  workspaceId: string;

  /** No foreign key: the backfill (and its runs) outlive a deleted job. */
  @Column({ name: 'job_id', type: 'text' })
  jobId: string;

  @Column({ name: 'mode', type: 'text' })
  mode: BackfillMode;

  /** Runs at once in `parallel` mode (1 in `sequential`). */
  @Column({ name: 'max_runs', type: 'integer' })
  maxRuns: number;

  @Column({ name: 'skip_succeeded', type: 'boolean' })
  skipSucceeded: boolean;

  /** The range as asked: `[range_from, range_to)`. */
  @Column({ name: 'range_from', type: 'timestamptz', precision: 3 })
  rangeFrom: Date;

  @Column({ name: 'range_to', type: 'timestamptz', precision: 3 })
  rangeTo: Date;

  /** The first and last occurrence it covers; null when it covers none. */
  @Column({ name: 'first_at', type: 'timestamptz', precision: 3, nullable: true })
  firstAt: Date | null;

  @Column({ name: 'last_at', type: 'timestamptz', precision: 3, nullable: true })
  lastAt: Date | null;

  @Column({ name: 'occurrences', type: 'integer' })
  occurrences: number;

  /** Per-run overrides every run of the backfill carries (validated like a trigger's), or null. */
  @Column({ name: 'overrides', type: 'jsonb', nullable: true })
  overrides: JsonObject | null;

  @Column({ name: 'status', type: 'text' })
  status: BackfillStatus;

  @Column({ name: 'actor', type: 'text' })
  actor: string;

  @ManyToOne(() => WorkspaceEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id', foreignKeyConstraintName: 'fk_backfills_workspace' })
  workspace?: WorkspaceEntity;
}

/** One occurrence of a backfill, oldest first (`seq`). */
@Entity({ name: 'backfill_items' })
export class BackfillItemEntity {
  @PrimaryColumn({ name: 'backfill_id', type: 'text', primaryKeyConstraintName: 'pk_backfill_items' })
  backfillId: string;

  @PrimaryColumn({ name: 'seq', type: 'integer', primaryKeyConstraintName: 'pk_backfill_items' })
  seq: number;

  @Column({ name: 'scheduled_at', type: 'timestamptz', precision: 3 })
  scheduledAt: Date;

  @Column({ name: 'state', type: 'text' })
  state: BackfillItemState;

  /** The run that holds the occurrence once started; for `skipped_succeeded`, the run that succeeded. */
  @Column({ name: 'run_id', type: 'text', nullable: true })
  runId: string | null;

  @ManyToOne(() => BackfillEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'backfill_id', foreignKeyConstraintName: 'fk_backfill_items_backfill' })
  backfill?: BackfillEntity;
}

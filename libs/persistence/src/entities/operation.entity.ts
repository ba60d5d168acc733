import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { JsonObject } from './json';
import { ProgressEntity } from './timestamps';
import { WorkspaceEntity } from './workspace.entity';

/** What an operation does: a bulk action on jobs, or the recover of failed runs (issue 46). */
export const OPERATION_KINDS = ['jobs.bulk', 'runs.recover'] as const;
export type OperationKind = (typeof OPERATION_KINDS)[number];

/** The actions of `POST /jobs/bulk`, and `retry`, the one of `POST /runs/recover`. */
export const OPERATION_ACTIONS = ['pause', 'resume', 'trigger', 'delete', 'enable', 'retry'] as const;
export type OperationAction = (typeof OPERATION_ACTIONS)[number];

/**
 * `running` while items are pending; `waiting` once a pause with `resume_at` has paused its jobs,
 * until the window ends; then `succeeded` (every item handled, failed ones included) or `cancelled`.
 */
export const OPERATION_STATUSES = ['running', 'waiting', 'succeeded', 'cancelled'] as const;
export type OperationStatus = (typeof OPERATION_STATUSES)[number];

/** `pending` until its batch handled it; `done`, or `failed` with the error the action answered. */
export const OPERATION_ITEM_STATUSES = ['pending', 'done', 'failed'] as const;
export type OperationItemStatus = (typeof OPERATION_ITEM_STATUSES)[number];

/**
 * One bulk action or recover (issue 46), carried out by its `bulkOperationWorkflow` (workflow id =
 * the operation id). The items it matched are frozen when it is accepted (`operation_items`).
 * `POST /operations/{id}/cancel` sets `cancel_requested_at`: batches stop at the next item.
 */
@Entity({ name: 'operations' })
@Index('idx_operations_workspace_id', ['workspaceId', 'id'])
export class OperationEntity extends ProgressEntity {
  /** `op_<ulid>`. */
  @PrimaryColumn({ name: 'id', type: 'text', primaryKeyConstraintName: 'pk_operations' })
  id: string;

  @Column({ name: 'workspace_id', type: 'text' })
  workspaceId: string;

  @Column({ name: 'kind', type: 'text' })
  kind: OperationKind;

  @Column({ name: 'action', type: 'text' })
  action: OperationAction;

  @Column({ name: 'status', type: 'text' })
  status: OperationStatus;

  /** Who asked (audit actor); each job's or run's audit entry names them too. */
  @Column({ name: 'actor', type: 'text' })
  actor: string;

  /** Why, as the caller wrote it; copied into every audit entry the operation writes. */
  @Column({ name: 'note', type: 'text', nullable: true })
  note: string | null;

  /** A pause's maintenance window: its jobs are resumed at this instant. */
  @Column({ name: 'resume_at', type: 'timestamptz', nullable: true })
  resumeAt: Date | null;

  /** The filter as the request gave it (the body's `filter`, `all`, `max`). */
  @Column({ name: 'filter', type: 'jsonb' })
  filter: JsonObject;

  @Column({ name: 'matched', type: 'integer' })
  matched: number;

  @ManyToOne(() => WorkspaceEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id', foreignKeyConstraintName: 'fk_operations_workspace' })
  workspace?: WorkspaceEntity;
}

/** One job or run an operation matched, in the order it is handled (`seq`). */
@Entity({ name: 'operation_items' })
export class OperationItemEntity {
  @PrimaryColumn({ name: 'operation_id', type: 'text', primaryKeyConstraintName: 'pk_operation_items' })
  operationId: string;

  @PrimaryColumn({ name: 'seq', type: 'integer', primaryKeyConstraintName: 'pk_operation_items' })
  seq: number;

  /** The job id (bulk actions) or the failed run's id (recover). */
  @Column({ name: 'target_id', type: 'text' })
  targetId: string;

  @Column({ name: 'status', type: 'text' })
  status: OperationItemStatus;

  /** Why the action refused this item (`The job is paused; only an active job can be paused`). */
  @Column({ name: 'error', type: 'text', nullable: true })
  error: string | null;

  /** The run the action opened: a trigger's run, a recover's retry run. */
  @Column({ name: 'result_id', type: 'text', nullable: true })
  resultId: string | null;

  /** When the end of the maintenance window resumed this job. */
  @Column({ name: 'resumed_at', type: 'timestamptz', nullable: true })
  resumedAt: Date | null;

  @ManyToOne(() => OperationEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'operation_id', foreignKeyConstraintName: 'fk_operation_items_operation' })
  operation?: OperationEntity;
}

import { Entity, Index } from 'typeorm';
import { BelongsTo, IntegerColumn, JsonColumn, KeyColumn, TextColumn, TimestampColumn } from './columns';
import { ProgressEntity } from './timestamps';
import { WorkspaceRow } from './workspace-row';
import { JsonObject } from './json';

/** What an operation does: a bulk action on jobs, or the recover of failed runs. */
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
 * One bulk action or recover, carried out by its `bulkOperationWorkflow` (workflow id =
 * the operation id). The items it matched are frozen when it is accepted (`operation_items`).
 * `POST /operations/{id}/cancel` sets `cancel_requested_at`: batches stop at the next item.
 * Ids are `op_<ulid>`.
 */
@Entity({ name: 'operations' })
@Index('idx_operations_workspace_id', ['workspaceId', 'id'])
export class OperationEntity extends WorkspaceRow('operations', ProgressEntity) {
  @TextColumn('kind')
  kind: OperationKind;

  @TextColumn('action')
  action: OperationAction;

  @TextColumn('status')
  status: OperationStatus;

  /** Who asked (audit actor); each job's or run's audit entry names them too. */
  @TextColumn('actor')
  actor: string;

  /** Why, as the caller wrote it; copied into every audit entry the operation writes. */
  @TextColumn('note', { nullable: true })
  note: string | null;

  /** A pause's maintenance window: its jobs are resumed at this instant. */
  @TimestampColumn('resume_at', { nullable: true })
  resumeAt: Date | null;

  /** The filter as the request gave it (the body's `filter`, `all`, `max`). */
  @JsonColumn('filter')
  filter: JsonObject;

  @IntegerColumn('matched')
  matched: number;
}

/** One job or run an operation matched, in the order it is handled (`seq`). */
@Entity({ name: 'operation_items' })
export class OperationItemEntity {
  @KeyColumn('operation_items', 'operation_id')
  operationId: string;

  @KeyColumn('operation_items', 'seq', 'integer')
  seq: number;

  /** The job id (bulk actions) or the failed run's id (recover). */
  @TextColumn('target_id')
  targetId: string;

  @TextColumn('status')
  status: OperationItemStatus;

  /** Why the action refused this item (`The job is paused; only an active job can be paused`). */
  @TextColumn('error', { nullable: true })
  error: string | null;

  /** The run the action opened: a trigger's run, a recover's retry run. */
  @TextColumn('result_id', { nullable: true })
  resultId: string | null;

  /** When the end of the maintenance window resumed this job. */
  @TimestampColumn('resumed_at', { nullable: true })
  resumedAt: Date | null;

  @BelongsTo('operation_items', 'operation', () => OperationEntity)
  operation?: OperationEntity;
}

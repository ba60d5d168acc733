import { type DataSource, type EntityManager, MoreThan } from 'typeorm';
import {
  OperationEntity,
  OperationItemEntity,
  type OperationItemStatus,
  type OperationStatus,
} from '../entities/operation.entity';
import { returnedRows } from './query-result';
import { WorkspaceRowsRepository } from './workspace-rows';

/** How far an operation has come: its items by status, and the jobs its window resumed. */
export interface OperationProgress {
  pending: number;
  done: number;
  failed: number;
  resumed: number;
}

/** Named queries over bulk operations and their items; workspace first where a caller names one. */
export class OperationsRepository extends WorkspaceRowsRepository<OperationEntity, OperationEntity> {
  constructor(dataSource: DataSource) {
    super(dataSource, OperationEntity, 'operation');
  }

  /** The operation and its matched items (in this order), in one transaction. */
  async create(operation: OperationEntity, targetIds: string[]): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await manager.insert(OperationEntity, operation);
      await manager.query(
        `INSERT INTO operation_items (operation_id, seq, target_id, status)
         SELECT $1, t.ord, t.id, 'pending' FROM unnest($2::text[]) WITH ORDINALITY AS t(id, ord)`,
        [operation.id, targetIds],
      );
    });
  }

  /** An operation whose workflow could not be started: as if it had never been asked for. */
  async delete(id: string): Promise<void> {
    await this.dataSource.manager.delete(OperationEntity, { id });
  }

  getById(workspaceId: string, id: string): Promise<OperationEntity | null> {
    return this.findById(workspaceId, id);
  }

  async progress(id: string): Promise<OperationProgress> {
    const rows: Array<Record<keyof OperationProgress, string>> = await this.dataSource.query(
      `SELECT count(*) FILTER (WHERE status = 'pending') AS pending,
              count(*) FILTER (WHERE status = 'done') AS done,
              count(*) FILTER (WHERE status = 'failed') AS failed,
              count(*) FILTER (WHERE resumed_at IS NOT NULL) AS resumed
         FROM operation_items WHERE operation_id = $1`,
      [id],
    );
    const row = rows[0];
    return {
      pending: Number(row?.pending ?? 0),
      done: Number(row?.done ?? 0),
      failed: Number(row?.failed ?? 0),
      resumed: Number(row?.resumed ?? 0),
    };
  }

  /** The first `limit` items the action refused, in order. */
  async failedItems(id: string, limit: number): Promise<OperationItemEntity[]> {
    return this.dataSource.manager.find(OperationItemEntity, {
      where: { operationId: id, status: 'failed' },
      order: { seq: 'ASC' },
      take: limit,
    });
  }

  /** The next `limit` items still to handle, in order. */
  async nextPending(id: string, limit: number): Promise<OperationItemEntity[]> {
    return this.dataSource.manager.find(OperationItemEntity, {
      where: { operationId: id, status: 'pending' },
      order: { seq: 'ASC' },
      take: limit,
    });
  }

  /** Records what the action did with one item (once: an item already handled stays as it is). */
  async finishItem(
    id: string,
    seq: number,
    outcome: { status: Exclude<OperationItemStatus, 'pending'>; error?: string | null; resultId?: string | null },
  ): Promise<void> {
    await this.dataSource.query(
      `UPDATE operation_items SET status = $3, error = $4, result_id = $5
        WHERE operation_id = $1 AND seq = $2 AND status = 'pending'`,
      [id, seq, outcome.status, outcome.error ?? null, outcome.resultId ?? null],
    );
  }

  /** The next `limit` items the action handled successfully after `afterSeq`, in order (a window's jobs). */
  async doneItemsAfter(id: string, afterSeq: number, limit: number): Promise<OperationItemEntity[]> {
    return this.dataSource.manager.find(OperationItemEntity, {
      where: { operationId: id, status: 'done', seq: MoreThan(afterSeq) },
      order: { seq: 'ASC' },
      take: limit,
    });
  }

  async markResumed(id: string, seq: number, at: Date): Promise<void> {
    await this.dataSource.query(`UPDATE operation_items SET resumed_at = $3 WHERE operation_id = $1 AND seq = $2`, [
      id,
      seq,
      at,
    ]);
  }

  /**
   * Moves a running or waiting operation to `status` (`finished_at` set for a terminal one); an
   * operation already ended stays as it is.
   */
  async setStatus(id: string, status: OperationStatus, at: Date, manager?: EntityManager): Promise<void> {
    const terminal = status === 'succeeded' || status === 'cancelled';
    await (manager ?? this.dataSource.manager).query(
      `UPDATE operations SET status = $2, updated_at = now(), finished_at = CASE WHEN $3 THEN $4::timestamptz END
        WHERE id = $1 AND status IN ('running', 'waiting')`,
      [id, status, terminal, at],
    );
  }

  /** Records a cancel request on an operation still running or waiting; the row as it now is, or null. */
  async requestCancel(workspaceId: string, id: string, at: Date): Promise<OperationEntity | null> {
    const result: unknown = await this.dataSource.query(
      `UPDATE operations SET cancel_requested_at = COALESCE(cancel_requested_at, $3), updated_at = now()
        WHERE workspace_id = $1 AND id = $2 AND status IN ('running', 'waiting') RETURNING id`,
      [workspaceId, id, at],
    );
    return returnedRows(result).length > 0 ? this.getById(workspaceId, id) : null;
  }
}

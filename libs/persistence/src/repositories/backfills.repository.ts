import type { DataSource } from 'typeorm';
import {
  BackfillEntity,
  BackfillItemEntity,
  type BackfillItemState,
  type BackfillStatus,
} from '../entities/backfill.entity';
import type { RunStatus, RunTrigger } from '../entities/run.entity';
import { returnedRows } from './query-result';
import { WorkspaceRowsRepository } from './workspace-rows';

/**
 * How far a backfill has come (`GET /backfills/{id}`): its occurrences by state, and those it
 * started by the status of their run.
 */
export interface BackfillProgress {
  total: number;
  pending: number;
  started: number;
  /** Started, and their run has not ended yet. */
  running: number;
  succeeded: number;
  /** Started, and their run ended otherwise: failed, cancelled or skipped (or is gone). */
  failed: number;
  skippedSucceeded: number;
  canceled: number;
}

/** A run that already holds an occurrence, as a backfill looks at it before opening its own. */
export interface OccurrenceRun {
  id: string;
  trigger: RunTrigger;
  status: RunStatus;
  retryOf: string | null;
  backfillId: string | null;
}

/** Named queries over backfills and their occurrences; workspace first where a caller names one. */
export class BackfillsRepository extends WorkspaceRowsRepository<BackfillEntity, BackfillEntity> {
  constructor(dataSource: DataSource) {
    super(dataSource, BackfillEntity, 'backfill');
  }

  /** The backfill and its occurrences (oldest first), in one transaction. */
  async create(backfill: BackfillEntity, instants: Date[]): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await manager.insert(BackfillEntity, backfill);
      await manager.query(
        `INSERT INTO backfill_items (backfill_id, seq, scheduled_at, state)
         SELECT $1, t.ord, t.at, 'pending' FROM unnest($2::timestamptz[]) WITH ORDINALITY AS t(at, ord)`,
        [backfill.id, instants.map((at) => at.toISOString())],
      );
    });
  }

  /** A backfill whose workflow could not be started: as if it had never been asked for. */
  async delete(id: string): Promise<void> {
    await this.dataSource.manager.delete(BackfillEntity, { id });
  }

  getById(workspaceId: string, id: string): Promise<BackfillEntity | null> {
    return this.findById(workspaceId, id);
  }

  async progress(id: string): Promise<BackfillProgress> {
    const rows: Array<Record<string, string>> = await this.dataSource.query(
      `SELECT count(*) AS total,
              count(*) FILTER (WHERE i.state = 'pending') AS pending,
              count(*) FILTER (WHERE i.state = 'started') AS started,
              count(*) FILTER (WHERE i.state = 'started' AND r.status IN ('running', 'deferred')) AS running,
              count(*) FILTER (WHERE i.state = 'started' AND r.status = 'succeeded') AS succeeded,
              -- A run that is gone (withdrawn before its attempt, or aged out) delivered nothing.
              count(*) FILTER (WHERE i.state = 'started' AND (r.id IS NULL OR r.status IN ('failed', 'cancelled', 'skipped')))
                AS failed,
              count(*) FILTER (WHERE i.state = 'skipped_succeeded') AS skipped_succeeded,
              count(*) FILTER (WHERE i.state = 'canceled') AS canceled
         FROM backfill_items i LEFT JOIN runs r ON r.id = i.run_id
        WHERE i.backfill_id = $1`,
      [id],
    );
    const row = rows[0] ?? {};
    const n = (key: string) => Number(row[key] ?? 0);
    return {
      total: n('total'),
      pending: n('pending'),
      started: n('started'),
      running: n('running'),
      succeeded: n('succeeded'),
      failed: n('failed'),
      skippedSucceeded: n('skipped_succeeded'),
      canceled: n('canceled'),
    };
  }

  /** The next `limit` occurrences still to start, oldest first. */
  async nextPending(id: string, limit: number): Promise<BackfillItemEntity[]> {
    return this.dataSource.manager.find(BackfillItemEntity, {
      where: { backfillId: id, state: 'pending' },
      order: { seq: 'ASC' },
      take: limit,
    });
  }

  /** Records what became of one occurrence (once: an occurrence no longer pending stays as it is). */
  async settleItem(
    id: string,
    seq: number,
    state: Exclude<BackfillItemState, 'pending'>,
    runId: string | null,
  ): Promise<void> {
    await this.dataSource.query(
      `UPDATE backfill_items SET state = $3, run_id = $4 WHERE backfill_id = $1 AND seq = $2 AND state = 'pending'`,
      [id, seq, state, runId],
    );
  }

  /** Every occurrence not started yet is canceled; how many. */
  async cancelPending(id: string): Promise<number> {
    const result: unknown = await this.dataSource.query(
      `UPDATE backfill_items SET state = 'canceled' WHERE backfill_id = $1 AND state = 'pending' RETURNING seq`,
      [id],
    );
    return returnedRows(result).length;
  }

  /**
   * The runs that hold the job's occurrence at `scheduledAt` (not the history rows older code
   * recorded twice), newest first.
   */
  async occurrenceRuns(jobId: string, scheduledAt: Date): Promise<OccurrenceRun[]> {
    const rows: Array<{
      id: string;
      trigger: RunTrigger;
      status: RunStatus;
      retry_of: string | null;
      backfill_id: string | null;
    }> = await this.dataSource.query(
      `SELECT id, trigger, status, retry_of, backfill_id FROM runs
          WHERE job_id = $1 AND scheduled_at = $2 AND duplicate_of IS NULL
          ORDER BY created_at DESC, id DESC`,
      [jobId, scheduledAt],
    );
    return rows.map((row) => ({
      id: row.id,
      trigger: row.trigger,
      status: row.status,
      retryOf: row.retry_of,
      backfillId: row.backfill_id,
    }));
  }

  /** Whether the job has a run in flight that this backfill did not start (sequential mode waits for it). */
  async jobHasOtherRunInFlight(workspaceId: string, jobId: string, backfillId: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `SELECT 1 FROM runs
        WHERE workspace_id = $1 AND job_id = $2 AND status IN ('running', 'deferred')
          AND id NOT IN (SELECT run_id FROM backfill_items WHERE backfill_id = $3 AND run_id IS NOT NULL)
        LIMIT 1`,
      [workspaceId, jobId, backfillId],
    );
    return rows.length > 0;
  }

  /**
   * Moves a running backfill to `status` (`finished_at` set); a backfill already ended stays as it
   * is. A backfill ending with a cancel recorded ends `cancelled`.
   */
  async finish(id: string, status: Exclude<BackfillStatus, 'running'>, at: Date): Promise<void> {
    await this.dataSource.query(
      `UPDATE backfills
          SET status = CASE WHEN cancel_requested_at IS NOT NULL THEN 'cancelled' ELSE $2 END,
              updated_at = now(), finished_at = $3
        WHERE id = $1 AND status = 'running'`,
      [id, status, at],
    );
  }

  /** Records a cancel request on a running backfill; the row as it now is, or null once it has ended. */
  async requestCancel(workspaceId: string, id: string, at: Date): Promise<BackfillEntity | null> {
    const result: unknown = await this.dataSource.query(
      `UPDATE backfills SET cancel_requested_at = COALESCE(cancel_requested_at, $3), updated_at = now()
        WHERE workspace_id = $1 AND id = $2 AND status = 'running' RETURNING id`,
      [workspaceId, id, at],
    );
    return returnedRows(result).length > 0 ? this.getById(workspaceId, id) : null;
  }
}

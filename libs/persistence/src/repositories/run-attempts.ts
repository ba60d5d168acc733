/** Starting attempts: the attempt row, older attempts a crash left open, and the run back to `running`. */
import type { DataSource } from 'typeorm';
import type { RunEntity } from '../entities/run.entity';

/**
 * Records that attempt `n` starts: the attempt row (once), older attempts left open by a crash
 * closed as `retryable`/`interrupted`, and the run moved to `running`.
 */
export async function startAttempt(
  dataSource: DataSource,
  run: RunEntity,
  n: number,
  startedAt: Date,
  requestSummary: string,
): Promise<void> {
  await dataSource.transaction(async (manager) => {
    await manager.query(
      `UPDATE attempts SET finished_at = $3, outcome = 'retryable', error = 'interrupted',
              duration_ms = GREATEST(0, (EXTRACT(EPOCH FROM ($3 - started_at)) * 1000)::int)
        WHERE run_id = $1 AND n < $2 AND finished_at IS NULL`,
      [run.id, n, startedAt],
    );
    await manager.query(
      `INSERT INTO attempts (run_id, n, workspace_id, started_at, request_summary)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT (run_id, n) DO NOTHING`,
      [run.id, n, run.workspaceId, startedAt, requestSummary],
    );
    await manager.query(
      `UPDATE runs SET status = 'running',
              started_at = COALESCE(started_at, $2),
              start_lag_ms = COALESCE(start_lag_ms, GREATEST(0, (EXTRACT(EPOCH FROM ($2 - COALESCE(planned_at, scheduled_at))) * 1000)::int)),
              attempts_count = GREATEST(attempts_count, $3),
              next_attempt_at = NULL, deferred_reason = NULL, deferred_destination = NULL, updated_at = now()
        WHERE id = $1 AND status IN ('running', 'deferred')`,
      [run.id, startedAt, n + 1],
    );
  });
}

/**
 * `startAttempt` for many runs in one transaction of three statements (a burst's attempts
 * released at the same instant), with the same effect on each run as its own call.
 */
export async function startAttempts(
  dataSource: DataSource,
  starts: Array<{ run: RunEntity; n: number; startedAt: Date; requestSummary: string }>,
): Promise<void> {
  if (starts.length === 0) {
    return;
  }
  const records = JSON.stringify(
    starts.map((s) => ({
      run_id: s.run.id,
      n: s.n,
      workspace_id: s.run.workspaceId,
      started_at: s.startedAt.toISOString(),
      request_summary: s.requestSummary,
    })),
  );
  const recordset = `jsonb_to_recordset($1::jsonb) AS s(run_id text, n int, workspace_id text, started_at timestamptz,
              request_summary text)`;
  await dataSource.transaction(async (manager) => {
    await manager.query(
      `UPDATE attempts a SET finished_at = s.started_at, outcome = 'retryable', error = 'interrupted',
              duration_ms = GREATEST(0, (EXTRACT(EPOCH FROM (s.started_at - a.started_at)) * 1000)::int)
         FROM ${recordset}
        WHERE a.run_id = s.run_id AND a.n < s.n AND a.finished_at IS NULL`,
      [records],
    );
    await manager.query(
      `INSERT INTO attempts (run_id, n, workspace_id, started_at, request_summary)
       SELECT s.run_id, s.n, s.workspace_id, s.started_at, s.request_summary FROM ${recordset}
       ON CONFLICT (run_id, n) DO NOTHING`,
      [records],
    );
    await manager.query(
      `UPDATE runs SET status = 'running',
              started_at = COALESCE(runs.started_at, s.started_at),
              start_lag_ms = COALESCE(runs.start_lag_ms,
                GREATEST(0, (EXTRACT(EPOCH FROM (s.started_at - COALESCE(runs.planned_at, runs.scheduled_at))) * 1000)::int)),
              attempts_count = GREATEST(runs.attempts_count, s.n + 1),
              next_attempt_at = NULL, deferred_reason = NULL, deferred_destination = NULL, updated_at = now()
         FROM ${recordset}
        WHERE runs.id = s.run_id AND runs.status IN ('running', 'deferred')`,
      [records],
    );
  });
}

/** Retention of runs and response bodies; batched and `SKIP LOCKED` so purges never wait on the live path. */
import type { EntityManager } from 'typeorm';
import { affectedCount, returnedRows } from './query-result';

/** Which workspaces a run purge covers: all, those on `plans`, or those on any plan but `exceptPlans`. */
export interface RunPurgeScope {
  plans?: string[];
  exceptPlans?: string[];
}

/**
 * Response-body retention (decisions.md → Response bodies): clears `response_body` of at most
 * `limit` attempts of every workspace that finished before `cutoff`, oldest first, and returns
 * how many. Served by the partial index `idx_attempts_body_finished_at`; rows locked by another
 * purge are skipped, so several processes may run it at once.
 */
export async function clearResponseBodiesFinishedBefore(
  manager: EntityManager,
  cutoff: Date,
  limit: number,
): Promise<number> {
  const rows: unknown = await manager.query(
    `UPDATE attempts SET response_body = NULL
      WHERE (run_id, n) IN (
        SELECT run_id, n FROM attempts
         WHERE response_body IS NOT NULL AND finished_at < $1
         ORDER BY finished_at LIMIT $2 FOR UPDATE SKIP LOCKED)
      RETURNING run_id`,
    [cutoff, limit],
  );
  return returnedRows(rows).length;
}

/**
 * Run retention (decisions.md → Response bodies; config `runs.retention`): deletes at most
 * `limit` runs of every workspace (or only of workspaces on `scope.plans`, or on any plan but
 * `scope.exceptPlans`) that are terminal and finished before `cutoff`, oldest first, and returns
 * how many. Their attempts go with them (`fk_attempts_run` is ON DELETE CASCADE); open runs
 * (`running`, `deferred`) are never touched. Served by the partial index
 * `idx_runs_finished_terminal`; rows locked by another purge (or a live write) are skipped, so
 * several processes may run it at once and it never waits on the live path.
 */
export async function deleteFinishedBefore(
  manager: EntityManager,
  cutoff: Date,
  limit: number,
  scope: RunPurgeScope,
): Promise<number> {
  const params: unknown[] = [cutoff, limit];
  let planFilter = '';
  if (scope.plans) {
    params.push(scope.plans);
    planFilter = 'AND workspace_id IN (SELECT id FROM workspaces WHERE plan = ANY($3::text[]))';
  } else if (scope.exceptPlans && scope.exceptPlans.length > 0) {
    params.push(scope.exceptPlans);
    planFilter = 'AND workspace_id NOT IN (SELECT id FROM workspaces WHERE plan = ANY($3::text[]))';
  }
  const result: unknown = await manager.query(
    `DELETE FROM runs WHERE id IN (
       SELECT id FROM runs
        WHERE status IN ('succeeded', 'failed', 'skipped', 'cancelled') AND finished_at < $1 ${planFilter}
        ORDER BY finished_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
    params,
  );
  return affectedCount(result);
}

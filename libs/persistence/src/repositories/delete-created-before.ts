import { purgeInBatches } from '@svc/common/batched-purge';
import type { EntityManager } from 'typeorm';
import { affectedCount } from './query-result';

/**
 * Retention of a table with `id` and an indexed `created_at` (`audit_log`, `alert_events`):
 * deletes every row created before `cutoff`, oldest first, `batchSize` rows per statement, and
 * returns how many. Rows another purge holds are skipped, so several processes may run it at once
 * (a row is deleted once; the others find nothing).
 */
export async function deleteCreatedBefore(
  manager: EntityManager,
  table: 'audit_log' | 'alert_events',
  cutoff: Date,
  batchSize: number,
): Promise<number> {
  const { count } = await purgeInBatches(
    async (limit) =>
      affectedCount(
        await manager.query(
          `DELETE FROM ${table} WHERE id IN (
             SELECT id FROM ${table} WHERE created_at < $1 ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
          [cutoff, limit],
        ),
      ),
    { batch: batchSize },
  );
  return count;
}

import type { DataSource } from 'typeorm';
import { returnedRows } from './query-result';

/**
 * The burst estimate: per instant, how many job workflows planned an occurrence
 * there. One upsert per planned occurrence; read in the same statement.
 */
export class OccurrenceBurstsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Counts one more job at `next` (unless `register` is false: the job counted it already) and
   * returns the planned count at `next` and at `previous` (the instant the job fires now; its
   * count is complete by then, and periodic schedules meet again at the next instant).
   */
  async plan(next: Date, previous: Date | null, register: boolean): Promise<{ next: number; previous: number }> {
    const rows: Array<{ next: number | null; previous: number | null }> = await this.dataSource.query(
      `WITH up AS (
         INSERT INTO occurrence_bursts (at, planned) SELECT $1, 1 WHERE $3
         ON CONFLICT (at) DO UPDATE SET planned = occurrence_bursts.planned + 1
         RETURNING planned)
       SELECT COALESCE((SELECT planned FROM up), (SELECT planned FROM occurrence_bursts WHERE at = $1)) AS next,
              (SELECT planned FROM occurrence_bursts WHERE at = $2) AS previous`,
      [next, previous, register],
    );
    return { next: rows[0]?.next ?? 0, previous: rows[0]?.previous ?? 0 };
  }

  /** Forgets instants before `cutoff`; returns how many. */
  async pruneBefore(cutoff: Date): Promise<number> {
    const result: unknown = await this.dataSource.query(`DELETE FROM occurrence_bursts WHERE at < $1 RETURNING 1`, [
      cutoff,
    ]);
    return returnedRows(result).length;
  }
}

import { DataSource } from 'typeorm';
import type { JobState } from '../entities/job.entity';

export interface RunWindowStats {
  total: number;
  succeeded: number;
  failed: number;
  sla_breached: number;
  /** Start lag percentiles over the runs that started; null when none did. */
  start_lag_ms: { p50: number | null; p95: number | null; p99: number | null };
}

/** Runs of one job in one bucket of `runBuckets`, counted by outcome. */
export interface RunBucketRow {
  job_id: string;
  /** 0 for the bucket starting at `from`, 1 for the next, … */
  bucket: number;
  succeeded: number;
  failed: number;
  skipped: number;
  /** Any other status: running, deferred, cancelled. */
  other: number;
}

export interface FailingJobRow {
  id: string;
  name: string;
  consecutive_failures: number;
}

/** Aggregates for `GET /api/v1/stats/overview` (spec → Stats overview), computed in SQL. */
export class StatsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** How many jobs of the workspace are in each state (states without jobs are absent). */
  async jobCountsByState(workspaceId: string): Promise<Partial<Record<JobState, number>>> {
    const rows: Array<{ state: JobState; n: number }> = await this.dataSource.query(
      `SELECT state, count(*)::int AS n FROM jobs WHERE workspace_id = $1 GROUP BY state`,
      [workspaceId],
    );
    return Object.fromEntries(rows.map((row) => [row.state, row.n]));
  }

  /**
   * Runs of the workspace scheduled at or after `since`: counts by outcome and the start-lag
   * percentiles (`percentile_cont`, runs that never started are ignored). One pass over the
   * covering index `idx_runs_workspace_scheduled` (workspace_id, scheduled_at) INCLUDE (status,
   * sla_breached, start_lag_ms): an index-only scan whose cost follows the runs in the window, not
   * the table's size.
   */
  async runWindow(workspaceId: string, since: Date): Promise<RunWindowStats> {
    const rows: Array<{
      total: number;
      succeeded: number;
      failed: number;
      sla_breached: number;
      lag: Array<number | null> | null;
    }> = await this.dataSource.query(
      `SELECT count(*)::int AS total,
              count(*) FILTER (WHERE status = 'succeeded')::int AS succeeded,
              count(*) FILTER (WHERE status = 'failed')::int AS failed,
              count(*) FILTER (WHERE sla_breached)::int AS sla_breached,
              percentile_cont(ARRAY[0.5, 0.95, 0.99]::float8[]) WITHIN GROUP (ORDER BY start_lag_ms) AS lag
         FROM runs WHERE workspace_id = $1 AND scheduled_at >= $2`,
      [workspaceId, since],
    );
    const row = rows[0];
    const lag = (i: number) => {
      const value = row.lag?.[i];
      return value === null || value === undefined ? null : Math.round(Number(value));
    };
    return {
      total: row.total,
      succeeded: row.succeeded,
      failed: row.failed,
      sla_breached: row.sla_breached,
      start_lag_ms: { p50: lag(0), p95: lag(1), p99: lag(2) },
    };
  }

  /**
   * Runs of the workspace scheduled in [`from`, `to`), counted per job, per bucket of `bucketMs`
   * from `from` and per outcome: one GROUP BY over the range of `idx_runs_workspace_scheduled`
   * (workspace_id, scheduled_at) — or of `idx_runs_job_scheduled` (workspace_id, job_id,
   * scheduled_at) when `jobIds` narrows it. Only (job, bucket) pairs with runs are returned,
   * ordered by job id then bucket; the caller zero-fills the rest.
   */
  runBuckets(
    workspaceId: string,
    from: Date,
    to: Date,
    bucketMs: number,
    jobIds?: readonly string[],
  ): Promise<RunBucketRow[]> {
    const params: unknown[] = [workspaceId, from, to, bucketMs / 1000];
    let jobFilter = '';
    if (jobIds) {
      params.push(jobIds);
      jobFilter = 'AND job_id = ANY($5::text[])';
    }
    return this.dataSource.query(
      `SELECT job_id,
              floor(extract(epoch FROM scheduled_at - $2::timestamptz) / $4::float8)::int AS bucket,
              count(*) FILTER (WHERE status = 'succeeded')::int AS succeeded,
              count(*) FILTER (WHERE status = 'failed')::int AS failed,
              count(*) FILTER (WHERE status = 'skipped')::int AS skipped,
              count(*) FILTER (WHERE status NOT IN ('succeeded', 'failed', 'skipped'))::int AS other
         FROM runs
        WHERE workspace_id = $1 AND scheduled_at >= $2 AND scheduled_at < $3 ${jobFilter}
        GROUP BY 1, 2
        ORDER BY 1, 2`,
      params,
    );
  }

  /** Jobs whose latest runs failed (`consecutive_failures > 0`), longest streak first, ties by id. */
  failingJobs(workspaceId: string, limit: number): Promise<FailingJobRow[]> {
    return this.dataSource.query(
      `SELECT id, name, consecutive_failures FROM jobs
        WHERE workspace_id = $1 AND consecutive_failures > 0
        ORDER BY consecutive_failures DESC, id LIMIT $2`,
      [workspaceId, limit],
    );
  }
}

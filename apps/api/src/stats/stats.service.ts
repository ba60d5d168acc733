import { Injectable } from '@nestjs/common';
import { StatsRepository } from '@svc/persistence';
import type { AuthContext } from '../auth/auth.decorators';
import { HOURLY_WINDOW_HOURS, type HourlyWindow } from './dto/job-hourly-query.dto';
import type { StatsWindow } from './dto/stats-overview-query.dto';

const HOUR_MS = 3_600_000;
export const STATS_WINDOW_MS: Record<StatsWindow, number> = {
  '1h': HOUR_MS,
  '24h': 24 * HOUR_MS,
  '7d': 7 * 24 * HOUR_MS,
  '30d': 30 * 24 * HOUR_MS,
};

/** Jobs listed in `failing_jobs`, longest failure streak first. */
export const FAILING_JOBS_LIMIT = 10;

export interface StatsOverviewResponse {
  window: StatsWindow;
  jobs: { active: number; paused: number; disabled: number; completed: number };
  runs: { total: number; succeeded: number; failed: number; sla_breached: number };
  start_lag_ms: { p50: number | null; p95: number | null; p99: number | null };
  failing_jobs: Array<{ id: string; name: string; consecutive_failures: number }>;
}

export interface HourlyBucket {
  /** Start of the hour, RFC 3339 UTC. */
  hour: string;
  succeeded: number;
  failed: number;
  skipped: number;
  /** running, deferred, cancelled. */
  other: number;
}

export interface JobHourlyStatsResponse {
  data: Array<{ job_id: string; buckets: HourlyBucket[] }>;
}

/**
 * The workspace's statistics, counted in SQL by PostgreSQL over `StatsRepository`: the overview
 * and the runs per job and hour share the workspace scoping and the hour arithmetic.
 */
@Injectable()
export class StatsService {
  constructor(private readonly stats: StatsRepository) {}

  /**
   * The workspace at a glance (spec → Stats overview). `jobs` are the current counts by state;
   * `runs` and `start_lag_ms` cover runs scheduled within the window (percentiles over the runs
   * that started; null when none did); `failing_jobs` are the jobs whose latest runs failed
   * (`consecutive_failures > 0`), at most 10, longest streak first.
   */
  async overview(
    auth: AuthContext,
    window: StatsWindow = '24h',
    now: Date = new Date(),
  ): Promise<StatsOverviewResponse> {
    const since = new Date(now.getTime() - STATS_WINDOW_MS[window]);
    const [jobs, runs, failing] = await Promise.all([
      this.stats.jobCountsByState(auth.workspaceId),
      this.stats.runWindow(auth.workspaceId, since),
      this.stats.failingJobs(auth.workspaceId, FAILING_JOBS_LIMIT),
    ]);
    return {
      window,
      jobs: {
        active: jobs.active ?? 0,
        paused: jobs.paused ?? 0,
        disabled: jobs.disabled ?? 0,
        completed: jobs.completed ?? 0,
      },
      runs: { total: runs.total, succeeded: runs.succeeded, failed: runs.failed, sla_breached: runs.sla_breached },
      start_lag_ms: runs.start_lag_ms,
      failing_jobs: failing.map((job) => ({
        id: job.id,
        name: job.name,
        consecutive_failures: job.consecutive_failures,
      })),
    };
  }

  /**
   * Runs per job and hour for the dashboard's sparklines, in one GROUP BY over the workspace's runs
   * by `scheduled_at`. The window's buckets are whole UTC hours, oldest first, the last one the
   * current hour (24 for `24h`), zero-filled. With `jobIds` every named job gets its buckets (all
   * zero when it had no runs in this workspace); without, every job of the workspace with at least
   * one run in the window. Jobs are ordered as named, else by id.
   */
  async jobsHourly(
    auth: AuthContext,
    window: HourlyWindow = '24h',
    jobIds?: readonly string[],
    now: Date = new Date(),
  ): Promise<JobHourlyStatsResponse> {
    const hours = HOURLY_WINDOW_HOURS[window];
    const from = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS - (hours - 1) * HOUR_MS;
    const to = from + hours * HOUR_MS;
    const named = jobIds ? [...new Set(jobIds)] : undefined;
    const rows = await this.stats.runBuckets(auth.workspaceId, new Date(from), new Date(to), HOUR_MS, named);

    const series = new Map<string, HourlyBucket[]>();
    const bucketsOf = (jobId: string) => {
      let buckets = series.get(jobId);
      if (!buckets) {
        buckets = Array.from({ length: hours }, (_, i) => ({
          hour: new Date(from + i * HOUR_MS).toISOString(),
          succeeded: 0,
          failed: 0,
          skipped: 0,
          other: 0,
        }));
        series.set(jobId, buckets);
      }
      return buckets;
    };
    named?.forEach(bucketsOf);
    for (const row of rows) {
      const bucket = bucketsOf(row.job_id)[row.bucket];
      if (bucket) {
        bucket.succeeded = row.succeeded;
        bucket.failed = row.failed;
        bucket.skipped = row.skipped;
        bucket.other = row.other;
      }
    }
    return { data: [...series].map(([job_id, buckets]) => ({ job_id, buckets })) };
  }
}

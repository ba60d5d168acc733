import { Injectable } from '@nestjs/common';
import { StatsRepository } from '@svc/persistence';
import type { AuthContext } from '../auth/auth.decorators';
import { HOURLY_WINDOW_HOURS, type HourlyWindow } from './dto/job-hourly-query.dto';

const HOUR_MS = 3_600_000;

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
 * Runs per job and hour for the dashboard's sparklines, counted by PostgreSQL in one
 * GROUP BY over the workspace's runs by `scheduled_at`. The window's buckets are whole UTC hours,
 * oldest first, the last one the current hour (24 for `24h`), zero-filled. With `jobIds` every
 * named job gets its buckets (all zero when it had no runs in this workspace); without, every job
 * of the workspace with at least one run in the window. Jobs are ordered as named, else by id.
 */
@Injectable()
export class HourlyStatsService {
  constructor(private readonly stats: StatsRepository) {}

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

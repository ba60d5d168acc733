import { Injectable } from '@nestjs/common';
import { StatsRepository } from '@svc/persistence';
import type { AuthContext } from '../auth/auth.decorators';
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

/**
 * The workspace at a glance (spec → Stats overview), computed in SQL from PostgreSQL. `jobs` are
 * the current counts by state; `runs` and `start_lag_ms` cover runs scheduled within the window
 * (percentiles over the runs that started; null when none did); `failing_jobs` are the jobs whose
 * latest runs failed (`consecutive_failures > 0`), at most 10, longest streak first.
 */
@Injectable()
export class StatsService {
  constructor(private readonly stats: StatsRepository) {}

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
}

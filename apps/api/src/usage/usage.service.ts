import { Injectable } from '@nestjs/common';
import { RunsRepository } from '@svc/persistence';
import { JobLifecycle } from '@svc/orchestration';
import type { AuthContext } from '../auth/auth.decorators';
import { usageMonth } from './usage-month';

export interface UsageResponse {
  month: string;
  runs: number;
  limit: number;
  over_quota_policy: 'block' | 'allow';
  reset_at: string;
}

/**
 * The monthly run counter (spec → Usage). `runs` counts the runs that deliver (skipped ones are
 * not counted) by the UTC month of `scheduled_at`; `limit` and `over_quota_policy` are the
 * workspace plan's, `0` meaning unlimited. A `block` policy at the cap skips scheduled runs
 * (`quota_exceeded`) and answers manual triggers `429 limit_exceeded`.
 */
@Injectable()
export class UsageService {
  constructor(
    private readonly runs: RunsRepository,
    private readonly lifecycle: JobLifecycle,
  ) {}

  async get(auth: AuthContext, now: Date = new Date()): Promise<UsageResponse> {
    const { month, resetAt } = usageMonth(now);
    const [plan, runs] = await Promise.all([
      this.lifecycle.planOf(auth.workspaceId),
      this.runs.monthlyUsage(auth.workspaceId, month),
    ]);
    return {
      month,
      runs,
      limit: plan.max_runs_per_month_per_workspace,
      over_quota_policy: plan.over_quota_policy,
      reset_at: resetAt.toISOString(),
    };
  }
}

import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '@svc/common';
import { purgeExpiredRuns } from '@svc/orchestration';
import { RunsRepository, Transactions } from '@svc/persistence';
import { PeriodicPurge, type PurgeOutcome } from '../common/periodic-purge';
import { APP_CONFIG } from '../config/config.module';

/** First purge three minutes after start-up (apart from the audit and body purges), then hourly. */
export const RUN_PURGE_FIRST_DELAY_MS = 180_000;

/** Enforces `runs.retention` (default 30 days; a plan's `run_retention`) from every API process. */
@Injectable()
export class RunRetentionTask extends PeriodicPurge {
  constructor(
    transactions: Transactions,
    private readonly runs: RunsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super('runs', RUN_PURGE_FIRST_DELAY_MS, transactions);
  }

  protected async purge(now: Date): Promise<PurgeOutcome> {
    const { deleted, scopes, truncated } = await purgeExpiredRuns(this.runs, this.config, now);
    const detail = scopes
      .map(
        (s) =>
          `${s.deleted} finished before ${s.cutoff.toISOString()}${s.plans ? ` (plans ${s.plans.join(', ')})` : ''}`,
      )
      .join('; ');
    return {
      count: deleted,
      summary: `deleted ${deleted} runs and their attempts: ${detail}${truncated ? '; more left for the next purge' : ''}`,
    };
  }
}

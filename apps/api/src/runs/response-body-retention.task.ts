import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '@svc/common';
import { purgeExpiredResponseBodies } from '@svc/orchestration';
import { RunsRepository, Transactions } from '@svc/persistence';
import { PeriodicPurge, type PurgeOutcome } from '../common/periodic-purge';
import { APP_CONFIG } from '../config/config.module';

/** First purge two minutes after start-up (apart from the audit purge), then hourly. */
export const BODY_PURGE_FIRST_DELAY_MS = 120_000;

/** Enforces `runs.body_retention` (default 7 days) from every API process. */
@Injectable()
export class ResponseBodyRetentionTask extends PeriodicPurge {
  constructor(
    transactions: Transactions,
    private readonly runs: RunsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super('response bodies', BODY_PURGE_FIRST_DELAY_MS, transactions);
  }

  protected async purge(now: Date): Promise<PurgeOutcome> {
    const { cleared, cutoff } = await purgeExpiredResponseBodies(this.runs, this.config.runs.body_retention_ms, now);
    return { count: cleared, summary: `cleared ${cleared} of attempts finished before ${cutoff.toISOString()}` };
  }
}

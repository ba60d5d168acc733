import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '@svc/common';
import { purgeExpiredAuditEntries } from '@svc/orchestration';
import { AuditRepository, Transactions } from '@svc/persistence';
import { PeriodicPurge, type PurgeOutcome } from '../common/periodic-purge';
import { APP_CONFIG } from '../config/config.module';

/** First purge a minute after start-up, then hourly. */
export const AUDIT_PURGE_FIRST_DELAY_MS = 60_000;

/** Enforces `audit.retention` (default 30 days) from every API process. */
@Injectable()
export class AuditRetentionTask extends PeriodicPurge {
  constructor(
    transactions: Transactions,
    private readonly audit: AuditRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super('audit retention', AUDIT_PURGE_FIRST_DELAY_MS, transactions);
  }

  protected async purge(now: Date): Promise<PurgeOutcome> {
    const { deleted, cutoff } = await purgeExpiredAuditEntries(this.audit, this.config.audit.retention_ms, now);
    return { count: deleted, summary: `deleted ${deleted} entries created before ${cutoff.toISOString()}` };
  }
}

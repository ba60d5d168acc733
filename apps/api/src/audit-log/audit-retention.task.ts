import { Injectable } from '@nestjs/common';
import { purgeExpiredAuditEntries } from '@svc/orchestration';
import { AuditRepository } from '@svc/persistence';
import { RetentionTask } from '../common/periodic-purge';

/** First purge a minute after start-up, then hourly. */
export const AUDIT_PURGE_FIRST_DELAY_MS = 60_000;

/** Enforces `audit.retention` (default 30 days) from every API process. */
@Injectable()
export class AuditRetentionTask extends RetentionTask(
  'audit retention',
  AUDIT_PURGE_FIRST_DELAY_MS,
  AuditRepository,
  async (audit, config, now) => {
    const { deleted, cutoff } = await purgeExpiredAuditEntries(audit, config.audit.retention_ms, now);
    return { count: deleted, summary: `deleted ${deleted} entries created before ${cutoff.toISOString()}` };
  },
) {}

import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { AppConfig } from '@svc/common';
import { AuditRepository, Transactions } from '@svc/persistence';
import { purgeExpiredAuditEntries } from '@svc/orchestration';
import { APP_CONFIG } from '../config/config.module';

/** First purge a minute after start-up (not on the start-up path), then hourly. */
export const AUDIT_PURGE_FIRST_DELAY_MS = 60_000;
export const AUDIT_PURGE_INTERVAL_MS = 3_600_000;

/**
 * Enforces `audit.retention` from every API process: an unref'd timer (it never keeps the
 * process alive) runs `purgeExpiredAuditEntries` hourly. Several API processes purging at once
 * is harmless (the delete skips rows another process holds). A failure is logged and retried at
 * the next tick.
 */
@Injectable()
export class AuditRetentionTask implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(AuditRetentionTask.name);
  private first?: NodeJS.Timeout;
  private interval?: NodeJS.Timeout;
  private running = false;

  constructor(
    private readonly transactions: Transactions,
    private readonly audit: AuditRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.first = setTimeout(() => void this.runOnce(), AUDIT_PURGE_FIRST_DELAY_MS).unref();
    this.interval = setInterval(() => void this.runOnce(), AUDIT_PURGE_INTERVAL_MS).unref();
  }

  onApplicationShutdown(): void {
    clearTimeout(this.first);
    clearInterval(this.interval);
  }

  /** One purge; skipped while the database is unreachable or a purge is still running. */
  async runOnce(now: Date = new Date()): Promise<number> {
    if (this.running || !this.transactions.connected) {
      return 0;
    }
    this.running = true;
    try {
      const { deleted, cutoff } = await purgeExpiredAuditEntries(this.audit, this.config.audit.retention_ms, now);
      if (deleted > 0) {
        this.logger.log(`audit retention: deleted ${deleted} entries created before ${cutoff.toISOString()}`);
      }
      return deleted;
    } catch (err) {
      this.logger.warn(`audit retention: purge failed, retrying in an hour (${(err as Error).message})`);
      return 0;
    } finally {
      this.running = false;
    }
  }
}

import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { AppConfig } from '@svc/common';
import { RunsRepository, Transactions } from '@svc/persistence';
import { purgeExpiredResponseBodies } from '@svc/orchestration';
import { APP_CONFIG } from '../config/config.module';

/** First purge two minutes after start-up (not on the start-up path), then hourly. */
export const BODY_PURGE_FIRST_DELAY_MS = 120_000;
export const BODY_PURGE_INTERVAL_MS = 3_600_000;

/**
 * Enforces `runs.body_retention` from every API process, as `AuditRetentionTask` does for the
 * audit log: an unref'd hourly timer runs `purgeExpiredResponseBodies`. Purges of several
 * processes skip each other's rows. A failure is logged and retried at the next tick.
 */
@Injectable()
export class ResponseBodyRetentionTask implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ResponseBodyRetentionTask.name);
  private first?: NodeJS.Timeout;
  private interval?: NodeJS.Timeout;
  private running = false;

  constructor(
    private readonly transactions: Transactions,
    private readonly runs: RunsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.first = setTimeout(() => void this.runOnce(), BODY_PURGE_FIRST_DELAY_MS).unref();
    this.interval = setInterval(() => void this.runOnce(), BODY_PURGE_INTERVAL_MS).unref();
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
      const { cleared, cutoff } = await purgeExpiredResponseBodies(this.runs, this.config.runs.body_retention_ms, now);
      if (cleared > 0) {
        this.logger.log(`response bodies: cleared ${cleared} of attempts finished before ${cutoff.toISOString()}`);
      }
      return cleared;
    } catch (err) {
      this.logger.warn(`response bodies: purge failed, retrying in an hour (${(err as Error).message})`);
      return 0;
    } finally {
      this.running = false;
    }
  }
}

import { Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Transactions } from '@svc/persistence';

export interface PurgeOutcome {
  /** Rows deleted or cleared. */
  count: number;
  /** What was purged, for the log line (only written when `count > 0`). */
  summary: string;
}

/**
 * A retention purge run from every API process: an unref'd timer (it never keeps the process
 * alive) runs `purge` once after `firstDelayMs` (off the start-up path), then every
 * `intervalMs`. Purges are idempotent and skip rows another process holds, so several processes
 * purging at once is harmless. Skipped while the database is unreachable or a purge is still
 * running; a failure is logged and retried at the next tick.
 */
export abstract class PeriodicPurge implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger: Logger;
  private first?: NodeJS.Timeout;
  private interval?: NodeJS.Timeout;
  private running = false;

  protected constructor(
    private readonly name: string,
    private readonly timing: { firstDelayMs: number; intervalMs: number },
    private readonly transactions: Pick<Transactions, 'connected'>,
  ) {
    this.logger = new Logger(name);
  }

  protected abstract purge(now: Date): Promise<PurgeOutcome>;

  onApplicationBootstrap(): void {
    this.first = setTimeout(() => void this.runOnce(), this.timing.firstDelayMs).unref();
    this.interval = setInterval(() => void this.runOnce(), this.timing.intervalMs).unref();
  }

  onApplicationShutdown(): void {
    clearTimeout(this.first);
    clearInterval(this.interval);
  }

  /** One purge; returns how many rows it deleted or cleared (0 when skipped or failed). */
  async runOnce(now: Date = new Date()): Promise<number> {
    if (this.running || !this.transactions.connected) {
      return 0;
    }
    this.running = true;
    try {
      const { count, summary } = await this.purge(now);
      if (count > 0) {
        this.logger.log(`${this.name}: ${summary}`);
      }
      return count;
    } catch (err) {
      this.logger.warn(`${this.name}: purge failed, retrying at the next tick (${(err as Error).message})`);
      return 0;
    } finally {
      this.running = false;
    }
  }
}

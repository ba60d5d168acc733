import {
  type BeforeApplicationShutdown,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { PeriodicTask } from '@svc/common/periodic-task';
import type { Transactions } from '@svc/persistence';

/** Every API purge runs hourly; their first delays keep them apart. */
export const PURGE_INTERVAL_MS = 3_600_000;

export interface PurgeOutcome {
  /** Rows deleted or cleared. */
  count: number;
  /** What was purged, for the log line (only written when `count > 0`). */
  summary: string;
}

/**
 * A retention purge run from every API process as a `PeriodicTask` (libs/common): once
 * `firstDelayMs` after start-up (off the start-up path), then hourly, never two at
 * once. Purges are idempotent and skip rows another process holds, so several processes purging
 * at once is harmless. Skipped while the database is unreachable; a failure is logged and retried
 * at the next tick. Shutdown stops the timers first and awaits the purge in flight before the
 * connections close, as the worker's passes do.
 */
export abstract class PeriodicPurge
  implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown
{
  private readonly logger: Logger;
  private readonly task: PeriodicTask<number>;

  protected constructor(
    private readonly name: string,
    firstDelayMs: number,
    private readonly transactions: Pick<Transactions, 'connected'>,
  ) {
    this.logger = new Logger(name);
    this.task = new PeriodicTask({
      firstDelayMs,
      intervalMs: PURGE_INTERVAL_MS,
      pass: (now) => this.purgeLogged(now),
      onError: (err) => this.logger.warn(`${this.name}: ${(err as Error).message}`),
    });
  }

  protected abstract purge(now: Date): Promise<PurgeOutcome>;

  onApplicationBootstrap(): void {
    this.task.start();
  }

  /** Stops the timers; the purge in flight is awaited later, once the listener has closed. */
  beforeApplicationShutdown(): void {
    void this.task.stop();
  }

  /** So no purge outlives the connections. */
  onApplicationShutdown(): Promise<void> {
    return this.task.stop();
  }

  /** One purge; returns how many rows it deleted or cleared (0 when skipped or failed). */
  async runOnce(now: Date = new Date()): Promise<number> {
    return (await this.task.runNow(now)) ?? 0;
  }

  private async purgeLogged(now: Date): Promise<number> {
    if (!this.transactions.connected) {
      return 0;
    }
    try {
      const { count, summary } = await this.purge(now);
      if (count > 0) {
        this.logger.log(`${this.name}: ${summary}`);
      }
      return count;
    } catch (err) {
      this.logger.warn(`${this.name}: purge failed, retrying at the next tick (${(err as Error).message})`);
      return 0;
    }
  }
}

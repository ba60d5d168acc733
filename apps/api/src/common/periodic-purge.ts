import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type Type,
} from '@nestjs/common';
import type { AppConfig } from '@svc/common';
import { PeriodicTask } from '@svc/common/periodic-task';
import { Transactions } from '@svc/persistence';
import { APP_CONFIG } from '../config/config.module';

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

/**
 * The base of a retention task that purges one repository's expired rows by the configuration: the
 * API's three (audit entries, response bodies, runs) differ only in their name, first delay,
 * repository and purge, so one injectable class serves them all.
 */
export function RetentionTask<R>(
  name: string,
  firstDelayMs: number,
  repository: Type<R>,
  purge: (repository: R, config: AppConfig, now: Date) => Promise<PurgeOutcome>,
) {
  @Injectable()
  class Retention extends PeriodicPurge {
    constructor(
      transactions: Transactions,
      @Inject(repository) private readonly rows: R,
      @Inject(APP_CONFIG) private readonly config: AppConfig,
    ) {
      super(name, firstDelayMs, transactions);
    }

    protected purge(now: Date): Promise<PurgeOutcome> {
      return purge(this.rows, this.config, now);
    }
  }
  return Retention;
}

import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { type AppConfig, describeTemporalConnection, temporalFailureContext } from '@svc/common';
import { isPolled, lastPollAt } from '@svc/common/task-queue-pollers';
import { classifyTemporalConnectionError } from '@svc/common/temporal-connection-error';
import { Connection } from '@temporalio/client';
import { DatabaseProbe, RunsRepository, ServiceHealthRepository } from '@svc/persistence';
import { SERVICE_HEALTH_FRESH_MS, type ServiceDependency } from '@svc/common/service-health';
import { APP_CONFIG } from '../config/config.module';
import { TEMPORAL_PROBE_CONNECTION } from '../temporal/temporal.module';

const CHECK_TIMEOUT_MS = 2_000;

export interface Readiness {
  ready: boolean;
  dispatcher: 'starting' | 'active' | 'standby' | 'stopped';
  queue: boolean;
  heartbeat: string | null;
  writer_backpressure: boolean;
  sqlite_writable: boolean;
  database_writable: boolean;
  temporal: boolean;
  /** Runs open with no progress past `scheduler.stalled_run_grace`; null when unknown. */
  stalled_runs: number | null;
  /**
   * Why Temporal did not answer, in one line naming the cause (untrusted server, rejected client
   * certificate or API key, unknown namespace, unreachable …); null when it answered. Never holds
   * key material (docs/operations.md → Connecting to Temporal).
   */
  temporal_error: string | null;
  /** Why PostgreSQL does not accept writes, in one line naming the cause; null when it does. */
  database_error: string | null;
  /**
   * What the workers' health probes see degraded (docs/operations.md → Service degraded), from
   * their reports of the last 30 s; empty when nothing is, or when PostgreSQL cannot be read
   * (`database_writable` says so then). Does not change `ready`.
   */
  service_degraded: Array<{
    dependency: ServiceDependency;
    cause: string | null;
    since: string;
    degraded_at: string;
    observed_at: string;
    workers: number;
  }>;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms).unref()),
  ]);
}

/**
 * Readiness with the spec's field names mapped onto this stack (decisions.md → /readyz fields):
 * dispatcher = the Temporal worker polling our task queue, queue = Temporal's frontend and task
 * queue answer, heartbeat = the worker's last poll, *_writable = PostgreSQL accepts writes.
 */
@Injectable()
export class HealthService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Temporal');
  /** Checks in flight; the Temporal connection must not close under them (its retries would throw). */
  private readonly pending = new Set<Promise<unknown>>();

  constructor(
    private readonly database: DatabaseProbe,
    @Inject(TEMPORAL_PROBE_CONNECTION) private readonly connection: Connection,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly runs: RunsRepository,
    private readonly serviceHealth: ServiceHealthRepository,
  ) {}

  /**
   * One look at Temporal on start-up, so a bad connection setting shows in the log at once (the
   * API starts anyway: its connection is lazy and `/readyz` keeps reporting until Temporal answers).
   */
  onApplicationBootstrap(): void {
    const check = this.taskQueue().then((result) => {
      if (result.error) {
        this.logger.error(result.error);
      } else {
        this.logger.log(`connected to Temporal at ${describeTemporalConnection(this.config.temporal)}`);
      }
    });
    this.pending.add(check);
    void check.finally(() => this.pending.delete(check));
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }

  async readiness(): Promise<Readiness> {
    const check = Promise.all([
      this.databaseWritable(),
      this.taskQueue(),
      this.writerBackpressure(),
      this.stalledRuns(),
      this.workersView(),
    ]);
    this.pending.add(check);
    const [database, temporal, backpressure, stalledRuns, serviceDegraded] = await check.finally(() =>
      this.pending.delete(check),
    );
    const databaseWritable = database.error === null;
    const ready = databaseWritable && temporal.queue && temporal.dispatcher === 'active' && !backpressure;
    return {
      ready,
      dispatcher: temporal.dispatcher,
      queue: temporal.queue,
      heartbeat: temporal.heartbeat,
      writer_backpressure: backpressure,
      sqlite_writable: databaseWritable,
      database_writable: databaseWritable,
      temporal: temporal.queue,
      stalled_runs: stalledRuns,
      temporal_error: temporal.error,
      database_error: database.error,
      service_degraded: serviceDegraded,
    };
  }

  /** The workers' health probes' view (`service_health`); empty when it cannot be read. */
  private async workersView(): Promise<Readiness['service_degraded']> {
    if (!this.database.connected) {
      return [];
    }
    try {
      const freshSince = new Date(Date.now() - SERVICE_HEALTH_FRESH_MS);
      const rows = await withTimeout(this.serviceHealth.degraded(freshSince), CHECK_TIMEOUT_MS);
      return rows.map((row) => ({
        dependency: row.dependency,
        cause: row.cause,
        since: row.since.toISOString(),
        degraded_at: row.degradedAt.toISOString(),
        observed_at: row.observedAt.toISOString(),
        workers: row.workers,
      }));
    } catch {
      return [];
    }
  }

  /** Runs that stopped progressing (docs/operations.md → Stalled runs); null when unknown. */
  private async stalledRuns(): Promise<number | null> {
    try {
      const cutoff = new Date(Date.now() - this.config.scheduler.stalled_run_grace_ms);
      return await withTimeout(this.runs.countStalled(cutoff), CHECK_TIMEOUT_MS);
    } catch {
      return null;
    }
  }

  /**
   * True when a due run has waited longer than `scheduler.writer_backpressure_threshold` for its
   * first attempt: attempts (and the run/attempt rows they write) are not keeping up with the
   * schedule. Unknown (database unreachable) counts as not lagging; `database_writable` reports that.
   */
  private async writerBackpressure(): Promise<boolean> {
    try {
      const oldest = await withTimeout(this.runs.oldestAwaitingFirstAttempt(), CHECK_TIMEOUT_MS);
      return oldest !== null && Date.now() - oldest.getTime() > this.config.scheduler.writer_backpressure_threshold_ms;
    } catch {
      return false;
    }
  }

  /** Null when PostgreSQL accepts writes, else why not, naming where it was looked for (never the password). */
  private async databaseWritable(): Promise<{ error: string | null }> {
    const url = new URL(this.config.database.url);
    const where = `PostgreSQL at ${url.hostname}:${url.port || 5432}`;
    try {
      if (!this.database.connected) {
        return { error: `${where}: not connected (unreachable since start-up; the API connects when it answers)` };
      }
      const writable = await withTimeout(this.database.writable(), CHECK_TIMEOUT_MS);
      return { error: writable ? null : `${where}: read-only (in recovery, or a standby)` };
    } catch (err) {
      const message = (err as Error).message.replace(/\s+/g, ' ').trim() || String((err as { code?: string }).code);
      return {
        error: `${where}: ${message === 'timeout' ? `no answer within ${CHECK_TIMEOUT_MS / 1000} s` : message}`,
      };
    }
  }

  private async taskQueue(): Promise<{
    queue: boolean;
    dispatcher: Readiness['dispatcher'];
    heartbeat: string | null;
    error: string | null;
  }> {
    try {
      // The deadline ends the call and the client's own retries; the timeout guards connecting.
      const response = await withTimeout(
        this.connection.withDeadline(Date.now() + CHECK_TIMEOUT_MS, () =>
          this.connection.workflowService.describeTaskQueue({
            namespace: this.config.temporal.namespace,
            taskQueue: { name: this.config.temporal.task_queue },
            taskQueueType: 1, // WORKFLOW
          }),
        ),
        CHECK_TIMEOUT_MS + 1_000,
      );
      const last = lastPollAt(response.pollers);
      return {
        queue: true,
        dispatcher: isPolled(response.pollers) ? 'active' : 'stopped',
        heartbeat: last ? new Date(last).toISOString() : null,
        error: null,
      };
    } catch (err) {
      const failure = classifyTemporalConnectionError(err, temporalFailureContext(this.config.temporal, new Date()));
      return { queue: false, dispatcher: 'stopped', heartbeat: null, error: failure.message };
    }
  }
}

import { Inject, Injectable, Logger } from '@nestjs/common';
import { type AppConfig, temporalFailureContext } from '@svc/common';
import type { WorkerMetrics } from '@svc/common/metrics';
import { PeriodicTask } from '@svc/common/periodic-task';
import {
  publicServiceCause,
  SERVICE_DEPENDENCIES,
  ServiceAlertOutbox,
  type ServiceDependency,
  ServiceHealthTracker,
  type ServiceHealthTransition,
} from '@svc/common/service-health';
import { isPolled, POLLER_STALE_MS } from '@svc/common/task-queue-pollers';
import { classifyTemporalConnectionError } from '@svc/common/temporal-connection-error';
import { AlertEventsRepository, DatabaseProbe, RunsRepository, ServiceHealthRepository } from '@svc/persistence';
import { Client } from '@temporalio/client';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { AlertDispatcher } from '../alerts/alert-dispatcher';
import { type StartedAtBootstrap, WORKER_CONFIG, WORKER_LOG_CONTEXT, WORKER_METRICS } from '../worker.constants';
import { ServiceAlerts } from './service-alerts';
import { ServiceHealthJournal } from './service-health-journal';

/** How often the dependencies are probed. */
export const SERVICE_PROBE_INTERVAL_MS = 5_000;
const PROBE_TIMEOUT_MS = 3_000;
const TASK_QUEUE_TYPE_WORKFLOW = 1;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s`)), ms).unref()),
  ]);
}

/**
 * The service's own health, as this worker sees it (docs/operations.md → Service degraded):
 * Temporal answering, PostgreSQL accepting writes, a worker polling the task queue, and the
 * oldest due run not waiting past `alerts.service_lag_threshold`, probed every 5 s. A dependency
 * failing for `alerts.service_degraded_after` (schedule lag: `alerts.service_lag_after`) is
 * degraded: `svc_service_degraded{dependency}` is 1, a warning names it and its cause, and a
 * `service.degraded` alert event goes to the rules that listen (`ServiceAlerts`); its recovery is
 * logged and told as `service.recovered`. Transitions wait while PostgreSQL is out, in memory and
 * in the worker's state folder (`ServiceHealthJournal`), so a worker killed meanwhile tells them
 * once started again; the degradations it told are kept there too, so their recovery is told.
 */
@Injectable()
export class ServiceHealthMonitor implements StartedAtBootstrap {
  private readonly logger = new Logger(WORKER_LOG_CONTEXT);
  private readonly tracker: ServiceHealthTracker;
  private readonly journal: ServiceHealthJournal;
  private readonly outbox: ServiceAlertOutbox;
  private readonly alerts: ServiceAlerts;
  private waitingTold = false;
  /** This worker in `service_health` (not shown to tenants). */
  private readonly observer = `${hostname()}:${process.pid}`;
  /** Whether its last report there named a degradation (an empty one then clears it). */
  private reportedDegraded = false;
  private readonly pass = new PeriodicTask({
    intervalMs: SERVICE_PROBE_INTERVAL_MS,
    pass: async () => {
      await this.probe();
    },
    onError: (err) => this.logger.warn(`service health probe failed: ${(err as Error).message}`),
  });

  constructor(
    @Inject(WORKER_CONFIG) private readonly config: AppConfig,
    @Inject(WORKER_METRICS) private readonly metrics: WorkerMetrics,
    private readonly client: Client,
    private readonly database: DatabaseProbe,
    private readonly runs: RunsRepository,
    private readonly health: ServiceHealthRepository,
    alertEvents: AlertEventsRepository,
    dispatcher: AlertDispatcher,
  ) {
    this.journal = new ServiceHealthJournal(resolve(config.worker.state_dir), (message) => this.logger.warn(message));
    this.outbox = new ServiceAlertOutbox(100, this.journal);
    const after = config.alerts.service_degraded_after_ms;
    this.tracker = new ServiceHealthTracker({
      degradedAfterMs: {
        temporal: after,
        postgres: after,
        worker_polling: after,
        schedule_lag: config.alerts.service_lag_after_ms,
      },
    });
    this.alerts = new ServiceAlerts({
      events: alertEvents,
      dispatch: (eventIds) => dispatcher.dispatch(eventIds),
      // Not the host name: the event reaches tenants (the log says which host).
      observedBy: `worker pid ${process.pid}`,
      withTimeout: (promise) => withTimeout(promise, PROBE_TIMEOUT_MS),
    });
    for (const dependency of SERVICE_DEPENDENCIES) {
      this.metrics.serviceDegraded.set({ dependency }, 0);
    }
  }

  onApplicationBootstrap(): void {
    this.takeUpJournal();
    this.pass.start();
  }

  beforeApplicationShutdown(): void {
    void this.pass.stop();
  }

  /** So no probe outlives the connections. */
  async onApplicationShutdown(): Promise<void> {
    await this.pass.stop();
    this.journal.close();
  }

  /** Takes up what this worker's state folder kept from an earlier process (a crash, a restart). */
  takeUpJournal(): void {
    const kept = this.journal.open();
    if (!kept) {
      return;
    }
    this.outbox.restore(kept.alerts);
    this.tracker.restore(kept.degradations);
    for (const { dependency } of kept.degradations) {
      this.metrics.serviceDegraded.set({ dependency }, 1);
    }
    if (kept.alerts.length + kept.degradations.length + kept.unreadable > 0) {
      this.logger.log(
        `service alerts: took up ${kept.alerts.length} waiting transition(s) and ${kept.degradations.length} degradation(s) from ${this.config.worker.state_dir}` +
          (kept.unreadable > 0 ? ` (${kept.unreadable} unreadable line(s) left out)` : ''),
      );
    }
  }

  /** One probe of every dependency; returns the transitions it told. */
  async probe(now: Date = new Date()): Promise<ServiceHealthTransition[]> {
    const temporal = await this.temporalCause();
    const postgres = await this.postgresCause();
    const causes: Record<ServiceDependency, string | null> = {
      temporal,
      postgres,
      // Unknown while the dependency that answers them is out: that one is reported instead.
      worker_polling: temporal === null ? await this.pollingCause() : null,
      schedule_lag: postgres === null ? await this.lagCause() : null,
    };
    const told: ServiceHealthTransition[] = [];
    for (const dependency of SERVICE_DEPENDENCIES) {
      const transition = this.tracker.observe(dependency, causes[dependency], now);
      this.metrics.serviceDegraded.set({ dependency }, this.tracker.isDegraded(dependency) ? 1 : 0);
      if (transition) {
        told.push(transition);
        this.tell(transition);
        this.outbox.add(transition);
      }
    }
    if (told.length > 0) {
      this.journal.saveDegradations(this.tracker.degradations());
    }
    // Alert rules live in PostgreSQL: while it is out the transitions wait in the outbox.
    if (this.outbox.size > 0 && postgres === null) {
      await this.flushAlerts(temporal === null);
    } else if (this.outbox.size > 0) {
      this.waiting(`PostgreSQL is out (${postgres})`);
    }
    if (postgres === null) {
      await this.report(now);
    }
    return told;
  }

  /**
   * Tells `/readyz` (the dashboard's banner) what this worker sees degraded: its rows in
   * `service_health`, refreshed at every probe while something is degraded, cleared once nothing
   * is. A failed write is left to the next probe.
   */
  private async report(now: Date): Promise<void> {
    const degradations = this.tracker
      .degradations()
      .map((d) => ({ ...d, cause: publicServiceCause(d.dependency, d.cause) }));
    if (degradations.length === 0 && !this.reportedDegraded) {
      return;
    }
    try {
      await withTimeout(this.health.report(this.observer, degradations, now), PROBE_TIMEOUT_MS);
      this.reportedDegraded = degradations.length > 0;
    } catch {
      // PostgreSQL just went: its own probe tells it.
    }
  }

  private async flushAlerts(canStartWorkflows: boolean): Promise<void> {
    const flush = await this.alerts.flush(this.outbox, canStartWorkflows);
    if (flush.recorded > 0) {
      this.logger.log(
        `service alerts: ${flush.recorded} transition${flush.recorded === 1 ? '' : 's'} recorded as ${flush.eventIds.length} alert event${flush.eventIds.length === 1 ? '' : 's'}`,
      );
    }
    if (flush.error) {
      this.waiting(flush.error);
    } else {
      this.waitingTold = false;
    }
  }

  /** Says once, until they are recorded, that transitions wait. */
  private waiting(cause: string): void {
    if (!this.waitingTold) {
      this.logger.warn(`service alerts: ${this.outbox.size} waiting, not recorded yet: ${cause}`);
    }
    this.waitingTold = true;
  }

  private tell(t: ServiceHealthTransition): void {
    if (t.kind === 'degraded') {
      this.logger.warn(`service degraded: ${t.dependency} failing since ${t.since.toISOString()}: ${t.cause}`);
    } else {
      const seconds = Math.round((t.at.getTime() - t.since.getTime()) / 1000);
      this.logger.log(`service recovered: ${t.dependency} after ${seconds} s (it was: ${t.cause})`);
    }
  }

  private async temporalCause(): Promise<string | null> {
    const { connection } = this.client;
    try {
      await withTimeout(
        connection.withDeadline(Date.now() + PROBE_TIMEOUT_MS, () =>
          connection.workflowService.describeNamespace({ namespace: this.config.temporal.namespace }),
        ),
        PROBE_TIMEOUT_MS + 1_000,
      );
      return null;
    } catch (err) {
      return classifyTemporalConnectionError(err, temporalFailureContext(this.config.temporal, new Date())).message;
    }
  }

  private async postgresCause(): Promise<string | null> {
    try {
      const writable = await withTimeout(this.database.writable(), PROBE_TIMEOUT_MS);
      return writable ? null : 'PostgreSQL is read-only (in recovery, or a standby)';
    } catch (err) {
      return `PostgreSQL: ${(err as Error).message}`;
    }
  }

  private async pollingCause(): Promise<string | null> {
    const { connection } = this.client;
    const queue = this.config.temporal.task_queue;
    try {
      const response = await withTimeout(
        connection.withDeadline(Date.now() + PROBE_TIMEOUT_MS, () =>
          connection.workflowService.describeTaskQueue({
            namespace: this.config.temporal.namespace,
            taskQueue: { name: queue },
            taskQueueType: TASK_QUEUE_TYPE_WORKFLOW,
          }),
        ),
        PROBE_TIMEOUT_MS + 1_000,
      );
      return isPolled(response.pollers) ? null : `no worker polled ${queue} in the last ${POLLER_STALE_MS / 1000} s`;
    } catch {
      return null; // Temporal itself is probed above
    }
  }

  private async lagCause(): Promise<string | null> {
    try {
      const { oldest } = await withTimeout(this.runs.backlog(), PROBE_TIMEOUT_MS);
      const waitedMs = oldest ? Date.now() - oldest.getTime() : 0;
      const threshold = this.config.alerts.service_lag_threshold_ms;
      return waitedMs > threshold
        ? `the oldest due run has waited ${Math.round(waitedMs / 1000)} s for its first attempt (threshold ${threshold / 1000} s)`
        : null;
    } catch {
      return null; // PostgreSQL itself is probed above
    }
  }
}

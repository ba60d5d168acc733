import { Inject, Injectable, Logger } from '@nestjs/common';
import type { AppConfig } from '@svc/common';
import type { WorkerMetrics } from '@svc/common/metrics';
import { PeriodicTask } from '@svc/common/periodic-task';
import { JobLifecycle, JobWorkflowGateway } from '@svc/orchestration';
import { JobsRepository, OccurrenceBurstsRepository, RunsRepository } from '@svc/persistence';
import { Client } from '@temporalio/client';
import { AlertSweeper } from './alerts/alert-sweeper';
import { reconcileJobWorkflows } from './reconciler/reconciler';
import { repairStalledRuns } from './reconciler/stalled-runs';
import { type StartedAtBootstrap, WORKER_CONFIG, WORKER_LOG_CONTEXT, WORKER_METRICS } from './worker.constants';

/**
 * What the worker repeats beside its Temporal workers, each a `PeriodicTask` (libs/common): the
 * reconciler (at start-up and every `scheduler.reconcile_interval`), the stalled-run sweep and
 * the alert sweep. Started once the workers poll (this provider's module is built after theirs);
 * on shutdown the timers stop before the workers stop polling, and the passes in flight are
 * awaited before the connections close.
 */
@Injectable()
export class PeriodicPasses implements StartedAtBootstrap {
  private readonly logger = new Logger(WORKER_LOG_CONTEXT);
  private readonly reconcile: PeriodicTask;
  private readonly stalledRuns: PeriodicTask;
  private readonly alertSweep: PeriodicTask;

  constructor(
    @Inject(WORKER_CONFIG) private readonly config: AppConfig,
    @Inject(WORKER_METRICS) private readonly metrics: WorkerMetrics,
    private readonly jobs: JobsRepository,
    private readonly runs: RunsRepository,
    private readonly bursts: OccurrenceBurstsRepository,
    private readonly lifecycle: JobLifecycle,
    private readonly gateway: JobWorkflowGateway,
    private readonly client: Client,
    private readonly sweeper: AlertSweeper,
  ) {
    // Each pass logs its own failures; onError only sees what escapes them.
    const onError = (err: unknown): void => this.logger.warn(`periodic pass failed: ${(err as Error).message}`);
    this.reconcile = new PeriodicTask({
      intervalMs: config.scheduler.reconcile_interval_ms,
      firstDelayMs: 0,
      pass: () => this.reconcilePass(),
      onError,
    });
    this.stalledRuns = new PeriodicTask({
      intervalMs: Math.max(1_000, config.scheduler.stalled_run_sweep_interval_ms),
      pass: () => this.stalledRunsPass(),
      onError,
    });
    this.alertSweep = new PeriodicTask({
      intervalMs: config.alerts.sweep_interval_ms,
      pass: () => this.alertSweepPass(),
      onError,
    });
  }

  onApplicationBootstrap(): void {
    for (const task of [this.alertSweep, this.reconcile, this.stalledRuns]) {
      task.start();
    }
  }

  /** Stops the timers before the workers stop polling. */
  beforeApplicationShutdown(): void {
    for (const task of [this.reconcile, this.stalledRuns, this.alertSweep]) {
      void task.stop();
    }
  }

  /** So no client call outlives the connection. */
  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.reconcile, this.stalledRuns, this.alertSweep].map((task) => task.stop()));
  }

  private async reconcilePass(): Promise<void> {
    // The burst estimate only looks at instants to come: an hour back is plenty.
    await this.bursts.pruneBefore(new Date(Date.now() - 3_600_000)).catch((err: unknown) => {
      this.logger.warn(`burst estimate prune failed: ${(err as Error).message}`);
    });
    try {
      const { jobs, gateway, client, config } = this;
      const report = await reconcileJobWorkflows({ jobs, gateway, client, config });
      this.logger.log(
        `reconciled ${report.checked} jobs: ${report.upserted} workflows started or updated, ${report.stopped} stopped`,
      );
    } catch (err) {
      this.logger.warn(`reconcile failed: ${(err as Error).message}`);
    }
  }

  /**
   * Stalled runs (docs/operations.md → Stalled runs): rows whose workflow never started, was
   * lost, or ended without closing them are started once or closed with a reason.
   */
  private async stalledRunsPass(): Promise<void> {
    try {
      const { runs, jobs, lifecycle, gateway, client } = this;
      const report = await repairStalledRuns({
        runs,
        jobs,
        lifecycle,
        gateway,
        client,
        graceMs: this.config.scheduler.stalled_run_grace_ms,
        clock: () => new Date(),
      });
      if (report.started + report.cancelled + report.closed > 0) {
        this.logger.warn(
          `stalled runs: ${report.started} started, ${report.cancelled} cancelled (job deleted), ` +
            `${report.closed} closed (workflow ended without an outcome) of ${report.examined} examined`,
        );
      }
      this.metrics.stalledRunsRepaired.inc({ action: 'start' }, report.started);
      this.metrics.stalledRunsRepaired.inc({ action: 'cancel' }, report.cancelled);
      this.metrics.stalledRunsRepaired.inc({ action: 'close' }, report.closed);
    } catch (err) {
      this.logger.warn(`stalled-run sweep failed: ${(err as Error).message}`);
    }
  }

  /** Alerts (docs/alerts.md): SLA breaches in flight, lost alert starts, retention. */
  private async alertSweepPass(): Promise<void> {
    try {
      const report = await this.sweeper.sweep();
      if (report.breached > 0 || report.started > 0) {
        this.logger.log(`alerts: ${report.breached} runs past their SLA, ${report.started} alert workflows started`);
      }
    } catch (err) {
      this.logger.warn(`alert sweep failed: ${(err as Error).message}`);
    }
  }
}

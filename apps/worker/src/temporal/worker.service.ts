import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { type AppConfig, describeTemporalConnection } from '@svc/common';
import { portInUseError } from '@svc/common/port-in-use';
import { createWorkerMetrics, recordRunClosed } from '@svc/common/metrics';
import { secretsCipherFromConfig } from '@svc/common/secrets-crypto';
import { dataConverterOptions } from '@svc/common/temporal-data-converter';
import { flushTracing } from '@svc/common/tracing';
import {
  AlertChannelsRepository,
  AlertEventsRepository,
  AuditRepository,
  JobsRepository,
  OccurrenceBurstsRepository,
  RunsRepository,
  SecretsRepository,
  WorkspacesRepository,
} from '@svc/persistence';
import { AlertSender, networkRulesOf, SinkRegistry, verificationKeyFromConfig } from '@svc/delivery';
import { AlertWorkflowGateway, JobLifecycle, JobWorkflowGateway, SinkSender, sinkServices } from '@svc/orchestration';
import { tracingClientInterceptors } from '@svc/orchestration/tracing';
import { alertsTaskQueue } from '@svc/workflows/definitions';
import { Client, type Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, type NativeConnection, Worker } from '@temporalio/worker';
import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import { resolve } from 'node:path';
import { DataSource } from 'typeorm';
import { createActivities } from '../activities';
import { createAlertActivities } from '../activities/alert.activities';
import { AlertSweeper } from '../alerts/alert-sweeper';
import { startMetricsServer } from '../metrics/metrics-server';
import { reconcileJobWorkflows } from '../reconciler/reconciler';
import { repairStalledRuns } from '../reconciler/stalled-runs';
import { WORKER_CONFIG } from '../worker.constants';
import { connectWorkerClient, connectWorkerToTemporal } from './connect';
import { activityLogInterceptor } from './logging';
import { WORKFLOW_TRACING_MODULE, workerTracingOptions, workflowBundleFile } from './tracing';

/** The repository root when running from source, `dist/` when running the build. */
const ROOT = resolve(__dirname, '../../../..');

/**
 * Production uses the bundle written at build time (`dist/workflow-bundle.js`, or
 * `workflow-bundle-traced.js` with the tracing interceptors when tracing is on); tests and
 * development bundle `temporal/workflows` on start-up (style.md rule 10).
 */
function workflowSource(traced: boolean) {
  const bundle = resolve(ROOT, workflowBundleFile(traced));
  if (existsSync(bundle)) {
    return { workflowBundle: { codePath: bundle } };
  }
  const source = (name: string) =>
    [`${name}.ts`, `${name}.js`]
      .map((file) => resolve(ROOT, 'temporal/workflows', file))
      .find((file) => existsSync(file));
  return {
    workflowsPath: source('index'),
    workflowInterceptorModules: traced ? [source(WORKFLOW_TRACING_MODULE)!] : [],
    bundlerOptions: { webpackConfigHook: withWorkflowAliases },
  };
}

/**
 * The workflow code both workers run: the prebuilt bundle, or one bundle of the sources made once
 * for the job and the alert worker together (bundling is the slow part of a start from source).
 */
async function workflowCode(traced: boolean) {
  const source = workflowSource(traced);
  if ('workflowBundle' in source) {
    return source;
  }
  const { workflowsPath, workflowInterceptorModules, bundlerOptions } = source;
  return {
    workflowBundle: await bundleWorkflowCode({
      workflowsPath: workflowsPath!,
      workflowInterceptorModules,
      webpackConfigHook: bundlerOptions.webpackConfigHook,
      logger: new DefaultLogger('WARN'),
    }),
  };
}

/** Resolves the `@svc/*` imports of workflow code when bundling TypeScript sources. */
export function withWorkflowAliases<T extends { resolve?: { alias?: unknown } }>(config: T): T {
  config.resolve = config.resolve ?? {};
  config.resolve.alias = {
    ...((config.resolve.alias as Record<string, string>) ?? {}),
    '@svc/common': resolve(ROOT, 'libs/common/src'),
    '@svc/workflows': resolve(ROOT, 'temporal/workflows'),
  };
  return config;
}

/** Owns the Temporal worker: created on bootstrap, run() tracked, shut down with the app. */
@Injectable()
export class WorkerService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Worker');
  private worker?: Worker;
  private running?: Promise<void>;
  /** The worker of the alerts task queue (alert workflows and sends, their own slots). */
  private alertWorker?: Worker;
  private alertsRunning?: Promise<void>;
  private sweepTimer?: NodeJS.Timeout;
  private sweeping: Promise<void> = Promise.resolve();
  private nativeConnection?: NativeConnection;
  private clientConnection?: Connection;
  private reconcileTimer?: NodeJS.Timeout;
  private stalledTimer?: NodeJS.Timeout;
  /** The stalled-run sweep in progress, awaited on shutdown like the reconcile pass. */
  private repairing: Promise<void> = Promise.resolve();
  private metricsServer?: Server;
  /** The reconcile pass in progress, awaited on shutdown so no client call outlives the connection. */
  private reconciling: Promise<void> = Promise.resolve();

  constructor(
    @Inject(WORKER_CONFIG) private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly sinkKinds: SinkRegistry,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // Before connecting anywhere: without the key no `{{secret.NAME}}` could be sent, so a
    // missing or malformed one stops the worker with the key's own message (as the API does).
    const cipher = secretsCipherFromConfig(this.config);
    // Payload encryption (docs/operations.md → Payload encryption): one data converter for every
    // client and worker of this process; `{}` (nothing added) with the codec off.
    const converter = dataConverterOptions(this.config);
    const { namespace, task_queue } = this.config.temporal;
    // Tracing (docs/operations.md → Traces): clients that start runs and alerts from activities
    // carry the trace on, and the workers get the tracing interceptors and span sink.
    const traced = this.config.tracing.enabled;
    const interceptors = tracingClientInterceptors(traced);
    // TLS, API key and metadata from envconfig and the config file (docs/operations.md →
    // Connecting to Temporal); a failure that waiting cannot cure stops the worker with one line.
    this.nativeConnection = await connectWorkerToTemporal(this.config.temporal, {
      warn: (message) => this.logger.warn(message),
    });
    this.clientConnection = await connectWorkerClient(this.config.temporal);
    const client = new Client({ connection: this.clientConnection, namespace, interceptors, ...converter });
    const gateway = new JobWorkflowGateway(client, task_queue);
    // Runs are started from the worker's own connection, so the server can hand their first
    // workflow task straight back to this worker (eager workflow start) instead of a poll.
    const eagerGateway = new JobWorkflowGateway(
      new Client({ connection: this.nativeConnection, namespace, interceptors, ...converter }),
      task_queue,
    );
    const jobs = new JobsRepository(this.dataSource);
    const runs = new RunsRepository(this.dataSource);
    const workspaces = new WorkspacesRepository(this.dataSource);
    const bursts = new OccurrenceBurstsRepository(this.dataSource);
    const metrics = createWorkerMetrics({
      taskQueue: task_queue,
      readBacklog: async () => {
        const [{ count, oldest }, stalled] = await Promise.all([
          runs.backlog(),
          runs.countStalled(new Date(Date.now() - this.config.scheduler.stalled_run_grace_ms)),
        ]);
        return { count, oldestSeconds: oldest ? Math.max(0, Date.now() - oldest.getTime()) / 1000 : 0, stalled };
      },
    });
    if (this.config.metrics.worker_port > 0) {
      const { host } = this.config.http;
      const port = this.config.metrics.worker_port;
      this.metricsServer = await startMetricsServer(metrics.registry, host, port, this.config.metrics.token).catch(
        (err: unknown) => {
          throw portInUseError(err, {
            what: "The worker's metrics",
            host,
            port,
            env: 'METRICS_WORKER_PORT',
            key: 'metrics.worker_port',
          });
        },
      );
      this.logger.log(`metrics on http://${this.config.http.host}:${this.config.metrics.worker_port}/metrics`);
    }
    // Alerts (docs/alerts.md): events recorded by closeRun start their workflow on the alerts queue.
    const alertEvents = new AlertEventsRepository(this.dataSource);
    const alertsQueue = alertsTaskQueue(task_queue);
    const alertGateway = new AlertWorkflowGateway(
      new Client({ connection: this.nativeConnection, namespace, interceptors, ...converter }),
      alertsQueue,
    );
    const dispatchAlerts = async (eventIds: string[]) => {
      for (const eventId of eventIds) {
        await alertGateway.startAlert(eventId);
      }
      await alertEvents.markDispatched(eventIds, new Date());
    };
    const lifecycle = new JobLifecycle({
      dataSource: this.dataSource,
      jobs,
      runs,
      audit: new AuditRepository(this.dataSource),
      workspaces,
      gateway,
      config: this.config,
      warn: (message) => this.logger.warn(message),
      alerts: { events: alertEvents, dispatch: dispatchAlerts },
      onRunClosed: (run) => recordRunClosed(metrics, run),
    });
    const activities = createActivities({
      jobs,
      runs,
      workspaces,
      lifecycle,
      gateway: eagerGateway,
      sender: new SinkSender({
        secrets: new SecretsRepository(this.dataSource),
        cipher,
        config: this.config,
        registry: this.sinkKinds,
        services: sinkServices(this.config, () => this.clientConnection!),
      }),
      config: this.config,
      clock: () => new Date(),
      random: Math.random,
      metrics,
      bursts,
      warn: (message) => this.logger.warn(message),
    });
    const code = await workflowCode(traced);
    const tracing = workerTracingOptions(traced);
    // Activity log lines carry run_id, job_id and the attempt (docs/operations.md → Logs).
    const workerInterceptors = {
      ...tracing.interceptors,
      activity: [activityLogInterceptor, ...(tracing.interceptors?.activity ?? [])],
    };
    this.worker = await Worker.create({
      connection: this.nativeConnection,
      namespace,
      taskQueue: task_queue,
      activities,
      // Sized for many short tasks: an occurrence is one workflow task of the job, two of the run
      // and one attempt activity that mostly waits, for its instant (a burst prepared ahead holds
      // one slot per occurrence) and on the network (docs/benchmarks.md).
      maxConcurrentActivityTaskExecutions: this.config.worker.max_concurrent_activities,
      maxConcurrentWorkflowTaskExecutions: this.config.worker.max_concurrent_workflow_tasks,
      maxConcurrentLocalActivityExecutions: this.config.worker.max_concurrent_workflow_tasks,
      // Idle jobs fall out of the cache and are replayed on their next wake (docs/benchmarks.md →
      // Idle jobs); busy jobs and the runs in flight stay.
      maxCachedWorkflows: this.config.worker.max_cached_workflows,
      // SIGTERM (docs/operations.md → Faults): polling stops at once; an attempt in flight keeps
      // running, bounded by its job's timeout, and is recorded before the worker exits.
      shutdownGraceTime: this.config.worker.shutdown_grace_time_ms,
      ...code,
      ...tracing,
      ...converter,
      interceptors: workerInterceptors,
    });
    this.running = this.worker.run().catch((err: unknown) => {
      this.logger.error(`worker stopped: ${(err as Error).message}`);
      process.exitCode = 1;
    });
    this.alertWorker = await Worker.create({
      connection: this.nativeConnection,
      namespace,
      taskQueue: alertsQueue,
      activities: createAlertActivities({
        alertEvents,
        alertChannels: new AlertChannelsRepository(this.dataSource),
        alertSender: new AlertSender({
          serviceName: this.config.service_name,
          version: this.config.version,
          smtp: this.config.smtp,
          rules: networkRulesOf(this.config),
          timeoutMs: this.config.alerts.send_timeout_ms,
        }),
        verificationKey: verificationKeyFromConfig(this.config),
        config: this.config,
        clock: () => new Date(),
      }),
      maxConcurrentActivityTaskExecutions: this.config.alerts.max_concurrent_sends,
      maxConcurrentWorkflowTaskExecutions: 20,
      shutdownGraceTime: this.config.worker.shutdown_grace_time_ms,
      ...code,
      ...tracing,
      ...converter,
      interceptors: workerInterceptors,
    });
    this.alertsRunning = this.alertWorker.run().catch((err: unknown) => {
      this.logger.error(`alert worker stopped: ${(err as Error).message}`);
      process.exitCode = 1;
    });
    if (!this.config.smtp.host) {
      this.logger.warn('SMTP is not configured (smtp.host, smtp.from): email alert channels receive nothing');
    }
    const sweeper = new AlertSweeper({
      events: alertEvents,
      dispatch: dispatchAlerts,
      config: this.config,
      clock: () => new Date(),
    });
    const sweep = async () => {
      try {
        const report = await sweeper.sweep();
        if (report.breached > 0 || report.started > 0) {
          this.logger.log(`alerts: ${report.breached} runs past their SLA, ${report.started} alert workflows started`);
        }
      } catch (err) {
        this.logger.warn(`alert sweep failed: ${(err as Error).message}`);
      }
    };
    this.sweepTimer = setInterval(() => {
      this.sweeping = this.sweeping.then(sweep);
    }, this.config.alerts.sweep_interval_ms);
    this.sweepTimer.unref();
    this.logger.log(
      `polling task queue ${task_queue} and ${alertsQueue} on ${describeTemporalConnection(this.config.temporal)}`,
    );

    const reconcile = async () => {
      // The burst estimate only looks at instants to come: an hour back is plenty.
      await bursts.pruneBefore(new Date(Date.now() - 3_600_000)).catch((err: unknown) => {
        this.logger.warn(`burst estimate prune failed: ${(err as Error).message}`);
      });
      try {
        const report = await reconcileJobWorkflows({ jobs, gateway, client, config: this.config });
        this.logger.log(
          `reconciled ${report.checked} jobs: ${report.upserted} workflows started or updated, ${report.stopped} stopped`,
        );
      } catch (err) {
        this.logger.warn(`reconcile failed: ${(err as Error).message}`);
      }
    };
    const startReconcile = () => {
      this.reconciling = this.reconciling.then(reconcile);
    };
    startReconcile();
    this.reconcileTimer = setInterval(startReconcile, this.config.scheduler.reconcile_interval_ms);
    this.reconcileTimer.unref();

    // Stalled runs (docs/operations.md → Stalled runs): rows whose workflow never started, was
    // lost, or ended without closing them are started once or closed with a reason.
    const repair = async () => {
      try {
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
        metrics.stalledRunsRepaired.inc({ action: 'start' }, report.started);
        metrics.stalledRunsRepaired.inc({ action: 'cancel' }, report.cancelled);
        metrics.stalledRunsRepaired.inc({ action: 'close' }, report.closed);
      } catch (err) {
        this.logger.warn(`stalled-run sweep failed: ${(err as Error).message}`);
      }
    };
    this.stalledTimer = setInterval(
      () => {
        this.repairing = this.repairing.then(repair);
      },
      Math.max(1_000, this.config.scheduler.stalled_run_sweep_interval_ms),
    );
    this.stalledTimer.unref();
  }

  /**
   * Graceful stop (SIGTERM, SIGINT): both workers stop polling first, so no new workflow task or
   * attempt starts here; the tasks they hold finish (an attempt on the wire is answered or times
   * out under its job's timeout, and is recorded), for up to `worker.shutdown_grace_time`. Then
   * the connections close.
   */
  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.reconcileTimer);
    clearInterval(this.stalledTimer);
    clearInterval(this.sweepTimer);
    let inFlight = 0;
    for (const worker of [this.worker, this.alertWorker]) {
      if (worker) {
        inFlight += worker.getStatus().numInFlightActivities;
      }
      // The SDK's own signal handler may have asked already (state STOPPING).
      if (worker && worker.getState() === 'RUNNING') {
        worker.shutdown();
      }
    }
    if (this.worker) {
      this.logger.log(
        `shutting down: stopped polling; waiting for ${inFlight} activities in flight ` +
          `(up to ${this.config.worker.shutdown_grace_time_ms / 1000} s)`,
      );
    }
    await this.reconciling;
    await this.repairing;
    await this.sweeping;
    await Promise.all([this.alertsRunning, this.running]);
    await this.nativeConnection?.close().catch(() => undefined);
    await this.clientConnection?.close().catch(() => undefined);
    await new Promise((resolveClose) =>
      this.metricsServer ? this.metricsServer.close(resolveClose) : resolveClose(null),
    );
    await flushTracing();
  }
}

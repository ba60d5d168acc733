import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleDestroy,
} from '@nestjs/common';
import { type AppConfig, describeTemporalConnection } from '@svc/common';
import { BackgroundWork } from '@svc/orchestration';
import {
  ATTEMPT_HEARTBEAT_THROTTLE_MS,
  alertsTaskQueue,
  parkedTaskQueue,
  runsTaskQueue,
} from '@svc/workflows/definitions';
import { Client } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, Worker } from '@temporalio/worker';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { createActivities } from '../activities';
import type { createAlertActivities } from '../activities/alert.activities';
import {
  ALERT_ACTIVITIES,
  DATA_CONVERTER,
  type DataConverterOptions,
  JOB_ACTIVITIES,
  WORKER_CONFIG,
  WORKER_LOG_CONTEXT,
} from '../worker.constants';
import { TemporalConnections } from './connect';
import { activityLogInterceptor } from './logging';
import { ParkedQueue } from './parked-queue';
import { workerTracingOptions } from './tracing';
import { watchWorkerFailure } from './worker-failure';
import { ROOT, workflowBundleFile, workflowBundleOptions } from './workflow-bundle';

type JobActivities = ReturnType<typeof createActivities>;
type AlertActivities = ReturnType<typeof createAlertActivities>;

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
  return workflowBundleOptions(resolve(ROOT, 'temporal/workflows'), traced);
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
  return { workflowBundle: await bundleWorkflowCode({ ...source, logger: new DefaultLogger('WARN') }) };
}

/**
 * Owns the Temporal workers (the jobs', runs', alerts' and parked task queues): created on bootstrap
 * from the injected activities, run() tracked, shut down with the app. Everything they run is
 * composed by `ActivitiesModule`; the connections come from `ConnectionsModule`.
 */
@Injectable()
export class WorkerService
  implements OnApplicationBootstrap, OnModuleDestroy, BeforeApplicationShutdown, OnApplicationShutdown
{
  private readonly logger = new Logger(WORKER_LOG_CONTEXT);
  private worker?: Worker;
  private running?: Promise<void>;
  /** The worker of the runs task queue (run workflows and their attempts, issue 25). */
  private runsWorker?: Worker;
  private runsRunning?: Promise<void>;
  /** The worker of the alerts task queue (alert workflows and sends, their own slots). */
  private alertWorker?: Worker;
  private alertsRunning?: Promise<void>;
  /** The worker of the parked queue (idle jobs waiting, issue 25): it caches no workflow. */
  private parkedWorker?: Worker;
  private parkedRunning?: Promise<void>;
  /** Set once the app shuts down: a worker that stops then is not a failure. */
  private stopping = false;
  private reportFailure!: (err: Error) => void;
  /**
   * Settles with the first Temporal worker of this process that stops by itself (a fatal error:
   * the namespace gone, credentials refused). The process then stops as a whole and exits 1
   * (`main.ts`), so that its supervisor restarts it rather than leave it half running.
   */
  readonly failure = new Promise<Error>((resolve) => {
    this.reportFailure = resolve;
  });

  constructor(
    @Inject(WORKER_CONFIG) private readonly config: AppConfig,
    private readonly connections: TemporalConnections,
    @Inject(JOB_ACTIVITIES) private readonly activities: JobActivities,
    @Inject(ALERT_ACTIVITIES) private readonly alertActivities: AlertActivities,
    @Inject(DATA_CONVERTER) private readonly converter: DataConverterOptions,
    private readonly followUps: BackgroundWork,
    private readonly parkedQueue: ParkedQueue,
    private readonly client: Client,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { namespace, task_queue } = this.config.temporal;
    const alertsQueue = alertsTaskQueue(task_queue);
    const connection = this.connections.worker;
    const converter = this.converter;
    // Tracing (docs/operations.md → Traces): the workers get the tracing interceptors and span sink.
    const traced = this.config.tracing.enabled;
    const code = await workflowCode(traced);
    const tracing = workerTracingOptions(traced);
    // Activity log lines carry run_id, job_id and the attempt (docs/operations.md → Logs).
    const workerInterceptors = {
      ...tracing.interceptors,
      activity: [activityLogInterceptor, ...(tracing.interceptors?.activity ?? [])],
    };
    // What every worker of this process shares: the connection, the workflow code, the codec,
    // tracing and log interceptors, and the shutdown grace.
    const shared = {
      connection,
      namespace,
      // SIGTERM (docs/operations.md → Faults): polling stops at once; an attempt in flight keeps
      // running, bounded by its job's timeout, and is recorded before the worker exits.
      shutdownGraceTime: this.config.worker.shutdown_grace_time_ms,
      ...code,
      ...tracing,
      ...converter,
      interceptors: workerInterceptors,
    };
    const run = (worker: Worker, name: string): Promise<void> => {
      let reported = false;
      const stopped = (reason: string): void => {
        if (reported) {
          return;
        }
        reported = true;
        this.logger.error(`${name} stopped: ${reason}`);
        process.exitCode = 1;
        if (!this.stopping) {
          this.reportFailure(new Error(`${name} stopped: ${reason}`));
        }
      };
      // A worker given up (state FAILED) is reported at once: its run() may settle minutes later.
      const stopWatching = watchWorkerFailure(worker, () =>
        stopped('the Temporal SDK gave it up (state FAILED; its error is logged just before)'),
      );
      return worker
        .run()
        .catch((err: unknown) => stopped((err as Error).message))
        .finally(stopWatching);
    };
    // Jobs and runs have a worker each, with slots of their own (docs/architecture.md → Bursts
    // prepared ahead): a job's workflow task holds its slot while its local activities write the
    // burst's run rows and start the runs, and a run started then takes its first workflow task
    // from the runs worker's slots (eager start), which those job tasks never hold. Both register
    // everything, so runs started on the jobs' queue by an earlier version still finish there.
    const jobsAndRuns = {
      ...shared,
      activities: this.activities,
      // Sized for many short tasks: an occurrence is one workflow task of the job, two of the run
      // and one attempt activity that mostly waits, for its instant (a burst prepared ahead holds
      // one slot per occurrence) and on the network (docs/benchmarks.md).
      maxConcurrentActivityTaskExecutions: this.config.worker.max_concurrent_activities,
      maxConcurrentWorkflowTaskExecutions: this.config.worker.max_concurrent_workflow_tasks,
      maxConcurrentLocalActivityExecutions: this.config.worker.max_concurrent_workflow_tasks,
      // Idle jobs fall out of the cache and are replayed on their next wake (docs/benchmarks.md →
      // Idle jobs); busy jobs and the runs in flight stay.
      maxCachedWorkflows: this.config.worker.max_cached_workflows,
      // An attempt opened ahead has a heartbeat timeout as long as its wait plus 10 s (run.workflow.ts);
      // once it sends, its heartbeats still reach the server every 8 s at most, as with 10 s, so a
      // cancellation (overlap `cancel_previous`, a deleted job) arrives as soon as before.
      maxHeartbeatThrottleInterval: ATTEMPT_HEARTBEAT_THROTTLE_MS,
    };
    this.worker = await Worker.create({ ...jobsAndRuns, taskQueue: task_queue });
    this.running = run(this.worker, 'worker');
    const runsQueue = runsTaskQueue(task_queue);
    this.runsWorker = await Worker.create({ ...jobsAndRuns, taskQueue: runsQueue });
    this.runsRunning = run(this.runsWorker, 'runs worker');
    this.alertWorker = await Worker.create({
      ...shared,
      taskQueue: alertsQueue,
      activities: this.alertActivities,
      maxConcurrentActivityTaskExecutions: this.config.alerts.max_concurrent_sends,
      maxConcurrentWorkflowTaskExecutions: 20,
    });
    this.alertsRunning = run(this.alertWorker, 'alert worker');
    const parkedQueue = parkedTaskQueue(task_queue);
    if (this.config.worker.park_idle_after_ms > 0) {
      // Idle jobs wait here instead of in the job worker's cache (docs/architecture.md → Idle jobs
      // are parked): a parked run's history is a few events, so replaying it on each of its rare
      // tasks (its wake, a signal, a query) costs less than keeping it in memory between them.
      // Started with the first job that parks, or now if parked runs wait there already.
      const startParked = async (): Promise<void> => {
        if (this.stopping) {
          throw new Error('shutting down');
        }
        const worker = await Worker.create({
          ...shared,
          taskQueue: parkedQueue,
          maxCachedWorkflows: 0,
          maxConcurrentWorkflowTaskExecutions: 20,
        });
        this.parkedWorker = worker;
        this.parkedRunning = run(worker, 'parked-jobs worker');
        if (this.stopping && worker.getState() === 'RUNNING') {
          worker.shutdown();
        }
        this.logger.log(`polling task queue ${parkedQueue} (idle jobs park)`);
      };
      this.parkedQueue.serveWith(() =>
        startParked().catch((err: unknown) => {
          this.logger.warn(`the parked queue's worker did not start, no job parks for now: ${(err as Error).message}`);
          throw err;
        }),
      );
      if (await this.parkedRunsWaiting(parkedQueue)) {
        await this.parkedQueue.serving();
      }
    }
    if (!this.config.smtp.host) {
      this.logger.warn('SMTP is not configured (smtp.host, smtp.from): email alert channels receive nothing');
    }
    this.logger.log(
      `polling task queues ${[task_queue, runsQueue, alertsQueue, ...(this.parkedWorker ? [parkedQueue] : [])].join(', ')} on ` +
        describeTemporalConnection(this.config.temporal),
    );
  }

  /**
   * Whether parked runs wait on the parked queue (parked by an earlier process, perhaps above a
   * threshold since raised): they need its worker whatever the count says. When visibility cannot
   * tell, yes: an idle worker costs less than parked jobs that never come back.
   */
  private async parkedRunsWaiting(parkedQueue: string): Promise<boolean> {
    try {
      const { count } = await this.client.workflow.count(
        `TaskQueue = '${parkedQueue}' AND ExecutionStatus = 'Running'`,
      );
      return count > 0;
    } catch (err) {
      this.logger.warn(`could not count parked runs, starting the parked queue's worker: ${(err as Error).message}`);
      return true;
    }
  }

  /** The app's shutdown has begun (its first hook): a worker failing from here on is not reported. */
  onModuleDestroy(): void {
    this.stopping = true;
  }

  /**
   * Graceful stop (SIGTERM, SIGINT), first step: both workers stop polling, so no new workflow
   * task or attempt starts here (the periodic passes have stopped their timers just before).
   */
  beforeApplicationShutdown(): void {
    let inFlight = 0;
    for (const worker of [this.worker, this.runsWorker, this.alertWorker, this.parkedWorker]) {
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
  }

  /**
   * Second step: the tasks the workers hold finish (an attempt on the wire is answered or times
   * out under its job's timeout, and is recorded), for up to `worker.shutdown_grace_time`; the
   * connections close after this (`ConnectionsModule`, closed last).
   */
  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.alertsRunning, this.running, this.runsRunning, this.parkedRunning]);
    // Follow-ups the last activities queued (an auto-disable told to its workflow) get their try.
    await this.followUps.drain();
  }
}

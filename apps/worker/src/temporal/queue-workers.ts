import { Inject, Injectable, Logger } from '@nestjs/common';
import type { AppConfig } from '@svc/common';
import {
  ATTEMPT_HEARTBEAT_THROTTLE_MS,
  alertsTaskQueue,
  parkedTaskQueue,
  runsTaskQueue,
} from '@svc/workflow-contract/definitions';
import { Client } from '@temporalio/client';
import { Worker, type WorkerOptions } from '@temporalio/worker';
import type { createActivities } from '../activities';
import type { createAlertActivities } from '../activities/alert.activities';
import {
  ALERT_ACTIVITIES,
  JOB_ACTIVITIES,
  type StartedAtBootstrap,
  WORKER_CONFIG,
  WORKER_LOG_CONTEXT,
} from '../worker.constants';
import { ParkedQueue } from './parked-queue';
import { type SharedWorkerOptions, WorkerRuntime } from './worker-runtime';

/**
 * One Temporal worker of the process, on one task queue, as a provider with its own lifecycle:
 * created and run on bootstrap, stops polling when the app begins to shut down (the periodic
 * passes have stopped their timers just before), and drains on shutdown: the tasks it holds finish
 * (an attempt on the wire is answered or times out under its job's timeout, and is recorded) for up
 * to `worker.shutdown_grace_time`; the connections close after this (`ConnectionsModule`, last).
 */
export abstract class QueueWorker implements StartedAtBootstrap {
  protected readonly logger = new Logger(WORKER_LOG_CONTEXT);
  private worker?: Worker;
  private running?: Promise<void>;

  protected constructor(
    protected readonly runtime: WorkerRuntime,
    /** For log lines: `worker`, `runs worker`, … */
    readonly name: string,
    readonly taskQueue: string,
  ) {}

  /** This worker's own options (activities, slots, cache) over the shared ones. */
  protected abstract options(shared: SharedWorkerOptions): Omit<WorkerOptions, 'taskQueue'>;

  async onApplicationBootstrap(): Promise<void> {
    await this.start();
  }

  /** Whether it polls (the parked queue's worker starts on first need). */
  get started(): boolean {
    return this.worker !== undefined;
  }

  /** Activities it runs now (the shutdown line counts them). */
  get activitiesInFlight(): number {
    return this.worker?.getStatus().numInFlightActivities ?? 0;
  }

  protected async start(): Promise<void> {
    const worker = await Worker.create({ ...this.options(await this.runtime.options()), taskQueue: this.taskQueue });
    this.worker = worker;
    this.running = this.runtime.run(worker, this.name);
    if (this.runtime.shuttingDown) {
      this.stopPolling();
    }
  }

  /** No new workflow task or activity starts here; those it holds go on. */
  stopPolling(): void {
    // The SDK's own signal handler may have asked already (state STOPPING).
    if (this.worker?.getState() === 'RUNNING') {
      this.worker.shutdown();
    }
  }

  beforeApplicationShutdown(): void {
    this.stopPolling();
  }

  /** Settles once the worker has stopped and the tasks it held have finished. */
  async stopped(): Promise<void> {
    await this.running;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.stopped();
  }
}

type JobActivities = ReturnType<typeof createActivities>;

/**
 * Streams of a connection left free of the busy worker's long polls: the light worker beside it
 * (`LIGHT_POLLS`) and the calls that complete tasks, heartbeat and start runs.
 */
export const STREAMS_KEPT_FREE = 25;

/**
 * Enough long polls to drain a backlog at the worker's pace, not at one task per round trip
 * (`worker.max_concurrent_workflow_task_polls`, app-config.ts); half of the workflow polls serve
 * the shared queue, where everything waits after a restart. Never more than the slots they fill,
 * and scaled down to leave `STREAMS_KEPT_FREE` of the connection's streams
 * (`worker.max_streams_per_connection`): behind a proxy that allows 128, 200 idle polls on one
 * connection left no stream to complete a task. Given as poller behaviours: SDK 1.24 ignores
 * `maxConcurrent*TaskPolls` and keeps 10 polls.
 */
export function pollOptions(worker: AppConfig['worker']) {
  const workflow = Math.max(
    2,
    Math.min(worker.max_concurrent_workflow_task_polls, worker.max_concurrent_workflow_tasks),
  );
  const activity = Math.max(1, Math.min(worker.max_concurrent_activity_task_polls, worker.max_concurrent_activities));
  const scale = Math.min(1, (worker.max_streams_per_connection - STREAMS_KEPT_FREE) / (workflow + activity));
  return {
    workflowTaskPollerBehavior: simpleMaximum(Math.max(2, Math.floor(workflow * scale))),
    nonStickyToStickyPollRatio: 0.5,
    activityTaskPollerBehavior: simpleMaximum(Math.max(1, Math.floor(activity * scale))),
  };
}

/** The alerts' and the parked jobs' workers: rare tasks, so few polls beside a busy worker's. */
export const LIGHT_POLLS = {
  workflowTaskPollerBehavior: simpleMaximum(2),
  activityTaskPollerBehavior: simpleMaximum(2),
};

function simpleMaximum(maximum: number): NonNullable<WorkerOptions['workflowTaskPollerBehavior']> {
  return { type: 'simple-maximum', maximum };
}

/**
 * Jobs and runs have a worker each, with slots of their own (docs/architecture.md → Bursts
 * prepared ahead): a job's workflow task holds its slot while its local activities write the
 * burst's run rows and start the runs, and a run started then takes its first workflow task from
 * the runs worker's slots (eager start), which those job tasks never hold. Both register
 * everything, so runs started on the jobs' queue by an earlier version still finish there.
 * Each polls on a connection of its own (`TemporalConnections`): the runs worker on the one the
 * runs are started from, which eager start needs, and the jobs worker on its own.
 */
function jobsAndRunsOptions(config: AppConfig, activities: JobActivities) {
  return {
    activities,
    // Sized for many short tasks: an occurrence is one workflow task of the job, two of the run
    // and one attempt activity that mostly waits, for its instant (a burst prepared ahead holds
    // one slot per occurrence) and on the network (docs/benchmarks.md).
    maxConcurrentActivityTaskExecutions: config.worker.max_concurrent_activities,
    maxConcurrentWorkflowTaskExecutions: config.worker.max_concurrent_workflow_tasks,
    maxConcurrentLocalActivityExecutions: config.worker.max_concurrent_workflow_tasks,
    // Idle jobs fall out of the cache and are replayed on their next wake (docs/benchmarks.md →
    // Idle jobs); busy jobs and the runs in flight stay.
    maxCachedWorkflows: config.worker.max_cached_workflows,
    ...pollOptions(config.worker),
    // An attempt opened ahead has a heartbeat timeout as long as its wait plus 10 s (run.workflow.ts);
    // once it sends, its heartbeats still reach the server every 8 s at most, as with 10 s, so a
    // cancellation (overlap `cancel_previous`, a deleted job) arrives as soon as before.
    maxHeartbeatThrottleInterval: ATTEMPT_HEARTBEAT_THROTTLE_MS,
  };
}

/** The jobs' task queue (`temporal.task_queue`): job workflows and their local activities. */
@Injectable()
export class JobsWorker extends QueueWorker {
  constructor(
    runtime: WorkerRuntime,
    @Inject(WORKER_CONFIG) private readonly config: AppConfig,
    @Inject(JOB_ACTIVITIES) private readonly activities: JobActivities,
  ) {
    super(runtime, 'worker', config.temporal.task_queue);
  }

  protected options(shared: SharedWorkerOptions) {
    return {
      ...shared,
      connection: this.runtime.jobsConnection,
      ...jobsAndRunsOptions(this.config, this.activities),
    };
  }
}

/** The runs' task queue: run workflows and their attempts. */
@Injectable()
export class RunsWorker extends QueueWorker {
  constructor(
    runtime: WorkerRuntime,
    @Inject(WORKER_CONFIG) private readonly config: AppConfig,
    @Inject(JOB_ACTIVITIES) private readonly activities: JobActivities,
  ) {
    super(runtime, 'runs worker', runsTaskQueue(config.temporal.task_queue));
  }

  protected options(shared: SharedWorkerOptions) {
    return { ...shared, ...jobsAndRunsOptions(this.config, this.activities) };
  }
}

/** The alerts' task queue: alert workflows and sends, with their own slots. */
@Injectable()
export class AlertsWorker extends QueueWorker {
  constructor(
    runtime: WorkerRuntime,
    @Inject(WORKER_CONFIG) private readonly config: AppConfig,
    @Inject(ALERT_ACTIVITIES) private readonly activities: ReturnType<typeof createAlertActivities>,
  ) {
    super(runtime, 'alert worker', alertsTaskQueue(config.temporal.task_queue));
  }

  protected options(shared: SharedWorkerOptions) {
    return {
      ...shared,
      activities: this.activities,
      maxConcurrentActivityTaskExecutions: this.config.alerts.max_concurrent_sends,
      maxConcurrentWorkflowTaskExecutions: 20,
      ...LIGHT_POLLS,
    };
  }
}

/**
 * The parked queue (docs/architecture.md → Idle jobs are parked): idle jobs wait here
 * instead of in the job worker's cache. A parked run's history is a few events, so replaying it on
 * each of its rare tasks (its wake, a signal, a query) costs less than keeping it in memory. Started
 * with the first job that parks (`ParkedQueue`), or on bootstrap if parked runs wait there already;
 * never with parking off.
 */
@Injectable()
export class ParkedJobsWorker extends QueueWorker {
  private bootstrapped = false;

  constructor(
    runtime: WorkerRuntime,
    @Inject(WORKER_CONFIG) private readonly config: AppConfig,
    private readonly parkedQueue: ParkedQueue,
    private readonly client: Client,
  ) {
    super(runtime, 'parked-jobs worker', parkedTaskQueue(config.temporal.task_queue));
  }

  protected options(shared: SharedWorkerOptions) {
    return {
      ...shared,
      connection: this.runtime.jobsConnection,
      maxCachedWorkflows: 0,
      maxConcurrentWorkflowTaskExecutions: 20,
      ...LIGHT_POLLS,
    };
  }

  override async onApplicationBootstrap(): Promise<void> {
    if (this.config.worker.park_idle_after_ms <= 0) {
      return;
    }
    this.parkedQueue.serveWith(async () => {
      if (this.runtime.shuttingDown) {
        throw new Error('shutting down');
      }
      await this.start().catch((err: unknown) => {
        this.logger.warn(`the parked queue's worker did not start, no job parks for now: ${(err as Error).message}`);
        throw err;
      });
      // Started on bootstrap, it is named in WorkerService's start-up line, after the others poll.
      if (this.bootstrapped) {
        this.logger.log(`polling task queue ${this.taskQueue} (idle jobs park)`);
      }
    });
    if (await this.parkedRunsWaiting()) {
      await this.parkedQueue.serving();
    }
    this.bootstrapped = true;
  }

  /**
   * Whether parked runs wait on the parked queue (parked by an earlier process, perhaps above a
   * threshold since raised): they need its worker whatever the count says. When visibility cannot
   * tell, yes: an idle worker costs less than parked jobs that never come back.
   */
  private async parkedRunsWaiting(): Promise<boolean> {
    try {
      const { count } = await this.client.workflow.count(
        `TaskQueue = '${this.taskQueue}' AND ExecutionStatus = 'Running'`,
      );
      return count > 0;
    } catch (err) {
      this.logger.warn(`could not count parked runs, starting the parked queue's worker: ${(err as Error).message}`);
      return true;
    }
  }
}

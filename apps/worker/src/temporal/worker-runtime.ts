import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { AppConfig } from '@svc/common';
import {
  bundleWorkflowCode,
  DefaultLogger,
  type NativeConnection,
  type Worker,
  type WorkerOptions,
} from '@temporalio/worker';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { DATA_CONVERTER, type DataConverterOptions, WORKER_CONFIG, WORKER_LOG_CONTEXT } from '../worker.constants';
import { TemporalConnections } from './connect';
import { activityLogInterceptor } from './logging';
import { workerTracingOptions } from './tracing';
import { watchWorkerFailure } from './worker-failure';
import { ROOT, workflowBundleFile, workflowBundleOptions } from './workflow-bundle';

/** What every Temporal worker of the process shares; each adds its task queue, activities and slots. */
export type SharedWorkerOptions = Omit<WorkerOptions, 'taskQueue'>;

/**
 * The workflow code every worker runs: the bundle written at build time (`dist/workflow-bundle.js`,
 * or `workflow-bundle-traced.js` with the tracing interceptors), else one bundle of the sources made
 * once for all workers (tests and development, style.md rule 10: bundling is the slow part).
 */
async function workflowCode(traced: boolean): Promise<Pick<WorkerOptions, 'workflowBundle'>> {
  const bundle = resolve(ROOT, workflowBundleFile(traced));
  if (existsSync(bundle)) {
    return { workflowBundle: { codePath: bundle } };
  }
  const source = workflowBundleOptions(resolve(ROOT, 'temporal/workflows'), traced);
  return { workflowBundle: await bundleWorkflowCode({ ...source, logger: new DefaultLogger('WARN') }) };
}

/**
 * What the Temporal workers of this process share (`queue-workers.ts`): their options, built once,
 * and how a worker is run: `run()` tracked, and the first worker that stops by itself (a fatal
 * error: the namespace gone, credentials refused) settles `failure`, on which the process stops as
 * a whole and exits 1 (`main.ts`), so that its supervisor restarts it rather than leave it half
 * running.
 */
@Injectable()
export class WorkerRuntime implements OnModuleDestroy {
  private readonly logger = new Logger(WORKER_LOG_CONTEXT);
  private shared?: Promise<SharedWorkerOptions>;
  /** Set once the app shuts down: a worker that stops then is not a failure. */
  private stopping = false;
  private reportFailure!: (err: Error) => void;
  readonly failure = new Promise<Error>((resolve) => {
    this.reportFailure = resolve;
  });

  constructor(
    @Inject(WORKER_CONFIG) private readonly config: AppConfig,
    private readonly connections: TemporalConnections,
    @Inject(DATA_CONVERTER) private readonly converter: DataConverterOptions,
  ) {}

  /** The jobs' and parked jobs' workers poll here; the others on the shared options' connection. */
  get jobsConnection(): NativeConnection {
    return this.connections.jobs;
  }

  get shuttingDown(): boolean {
    return this.stopping;
  }

  /** The connection, the workflow code, the codec, tracing and log interceptors and the shutdown grace. */
  options(): Promise<SharedWorkerOptions> {
    this.shared ??= (async () => {
      // Tracing (docs/operations.md → Traces): the workers get the tracing interceptors and span sink.
      const traced = this.config.tracing.enabled;
      const tracing = workerTracingOptions(traced);
      return {
        connection: this.connections.worker,
        namespace: this.config.temporal.namespace,
        // SIGTERM (docs/operations.md → Faults): polling stops at once; an attempt in flight keeps
        // running, bounded by its job's timeout, and is recorded before the worker exits.
        shutdownGraceTime: this.config.worker.shutdown_grace_time_ms,
        ...(await workflowCode(traced)),
        ...tracing,
        ...this.converter,
        // Activity log lines carry run_id, job_id and the attempt (docs/operations.md → Logs).
        interceptors: {
          ...tracing.interceptors,
          activity: [activityLogInterceptor, ...(tracing.interceptors?.activity ?? [])],
        },
      };
    })();
    return this.shared;
  }

  /** Runs `worker` until it stops; a stop before the app's shutdown is the process's failure. */
  run(worker: Worker, name: string): Promise<void> {
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
  }

  /** The app's shutdown has begun (its first hook): a worker failing from here on is not reported. */
  onModuleDestroy(): void {
    this.stopping = true;
  }
}

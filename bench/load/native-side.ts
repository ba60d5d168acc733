/**
 * The native side of the load bench: a Temporal worker in the bench process, N Temporal
 * Schedules starting `nativeDeliver` on its task queue, and the no-op workflow ceiling.
 */
import {
  Client,
  Connection,
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
} from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { join } from 'node:path';
import { createNativeActivities } from './activities';
import { API_CONCURRENCY, dailyCronAt } from './service-side';
import { forEachLimited, range, round, timed } from './util';

export interface TemporalTarget {
  address: string;
  namespace: string;
}

/**
 * Warnings only, and no signal handlers of the SDK's own: Ctrl-C belongs to the bench, which
 * deletes what it created before the worker stops. Call once, before any connection.
 */
export function installQuietRuntime(): void {
  Runtime.install({ logger: new DefaultLogger('WARN'), shutdownSignals: [] });
}

export async function connectClient(target: TemporalTarget): Promise<{ client: Client; close: () => Promise<void> }> {
  const connection = await Connection.connect({ address: target.address });
  return { client: new Client({ connection, namespace: target.namespace }), close: () => connection.close() };
}

export interface BenchWorker {
  taskQueue: string;
  stop(): Promise<void>;
}

/** A worker for `nativeDeliver` and `noop`, bundling `workflows.ts` at start (a few seconds). */
export async function startBenchWorker(target: TemporalTarget, taskQueue: string): Promise<BenchWorker> {
  const connection = await NativeConnection.connect({ address: target.address });
  const worker = await Worker.create({
    connection,
    namespace: target.namespace,
    taskQueue,
    workflowsPath: join(__dirname, 'workflows.ts'),
    activities: createNativeActivities(),
  });
  let failure: unknown;
  const running = worker.run().catch((err: unknown) => {
    failure = err;
  });
  return {
    taskQueue,
    async stop() {
      if (worker.getState() === 'RUNNING') {
        worker.shutdown();
      }
      await running;
      await connection.close();
      if (failure !== undefined) {
        throw failure;
      }
    },
  };
}

export interface NativeSchedulesOptions {
  client: Client;
  count: number;
  intervalS: number;
  receiverUrl: string;
  runId: string;
  taskQueue: string;
  /** Cron `* * * * *` like the service's aligned jobs (the same second 0 of each minute). */
  aligned?: boolean;
}

/** The N Schedules of one run, `bench-native-<run>-<i>`, firing at multiples of the interval since the epoch. */
export class NativeSchedules {
  readonly createMs: number[] = [];
  /** Ids that may exist on the server: every id whose create was sent and not yet deleted. */
  private readonly maybeExisting = new Set<string>();

  constructor(private readonly options: NativeSchedulesOptions) {}

  scheduleId(index: number): string {
    return `bench-native-${this.options.runId}-${index}`;
  }

  /** Creates the Schedules; with `instantMs`, daily ones that all fire at that one instant. */
  async create(signal: AbortSignal, instantMs: number | null = null): Promise<void> {
    const { client, count, intervalS, receiverUrl, taskQueue } = this.options;
    await forEachLimited(
      range(count),
      API_CONCURRENCY,
      async (i) => {
        const scheduleId = this.scheduleId(i);
        this.maybeExisting.add(scheduleId);
        const { ms } = await timed(() =>
          createRetried(() =>
            client.schedule.create({
              scheduleId,
              // Offset 0: fires at Epoch + n × interval, the same instants as the service's Quartz job.
              spec:
                instantMs !== null
                  ? { cronExpressions: [dailyCronAt(instantMs)] }
                  : this.options.aligned
                    ? { cronExpressions: ['* * * * *'] }
                    : { intervals: [{ every: `${intervalS}s`, offset: 0 }] },
              action: {
                type: 'startWorkflow',
                workflowType: 'nativeDeliver',
                args: [`${receiverUrl}/native/${i}`],
                taskQueue,
              },
              policies: { overlap: ScheduleOverlapPolicy.ALLOW_ALL, catchupWindow: '1 minute' },
            }),
          ),
        );
        this.createMs.push(ms);
      },
      signal,
    );
  }

  async remove(): Promise<void> {
    const { client } = this.options;
    await forEachLimited([...this.maybeExisting], API_CONCURRENCY, async (scheduleId) => {
      try {
        await client.schedule.getHandle(scheduleId).delete();
      } catch (err) {
        if (!(err instanceof ScheduleNotFoundError)) {
          throw err;
        }
      }
      this.maybeExisting.delete(scheduleId);
    });
  }
}

export interface NoopCeiling {
  workflows: number;
  concurrency: number;
  seconds: number;
  perSecond: number;
}

/**
 * Starts `total` no-op workflows, `concurrency` at a time, each awaited to completion: how many
 * workflows a second this server and worker can start and finish with no work in them. A first
 * batch warms the worker's workflow cache and is not counted.
 */
export async function measureNoopCeiling(
  client: Client,
  options: { taskQueue: string; runId: string; total: number; concurrency: number },
  signal: AbortSignal,
): Promise<NoopCeiling> {
  const { taskQueue, runId, total, concurrency } = options;
  const execute = (id: string) => client.workflow.execute('noop', { taskQueue, workflowId: id, args: [] });
  await forEachLimited(range(concurrency), concurrency, (i) => execute(`bench-noop-${runId}-warm-${i}`), signal);
  const { ms } = await timed(() =>
    forEachLimited(range(total), concurrency, (i) => execute(`bench-noop-${runId}-${i}`), signal),
  );
  return { workflows: total, concurrency, seconds: round(ms / 1000, 2), perSecond: round(total / (ms / 1000), 1) };
}

/**
 * A create retried through the dev server's transient refusals under a burst of creates (it has
 * answered `NamespaceNotFoundError: 'default'` while loaded); a try that had in fact created the
 * Schedule finds it running, which counts as created.
 */
async function createRetried(create: () => Promise<unknown>): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await create();
      return;
    } catch (err) {
      if (err instanceof ScheduleAlreadyRunning && attempt > 1) {
        return;
      }
      if (attempt >= 5 || err instanceof ScheduleAlreadyRunning) {
        throw err;
      }
      await new Promise((resolve) => setTimeout(resolve, 1_000 * attempt));
    }
  }
}

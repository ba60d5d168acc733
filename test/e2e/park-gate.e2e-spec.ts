import { parkedTaskQueue } from '@svc/workflow-contract/definitions';
import { sleep, waitFor } from '../utils/receiver';
import { useStackReceiverAndClient } from '../utils/stack';

/**
 * Parking by default, above a job count (issue 25, docs/architecture.md → Idle jobs are parked):
 * with the default `worker.park_idle_after` (1h), a deployment holding no more jobs than
 * `worker.park_above_jobs` keeps every idle job in the worker's cache, with its Web UI summary on
 * the running workflow; once it holds more, an idle job parks at its next plan, and its summary
 * stays readable on the job's first run.
 */
describe('parking gate by job count (real worker, real dev server)', () => {
  // Default park_idle_after; a threshold of 2 jobs stands in for the default 1,000.
  const e2e = useStackReceiverAndClient({ config: { worker: { park_above_jobs: 2 } } });

  it('should keep idle jobs in the cache up to the threshold and park them once the deployment holds more', async () => {
    const queue = e2e.stack.config.temporal.task_queue;
    const create = async (name: string) =>
      (
        await e2e.api('POST', '/api/v1/jobs', {
          name,
          // Years away: always more than park_idle_after from now.
          schedule: { expr: '0 0 0 1 1 ? 2031' },
          sink: { kind: 'webhook', config: { url: `${e2e.receiver.url}/${name}` } },
        })
      ).body as { id: string };
    const sleepingOn = async (jobId: string) => {
      const handle = e2e.client.workflow.getHandle(jobId);
      const description = await handle.describe().catch(() => null);
      if (description?.status.name !== 'RUNNING') {
        return null;
      }
      const events = (await handle.fetchHistory()).events ?? [];
      return events.some((event) => event.timerStartedEventAttributes) ? description : null;
    };

    const parkedQueuePollers = async () =>
      (
        await e2e.client.workflowService.describeTaskQueue({
          namespace: e2e.stack.config.temporal.namespace,
          taskQueue: { name: parkedTaskQueue(queue) },
          taskQueueType: 1, // WORKFLOW
        })
      ).pollers?.length ?? 0;

    const first = await create('first');
    const cached = await waitFor(() => sleepingOn(first.id), 30_000);
    expect(cached.taskQueue).toBe(queue);
    expect(await cached.staticSummary()).toMatch(/^first · /);
    // Below the threshold nothing parks, and no worker polls the parked queue (its thread is saved).
    expect(await parkedQueuePollers()).toBe(0);

    // Two jobs: at the threshold, still cached.
    const second = await create('second');
    expect((await waitFor(() => sleepingOn(second.id), 30_000)).taskQueue).toBe(queue);
    expect(await parkedQueuePollers()).toBe(0);
    // The third crosses it. The gate reads the count again once the plans since its last read
    // could be new jobs past the threshold (at most once a second), so the third job's first plan
    // parks it: a bulk create does not leave jobs cached for a day on a stale count.
    await sleep(1_100);
    const third = await create('third');
    const thirdParked = await waitFor(async () => {
      const description = await sleepingOn(third.id);
      return description?.taskQueue === parkedTaskQueue(queue) ? description : null;
    }, 30_000);
    expect(thirdParked.runId).toBeDefined();
    // The first job, cached before the crossing, parks on its next change (the "park" is kept).
    const patched = await e2e.api('PATCH', `/api/v1/jobs/${first.id}`, { description: 'parks now' });
    expect(patched.status).toBe(200);
    const parked = await waitFor(async () => {
      const description = await sleepingOn(first.id);
      return description?.taskQueue === parkedTaskQueue(queue) ? description : null;
    }, 30_000);
    expect(await parkedQueuePollers()).toBeGreaterThan(0);
    // A continued run has no static summary; the job's first run keeps it.
    expect(await parked.staticSummary()).toBeUndefined();
    const firstRun = await e2e.client.workflow.getHandle(first.id, cached.runId).describe();
    expect(firstRun.status.name).toBe('CONTINUED_AS_NEW');
    expect(await firstRun.staticSummary()).toBe(await cached.staticSummary());
    // The parked run still answers `describe`, with the change applied.
    const state = (await e2e.client.workflow.getHandle(first.id).query('describe')) as { revision?: number };
    expect(state.revision).toBeGreaterThan(1);

    // A worker that starts below its threshold (raised here) but finds a parked run waiting serves
    // the parked queue at once: the parked job comes back on its next change and stays in the cache.
    await e2e.stack.stopWorker();
    e2e.stack.config.worker.park_above_jobs = 1_000;
    await e2e.stack.startWorker();
    const revision = Number(
      (await e2e.stack.dataSource.query('SELECT revision FROM jobs WHERE id = $1', [first.id]))[0].revision,
    );
    expect((await e2e.api('PATCH', `/api/v1/jobs/${first.id}`, { description: 'comes back' })).status).toBe(200);
    const back = await waitFor(async () => {
      const description = await sleepingOn(first.id);
      const memo = description?.memo as { revision?: number } | undefined;
      return description?.taskQueue === queue && memo?.revision === revision + 1 ? description : null;
    }, 30_000);
    expect(back.runId).not.toBe(parked.runId);
  }, 240_000);
});

import { JobWorkflowGateway } from '@svc/orchestration';
import { JobsRepository } from '@svc/persistence';
import { parkedTaskQueue } from '@svc/workflow-contract/definitions';
import { reconcileJobWorkflows } from '../../apps/worker/src/reconciler/reconciler';
import { waitFor } from '../utils/receiver';
import { useStackReceiverAndClient } from '../utils/stack';

/**
 * The reconciler and parked jobs (issue 25, docs/architecture.md → Idle jobs are parked): a job
 * waiting on `<task_queue>-parked` is this deployment's running workflow like any other. A pass
 * over a parked job in sync sends it nothing (no signal, no replay, no trip back to the worker's
 * cache); a parked job behind its row's revision gets the snapshot and goes back to apply it.
 */
describe('reconciler with parked jobs (real worker, real dev server)', () => {
  const e2e = useStackReceiverAndClient({ config: { worker: { park_idle_after: '2m', park_above_jobs: 0 } } });

  async function reconcile() {
    const { config, dataSource } = e2e.stack;
    return reconcileJobWorkflows({
      jobs: new JobsRepository(dataSource),
      gateway: new JobWorkflowGateway(e2e.client, config.temporal.task_queue),
      client: e2e.client,
      config,
    });
  }

  it('should leave a parked job in sync untouched and bring a parked job behind its row back', async () => {
    const queue = e2e.stack.config.temporal.task_queue;
    const job = (
      await e2e.api('POST', '/api/v1/jobs', {
        name: 'hourly, parked between occurrences',
        schedule: { expr: 'every 1 hour' },
        sink: { kind: 'webhook', config: { url: `${e2e.receiver.url}/hourly` } },
      })
    ).body;
    const revisionOf = async () =>
      Number((await e2e.stack.dataSource.query('SELECT revision FROM jobs WHERE id = $1', [job.id]))[0].revision);
    const handle = e2e.client.workflow.getHandle(job.id);
    // Its next wake is about an hour away: it continues-as-new onto the parked queue.
    // (The API starts the workflow right after its answer: not found at first.)
    await waitFor(
      async () => (await handle.describe().catch(() => null))?.taskQueue === parkedTaskQueue(queue),
      30_000,
    );
    const parked = await handle.describe();
    // Right away, before the parked run's first task has run: it starts with the revision in its
    // memo (carried by the continue-as-new), so the pass finds it in sync.
    expect(await reconcile()).toEqual({ checked: 1, upserted: 0, stopped: 0 });

    // Once it sleeps on its timer, a pass adds nothing to its history: no signal, no task.
    const sleeping = async () =>
      (await handle.fetchHistory()).events!.some((event) => event.timerStartedEventAttributes);
    await waitFor(sleeping, 20_000);
    const parkedEvents = (await handle.fetchHistory()).events!.length;
    expect(await reconcile()).toEqual({ checked: 1, upserted: 0, stopped: 0 });
    const after = await handle.describe();
    expect(after.runId).toBe(parked.runId);
    expect(after.taskQueue).toBe(parkedTaskQueue(queue));
    const events = (await handle.fetchHistory()).events!;
    expect(events).toHaveLength(parkedEvents);
    expect(events.some((event) => event.workflowExecutionSignaledEventAttributes)).toBe(false);

    // The row moves ahead behind the workflow's back (a lost signal): the next pass repairs it.
    await e2e.stack.dataSource.query('UPDATE jobs SET revision = revision + 1 WHERE id = $1', [job.id]);
    const revision = await revisionOf();
    expect(await reconcile()).toEqual({ checked: 1, upserted: 1, stopped: 0 });
    // The parked run takes the snapshot back to the jobs' queue, applies it and parks again.
    await waitFor(async () => {
      const memo = (await handle.describe()).memo as { revision?: number } | undefined;
      return memo?.revision === revision;
    }, 30_000);
    expect(await reconcile()).toEqual({ checked: 1, upserted: 0, stopped: 0 });
  });
});

import { useStackReceiverAndClient } from '../utils/stack';
import { waitFor } from '../utils/receiver';

/**
 * The reconciler (worker start-up): every active job gets its workflow back, and a workflow whose
 * job row is gone is stopped (docs/architecture.md → How a job becomes a workflow, step 6).
 */
describe('job ⇄ workflow reconciler', () => {
  const e2e = useStackReceiverAndClient();

  it('should restore a lost job workflow and stop an orphaned one when the worker starts', async () => {
    const job = (
      await e2e.api('POST', '/api/v1/jobs', {
        name: 'lost workflow',
        schedule: { expr: 'every 2 seconds' },
        sink: { kind: 'webhook', config: { url: `${e2e.receiver.url}/r` } },
      })
    ).body;
    const orphan = (
      await e2e.api('POST', '/api/v1/jobs', {
        name: 'orphan',
        schedule: { expr: 'every 1 hour' },
        sink: { kind: 'webhook', config: { url: `${e2e.receiver.url}/o` } },
      })
    ).body;
    await waitFor(() => e2e.receiver.forJob(job.id).length >= 1);

    await e2e.stack.stopWorker();
    await e2e.client.workflow.getHandle(job.id).terminate('simulated loss');
    // The orphan's row disappears behind the API's back: its workflow must not live on.
    await e2e.stack.dataSource.query('DELETE FROM jobs WHERE id = $1', [orphan.id]);
    const before = e2e.receiver.forJob(job.id).length;

    await e2e.stack.startWorker();
    await waitFor(() => e2e.receiver.forJob(job.id).length >= before + 2, 30_000);
    const described = await e2e.client.workflow.getHandle(job.id).describe();
    expect(described.status.name).toBe('RUNNING');
    await waitFor(
      async () => (await e2e.client.workflow.getHandle(orphan.id).describe()).status.name === 'COMPLETED',
      20_000,
    );
  });
});

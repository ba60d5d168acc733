import { Client, Connection } from '@temporalio/client';
import { apiClient, startStack, temporalAddress, type Stack } from '../utils/stack';
import { waitFor, WebhookReceiver } from '../utils/receiver';

/**
 * The reconciler (worker start-up): every active job gets its workflow back, and a workflow whose
 * job row is gone is stopped (docs/architecture.md → How a job becomes a workflow, step 6).
 */
describe('job ⇄ workflow reconciler', () => {
  let stack: Stack;
  let receiver: WebhookReceiver;
  let connection: Connection;
  let client: Client;

  beforeAll(async () => {
    stack = await startStack();
    receiver = await WebhookReceiver.start();
    connection = await Connection.connect({ address: temporalAddress() });
    client = new Client({ connection });
  });

  afterAll(async () => {
    await connection?.close();
    await stack?.stop();
    await receiver?.stop();
  });

  it('should restore a lost job workflow and stop an orphaned one when the worker starts', async () => {
    const api = apiClient(stack.baseUrl, stack.apiKey);
    const job = (
      await api('POST', '/api/v1/jobs', {
        name: 'lost workflow',
        schedule: { expr: 'every 2 seconds' },
        sink: { kind: 'webhook', config: { url: `${receiver.url}/r` } },
      })
    ).body;
    const orphan = (
      await api('POST', '/api/v1/jobs', {
        name: 'orphan',
        schedule: { expr: 'every 1 hour' },
        sink: { kind: 'webhook', config: { url: `${receiver.url}/o` } },
      })
    ).body;
    await waitFor(() => receiver.forJob(job.id).length >= 1);

    await stack.stopWorker();
    await client.workflow.getHandle(job.id).terminate('simulated loss');
    // The orphan's row disappears behind the API's back: its workflow must not live on.
    await stack.dataSource.query('DELETE FROM jobs WHERE id = $1', [orphan.id]);
    const before = receiver.forJob(job.id).length;

    await stack.startWorker();
    await waitFor(() => receiver.forJob(job.id).length >= before + 2, 30_000);
    const described = await client.workflow.getHandle(job.id).describe();
    expect(described.status.name).toBe('RUNNING');
    await waitFor(
      async () => (await client.workflow.getHandle(orphan.id).describe()).status.name === 'COMPLETED',
      20_000,
    );
  });
});

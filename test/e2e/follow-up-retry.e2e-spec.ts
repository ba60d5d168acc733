import { Client, Connection } from '@temporalio/client';
import { sleep, waitFor } from '../utils/receiver';
import { apiClient, startStack, temporalAddress, type Stack } from '../utils/stack';
import { TcpProxy } from '../utils/tcp-proxy';

/**
 * The API's Temporal follow-ups are retried (docs/operations.md → Faults): a job created,
 * changed or deleted while the API cannot reach Temporal is answered at once from PostgreSQL,
 * and its workflow is started, signalled or stopped once Temporal is reachable again, by the API
 * itself (1 s doubling to 30 s). No worker runs here, so no reconciler can do it instead; the
 * API reaches Temporal through a loopback TCP proxy that the test takes down and brings back.
 */
describe('Temporal follow-ups of job changes are retried', () => {
  let stack: Stack;
  let api: ReturnType<typeof apiClient>;
  let proxy: TcpProxy;
  let connection: Connection;
  let client: Client;

  beforeAll(async () => {
    proxy = await TcpProxy.start(temporalAddress());
    const saved = process.env.TEST_TEMPORAL_ADDRESS;
    process.env.TEST_TEMPORAL_ADDRESS = proxy.address;
    try {
      stack = await startStack({ worker: false });
    } finally {
      if (saved === undefined) {
        delete process.env.TEST_TEMPORAL_ADDRESS;
      } else {
        process.env.TEST_TEMPORAL_ADDRESS = saved;
      }
    }
    api = apiClient(stack.baseUrl, stack.apiKey);
    connection = await Connection.connect({ address: temporalAddress() });
    client = new Client({ connection });
  });

  afterAll(async () => {
    await proxy?.up();
    await stack?.stop();
    await connection?.close();
    await proxy?.stop();
  });

  const hourly = (name: string) => ({
    name,
    schedule: { expr: 'every 1 hour' },
    sink: { kind: 'webhook', config: { url: 'http://127.0.0.1:9/never' } },
  });
  /** The names of the signals the job's workflow received (no worker runs: they stay in its history). */
  const signals = async (jobId: string) => {
    const { events } = await client.workflow.getHandle(jobId).fetchHistory();
    return (events ?? []).flatMap((e): string[] => {
      const name = e.workflowExecutionSignaledEventAttributes?.signalName;
      return name ? [name] : [];
    });
  };

  it('should start, signal and stop job workflows once Temporal is back, without the reconciler', async () => {
    const changed = (await api('POST', '/api/v1/jobs', hourly('changed while down'))).body;
    const deleted = (await api('POST', '/api/v1/jobs', hourly('deleted while down'))).body;
    await waitFor(async () => (await signals(changed.id).catch((): string[] => [])).length === 1);
    await waitFor(async () => (await signals(deleted.id).catch((): string[] => [])).length === 1);

    proxy.down();
    const created = await api('POST', '/api/v1/jobs', hourly('created while down'));
    expect(created.status).toBe(201);
    expect((await api('DELETE', `/api/v1/jobs/${deleted.id}`)).status).toBe(204);
    // PATCH tries its signal before answering (the client's own gRPC retries, about 20 s), then
    // answers and leaves the signal to the follow-up.
    const patched = await api('PATCH', `/api/v1/jobs/${changed.id}`, { description: 'changed' });
    expect(patched.status).toBe(200);
    // Let the first tries of the create and the delete end as well (not an assertion).
    await sleep(3_000);
    await expect(client.workflow.getHandle(created.body.id).describe()).rejects.toThrow();

    await proxy.up();
    await waitFor(
      async () => {
        const [ofCreated, ofChanged, ofDeleted] = await Promise.all(
          [created.body.id, changed.id, deleted.id].map((id) => signals(id).catch((): string[] => [])),
        );
        return (
          ofCreated.length === 1 &&
          ofChanged.filter((name) => name === 'jobChanged').length === 2 &&
          ofDeleted.includes('jobDeleted')
        );
      },
      60_000,
      500,
    );
    expect((await client.workflow.getHandle(created.body.id).describe()).status.name).toBe('RUNNING');
  }, 180_000);
});

import { JobWorkflowGateway } from '@svc/orchestration';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { msToTs } from '@temporalio/common/lib/time';
import type { JobSnapshot } from '@svc/workflow-contract/definitions';

/**
 * A keyed job on a namespace upgraded without registering `SvcJobKey` (issue 42): the server
 * refuses the start, and the job must start all the same, without the attribute, with a warning.
 * The refusal arrives wrapped (`Failed to signalWithStart Workflow`, the reason in its cause), so
 * this runs against the real dev server, whose own message is the one that must be recognised.
 */
describe('JobWorkflowGateway on a namespace without SvcJobKey (dev server)', () => {
  const address = process.env.TEST_TEMPORAL_ADDRESS ?? '127.0.0.1:7233';
  const namespace = `svc-nokey-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  let connection: Connection;
  let client: Client;

  beforeAll(async () => {
    connection = await Connection.connect({ address });
    await connection.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: msToTs('1 day'),
    });
    client = new Client({ connection, namespace });
    // The attributes of the release before keys, not SvcJobKey. A new namespace is served (and
    // takes attributes) once the frontend's namespace cache has it: retried for up to 10 s.
    const KEYWORD = temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
    for (let i = 0; ; i++) {
      try {
        await connection.operatorService.addSearchAttributes({
          namespace,
          searchAttributes: { SvcJobId: KEYWORD, SvcWorkspaceId: KEYWORD },
        });
        break;
      } catch (err) {
        if (i >= 50) {
          throw err;
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  });

  afterAll(async () => {
    await connection?.close();
  });

  const snapshot = (jobId: string): JobSnapshot =>
    ({
      jobId,
      workspaceId: 'ws_01JTESTWORKSPACE0000000000',
      revision: 1,
      version: 1,
      state: 'paused',
      schedule: { kind: 'rrule', rrule: 'FREQ=DAILY', timezone: 'UTC', canonical: 'FREQ=DAILY' },
      misfirePolicy: 'fire_once',
      misfireThresholdMs: 60_000,
    }) as unknown as JobSnapshot;

  it('starts the keyed job without the attribute and says so', async () => {
    const warnings: string[] = [];
    const gateway = new JobWorkflowGateway(client, `nokey-${process.pid}`, (message) => warnings.push(message));
    const jobId = `job_01JNOKEY${Date.now()}`;
    await gateway.upsertJob(snapshot(jobId), { key: 'billing.nightly' });

    const description = await client.workflow.getHandle(jobId).describe();
    expect(description.status.name).toBe('RUNNING');
    expect(description.searchAttributes.SvcJobKey).toBeUndefined();
    expect(warnings).toEqual([expect.stringContaining(`SvcJobKey is not registered in the namespace; job ${jobId}`)]);
    await client.workflow.getHandle(jobId).terminate('test done');
  });

  it('still fails a start that is refused for another reason', async () => {
    const elsewhere = new Client({ connection, namespace: `${namespace}-missing` });
    const gateway = new JobWorkflowGateway(elsewhere, `nokey-${process.pid}`, () => undefined);
    await expect(gateway.upsertJob(snapshot(`job_01JMISSING${Date.now()}`), { key: 'k' })).rejects.toThrow();
  });
});

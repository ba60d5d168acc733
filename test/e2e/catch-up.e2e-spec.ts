import { JobsRepository } from '@svc/persistence';
import { toJobSnapshot } from '@svc/orchestration';
import { JOB_WORKFLOW, type JobWorkflowInput } from '@svc/workflow-contract/definitions';
import { Client, Connection } from '@temporalio/client';
import { apiClient, startStack, temporalAddress, type Stack } from '../utils/stack';
import { waitFor, WebhookReceiver } from '../utils/receiver';

interface RunRow {
  id: string;
  scheduled_at: string;
  status: string;
  skip_reason?: string | null;
}

/**
 * Every catch-up recorded (decisions.md → misfire_policy, issue 22): a `fire_all` job whose
 * workflow resumes 300 one-second occurrences late (its `after` set back, as after an outage)
 * delivers the latest 100 missed ones oldest first and records every older one as a `skipped`
 * run with `skip_reason: misfire`, one row per occurrence, so its run history has no hole.
 */
describe('fire_all catch-up beyond the limit', () => {
  let stack: Stack;
  let receiver: WebhookReceiver;
  let connection: Connection;

  beforeAll(async () => {
    stack = await startStack({ config: { scheduler: { reconcile_interval: '1h', misfire_threshold: '3s' } } });
    receiver = await WebhookReceiver.start();
    connection = await Connection.connect({ address: temporalAddress() });
  });

  afterAll(async () => {
    await connection?.close();
    await stack?.stop();
    await receiver?.stop();
  });

  it('should deliver the latest 100 missed occurrences and record the other 150+ as skipped misfires', async () => {
    const api = apiClient(stack.baseUrl, stack.apiKey);
    const created = await api('POST', '/api/v1/jobs', {
      name: 'catch-up',
      schedule: { expr: 'every 1 second' },
      misfire_policy: 'fire_all',
      sink: { kind: 'webhook', config: { url: `${receiver.url}/catch-up` } },
    });
    expect(created.status).toBe(201);
    const jobId = created.body.id as string;
    await api('POST', `/api/v1/jobs/${jobId}/pause`);
    const client = new Client({ connection, namespace: stack.config.temporal.namespace });
    await client.workflow.getHandle(jobId).terminate('test: resume 300 occurrences late');

    // The job workflow as it stood 300 s ago: every occurrence since is due at once.
    const resumedFrom = Math.floor(Date.now() / 1_000) * 1_000 - 300_000;
    // Interval schedules are phased from their anchor (the creation): move it before that instant.
    await stack.dataSource.query(`UPDATE jobs SET state = 'active', schedule_anchor = $2 WHERE id = $1`, [
      jobId,
      new Date(resumedFrom - 60_000),
    ]);
    const job = (await new JobsRepository(stack.dataSource).findByIdUnscoped(jobId))!;
    const input: JobWorkflowInput = {
      snapshot: { ...toJobSnapshot(job, stack.config), state: 'active' },
      after: new Date(resumedFrom).toISOString(),
    };
    await client.workflow.start(JOB_WORKFLOW, {
      workflowId: jobId,
      taskQueue: stack.config.temporal.task_queue,
      args: [input],
    });

    const runs = async () => {
      const all: RunRow[] = [];
      let cursor: string | undefined;
      do {
        const page = await api('GET', `/api/v1/jobs/${jobId}/runs?limit=200${cursor ? `&cursor=${cursor}` : ''}`);
        all.push(...(page.body.data as RunRow[]));
        cursor = page.body.next_cursor ?? undefined;
      } while (cursor);
      return all;
    };
    // The catch-up is the first plan: wait for its 100 deliveries and its skipped rows.
    await waitFor(async () => (await runs()).filter((r) => r.status === 'succeeded').length >= 100, 90_000);
    await api('DELETE', `/api/v1/jobs/${jobId}`);

    const all = (await runs()).sort((a, b) => a.scheduled_at.localeCompare(b.scheduled_at));
    const caughtUp = all.filter((r) => Date.parse(r.scheduled_at) <= resumedFrom + 296_000);
    // One row per occurrence, none missing: every second from the resumed instant on.
    const seconds = caughtUp.map((r) => (Date.parse(r.scheduled_at) - resumedFrom) / 1_000);
    expect(seconds).toEqual(Array.from({ length: seconds.length }, (_, i) => i + 1));
    expect(seconds.length).toBeGreaterThanOrEqual(250);
    const skipped = caughtUp.filter((r) => r.status === 'skipped');
    const delivered = caughtUp.filter((r) => r.status !== 'skipped');
    expect(skipped.length).toBeGreaterThanOrEqual(150);
    expect(skipped.every((r) => r.skip_reason === 'misfire')).toBe(true);
    // The skipped ones are the oldest; the latest missed ones are delivered, oldest first.
    expect(Date.parse(skipped[skipped.length - 1].scheduled_at)).toBeLessThan(Date.parse(delivered[0].scheduled_at));
    expect(new Set(all.map((r) => r.scheduled_at)).size).toBe(all.length);
    const received = receiver.forJob(jobId).length;
    expect(received).toBeGreaterThanOrEqual(100);
  }, 180_000);
});

import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Client, Connection } from '@temporalio/client';
import { createApp } from '../../apps/api/src/app';
import { apiClient, temporalAddress, useStackAndReceiver } from '../utils/stack';
import { waitFor } from '../utils/receiver';

type Api = ReturnType<typeof apiClient>;

/**
 * `POST /runs/{id}/retry` (issue #9, decisions.md → Manual retry): only failed runs; one manual
 * retry per occurrence, coalesced across API processes; a Temporal workflow findable by run id;
 * `409 conflict` once it has ended.
 */
describe('manual retry', () => {
  const e2e = useStackAndReceiver({
    respond: (request) => {
      const n = (seen.get(request.url) ?? 0) + 1;
      seen.set(request.url, n);
      if (request.url.startsWith('/always-404') || (request.url.startsWith('/recovers') && n === 1)) {
        return { status: 404, body: 'no such hook' };
      }
      return { status: 200, body: 'ok' };
    },
  });
  /** A second API instance on the same database and Temporal: another process as far as state goes. */
  let secondApp: NestFastifyApplication;
  let secondApi: Api;
  let connection: Connection;
  let client: Client;
  /** Paths answered 404 on their first request and 200 afterwards; `/always-404` never recovers. */
  const seen = new Map<string, number>();

  beforeAll(async () => {
    secondApp = await createApp({ config: e2e.stack.config, logLevels: ['error'] });
    await secondApp.listen(0, '127.0.0.1');
    secondApi = apiClient((await secondApp.getUrl()).replace('[::1]', '127.0.0.1'), e2e.stack.apiKey);
    connection = await Connection.connect({ address: temporalAddress() });
    client = new Client({ connection, namespace: e2e.stack.config.temporal.namespace });
  });

  afterAll(async () => {
    await connection?.close();
    await secondApp?.close();
  });

  async function jobAt(path: string) {
    const created = await e2e.api('POST', '/api/v1/jobs', {
      name: `retry ${path}`,
      schedule: { expr: '0 0 0 1 1 ? 2031' },
      sink: { kind: 'webhook', config: { url: `${e2e.receiver.url}${path}` } },
      retry: { max_attempts: 1 },
    });
    expect(created.status).toBe(201);
    return created.body as { id: string };
  }

  async function finished(runId: string) {
    return waitFor(async () => {
      const run = (await e2e.api('GET', `/api/v1/runs/${runId}`)).body;
      return ['succeeded', 'failed'].includes(run?.status) ? run : null;
    }, 30_000);
  }

  async function failedRun(path: string) {
    const job = await jobAt(path);
    const { run_id: runId } = (await e2e.api('POST', `/api/v1/jobs/${job.id}/trigger`)).body;
    const run = await finished(runId);
    expect(run.status).toBe('failed');
    return { job, run };
  }

  async function monthlyRuns(): Promise<number> {
    return (await e2e.api('GET', '/api/v1/usage')).body.runs;
  }

  it('should coalesce 20 parallel requests on two API instances into one retry run and one workflow', async () => {
    const { job, run: original } = await failedRun('/recovers');
    // Without a worker the retry stays `running`, so every request finds it not yet ended.
    await e2e.stack.stopWorker();
    const usageBefore = await monthlyRuns();

    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 === 0 ? e2e.api : secondApi)('POST', `/api/v1/runs/${original.id}/retry`),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(202));
    const retryId: string = answers[0].body.id;
    expect(new Set(answers.map((a) => a.body.id))).toEqual(new Set([retryId]));
    expect(answers[0].body).toMatchObject({
      job_id: job.id,
      trigger: 'retry_manual',
      scheduled_at: original.scheduled_at,
      status: 'running',
      retry_of: original.id,
      attempts: [],
    });
    expect(retryId).not.toBe(original.id);

    const rows = await e2e.stack.dataSource.query(
      `SELECT id FROM runs WHERE job_id = $1 AND trigger = 'retry_manual'`,
      [job.id],
    );
    expect(rows).toEqual([{ id: retryId }]);
    expect(await monthlyRuns()).toBe(usageBefore + 1);
    // Read-your-writes: the run answers before any worker has touched it.
    expect((await e2e.api('GET', `/api/v1/runs/${retryId}`)).body).toMatchObject({ id: retryId, status: 'running' });

    // One workflow, id = run id, with the search attributes every run carries.
    const described = await client.workflow.getHandle(retryId).describe();
    expect(described.type).toBe('runWorkflow');
    expect(described.searchAttributes).toMatchObject({
      SvcJobId: [job.id],
      SvcWorkspaceId: [e2e.stack.workspaceId],
      SvcTrigger: ['retry_manual'],
    });
    const query = `WorkflowType = 'runWorkflow' AND SvcJobId = '${job.id}' AND SvcTrigger = 'retry_manual'`;
    const listed = await waitFor(async () => {
      const ids: string[] = [];
      for await (const execution of client.workflow.list({ query })) {
        ids.push(execution.workflowId);
      }
      return ids.length > 0 ? ids : null;
    });
    expect(listed).toEqual([retryId]);

    const audit = (await e2e.api('GET', `/api/v1/audit-log?action=run.retry`)).body.data;
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ target: original.id, details: { job_id: job.id, retry_run_id: retryId } });

    await e2e.stack.startWorker();
    const retried = await finished(retryId);
    expect(retried.status).toBe('succeeded');
    expect(retried.attempts.map((a: { n: number; outcome: string }) => [a.n, a.outcome])).toEqual([[0, 'success']]);
    const delivered = e2e.receiver.forJob(job.id);
    expect(delivered.map((r) => r.headers['webhook-id'])).toEqual([original.id, retryId]);
    expect(delivered[1].headers['svc-scheduled-at']).toBe(delivered[0].headers['svc-scheduled-at']);

    // The occurrence's one manual retry has ended: exhausted, on either instance.
    for (const call of [e2e.api, secondApi]) {
      const again = await call('POST', `/api/v1/runs/${original.id}/retry`);
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('conflict');
    }
    expect(
      (await e2e.stack.dataSource.query(`SELECT count(*)::int AS n FROM runs WHERE job_id = $1`, [job.id]))[0].n,
    ).toBe(2);
  });

  it('should answer 409 once a failed manual retry has ended, for the original and for the retry', async () => {
    const { run: original } = await failedRun('/always-404');
    const first = await e2e.api('POST', `/api/v1/runs/${original.id}/retry`);
    expect(first.status).toBe(202);
    const retried = await finished(first.body.id);
    expect(retried).toMatchObject({ status: 'failed', trigger: 'retry_manual' });

    for (const id of [original.id, retried.id]) {
      const again = await e2e.api('POST', `/api/v1/runs/${id}/retry`);
      expect(again.status).toBe(409);
      expect(again.body.error).toMatchObject({ code: 'conflict' });
      expect(again.body.error.message).toMatch(/exhausted/);
    }
  });

  it('should refuse runs that are not failed with 409 and unknown or foreign runs with 404', async () => {
    const job = await jobAt('/fine');
    const { run_id: runId } = (await e2e.api('POST', `/api/v1/jobs/${job.id}/trigger`)).body;
    expect((await finished(runId)).status).toBe('succeeded');
    const succeeded = await e2e.api('POST', `/api/v1/runs/${runId}/retry`);
    expect(succeeded.status).toBe(409);
    expect(succeeded.body.error).toMatchObject({ code: 'conflict', message: expect.stringMatching(/only failed/) });

    const missing = await e2e.api('POST', '/api/v1/runs/run_01ARZ3NDEKTSV4RRFFQ69G5FAV/retry');
    expect(missing.status).toBe(404);
    expect((await e2e.api('POST', '/api/v1/runs/not-a-run/retry')).status).toBe(404);

    const { run: failed } = await failedRun('/always-404-foreign');
    const other = await e2e.stack.newWorkspaceKey('retry-other');
    const foreign = await apiClient(e2e.stack.baseUrl, other.apiKey)('POST', `/api/v1/runs/${failed.id}/retry`);
    expect(foreign.status).toBe(404);
    expect(
      (
        await e2e.stack.dataSource.query(`SELECT count(*)::int AS n FROM runs WHERE retry_of = ANY($1)`, [
          [runId, failed.id],
        ])
      )[0].n,
    ).toBe(0);
  });

  it('should refuse a retry of a deleted job with 409 and write nothing', async () => {
    const { job, run } = await failedRun('/always-404-deleted');
    expect((await e2e.api('DELETE', `/api/v1/jobs/${job.id}`)).status).toBe(204);
    const answer = await e2e.api('POST', `/api/v1/runs/${run.id}/retry`);
    expect(answer.status).toBe(409);
    expect(answer.body.error.code).toBe('conflict');
    expect(
      (await e2e.stack.dataSource.query(`SELECT count(*)::int AS n FROM runs WHERE job_id = $1`, [job.id]))[0].n,
    ).toBe(1);
  });
});

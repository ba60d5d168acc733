/**
 * The real `jobWorkflow` and `runWorkflow` in a Worker with mocked activities (plain functions that
 * record their calls), so the workflows' own decisions are what is tested: overlap policies, pause,
 * delete, the run's signal to its job and its cancellation path.
 *
 * Temporal's time-skipping test server binary cannot be downloaded on this machine, so these run
 * on the shared dev server in real time (`TEST_TEMPORAL_ADDRESS`, its own random task queue), on
 * "every 1 second" schedules, waiting on conditions rather than fixed sleeps.
 */
import { Context } from '@temporalio/activity';
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { resolve } from 'node:path';
import { planOccurrences } from '../../apps/worker/src/activities/schedule.activities';
import { withWorkflowAliases } from '../../apps/worker/src/temporal/worker.service';
import { sleep, waitFor } from '../../test/utils/receiver';
import type {
  JobActivities,
  OccurrenceDecision,
  OpenRunsInput,
  RunActivities,
  RunAttemptResult,
  ScheduleActivities,
  StartQueuedRunInput,
  FinishRunInput,
} from '../workflows/activity-types';
import {
  JOB_WORKFLOW,
  jobChangedSignal,
  jobDeletedSignal,
  RUN_WORKFLOW,
  runFinishedSignal,
  type JobSnapshot,
  type JobWorkflowInput,
  type JobWorkflowMemo,
  type OverlapPolicy,
  type RunWorkflowInput,
} from '../workflows/definitions';

/** Everything the mocked activities were called with, per job or run id. */
const calls = {
  openRuns: [] as OpenRunsInput[],
  startQueuedRun: [] as StartQueuedRunInput[],
  cancelRuns: [] as Array<{ runIds: string[] }>,
  runAttempt: [] as RunWorkflowInput[],
  finishRun: [] as FinishRunInput[],
};
/** When (worker wall clock) each run was opened, by run id. */
const openedAt = new Map<string, number>();
/** How the mocked attempt behaves, by run id (default: succeeds at once). */
const attemptBehaviour = new Map<string, 'succeed' | 'block' | 'gone'>();

const scheduleActivities: ScheduleActivities = {
  async planOccurrences(input) {
    return planOccurrences(input);
  },
};
const jobActivities: JobActivities = {
  async readWorkspaceGate() {
    return { suspended: false, blockingQuota: null };
  },
  async openRuns(input) {
    calls.openRuns.push(input);
    for (const decision of input.decisions) {
      openedAt.set(decision.runId, Date.now());
    }
  },
  async startQueuedRun(input) {
    calls.startQueuedRun.push(input);
  },
  async cancelRuns(input) {
    calls.cancelRuns.push(input);
  },
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

describe('job and run workflows (mocked activities)', () => {
  let connection: Connection;
  let nativeConnection: NativeConnection;
  let client: Client;
  let worker: Worker;
  let running: Promise<void>;
  const taskQueue = `svc-workflows-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const workflowIds: string[] = [];

  beforeAll(async () => {
    try {
      // Quiet: the blocking attempt completes after its run was cancelled, which core logs as a warning.
      Runtime.install({
        logger: new DefaultLogger('ERROR'),
        telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } },
      });
    } catch {
      // already installed in this process
    }
    const address = process.env.TEST_TEMPORAL_ADDRESS ?? '127.0.0.1:7233';
    connection = await Connection.connect({ address });
    client = new Client({ connection });
    nativeConnection = await NativeConnection.connect({ address });
    worker = await Worker.create({
      connection: nativeConnection,
      taskQueue,
      workflowsPath: resolve(__dirname, '../workflows/index.ts'),
      bundlerOptions: { webpackConfigHook: withWorkflowAliases },
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
    return {
      jobId: `job_WORKFLOWTEST${process.pid}X${counter}X${Date.now()}`,
      workspaceId: 'ws_WORKFLOWTEST',
      revision: 1,
      version: 1,
      state: 'active',
      schedule: {
        expr: 'every 1 second',
        kind: 'auto',
        timezone: 'UTC',
        startsAt: null,
        endsAt: null,
        count: null,
        anchor: '2026-01-01T00:00:00.000Z',
      },
      misfirePolicy: 'fire_once',
      misfireThresholdMs: 60_000,
      overlapPolicy,
      ...overrides,
    };
  }

  async function startJob(snapshot: JobSnapshot) {
    workflowIds.push(snapshot.jobId);
    const input: JobWorkflowInput = { snapshot };
    return client.workflow.start(JOB_WORKFLOW, { workflowId: snapshot.jobId, taskQueue, args: [input] });
  }

  /** Every occurrence the job workflow decided, in order (across its openRuns calls). */
  function decisionsOf(jobId: string): OccurrenceDecision[] {
    return calls.openRuns.filter((c) => c.jobId === jobId).flatMap((c) => c.decisions);
  }

  /** Waits until the job workflow runs on `revision` (its memo), i.e. it applied that snapshot. */
  async function onRevision(jobId: string, revision: number): Promise<void> {
    await waitFor(async () => {
      const { memo } = await client.workflow.getHandle(jobId).describe();
      return (memo as Partial<JobWorkflowMemo> | undefined)?.revision === revision;
    }, 10_000);
  }

  describe('jobWorkflow', () => {
    it('should skip an occurrence while its run is in flight (overlap_policy skip) until runFinished', async () => {
      const snapshot = snapshotOf('skip');
      const handle = await startJob(snapshot);
      await waitFor(() => decisionsOf(snapshot.jobId).length >= 2, 10_000);
      const [first, second] = decisionsOf(snapshot.jobId);
      expect(first).toMatchObject({ action: 'start' });
      expect(second).toMatchObject({ action: 'skip', skipReason: 'previous_run_in_progress' });
      expect(calls.openRuns.find((c) => c.jobId === snapshot.jobId)?.notifyJob).toBe(true);

      await handle.signal(runFinishedSignal, first.runId);
      const next = await waitFor(
        () => decisionsOf(snapshot.jobId).find((d, i) => i > 1 && d.action === 'start'),
        10_000,
      );
      // Every occurrence after the release and before `next` (none, or one racing the signal) is a skip.
      const between = decisionsOf(snapshot.jobId).slice(2, decisionsOf(snapshot.jobId).indexOf(next));
      expect(between.every((d) => d.action === 'skip')).toBe(true);
      await handle.signal(jobDeletedSignal);
      await handle.result();
    }, 15_000);

    it('should queue one occurrence and release it on runFinished (overlap_policy queue)', async () => {
      const snapshot = snapshotOf('queue');
      const handle = await startJob(snapshot);
      await waitFor(() => decisionsOf(snapshot.jobId).length >= 3, 10_000);
      const [first, queued, third] = decisionsOf(snapshot.jobId);
      expect(first).toMatchObject({ action: 'start' });
      expect(queued).toMatchObject({ action: 'queue' });
      expect(third).toMatchObject({ action: 'skip', skipReason: 'previous_run_in_progress' });
      expect(calls.startQueuedRun.filter((c) => c.jobId === snapshot.jobId)).toEqual([]);

      const releasedAfter = Date.now();
      await handle.signal(runFinishedSignal, first.runId);
      const [release] = await waitFor(() => {
        const released = calls.startQueuedRun.filter((c) => c.jobId === snapshot.jobId);
        return released.length > 0 ? released : null;
      }, 10_000);
      expect(release).toMatchObject({
        jobId: snapshot.jobId,
        jobVersion: 1,
        run: { runId: queued.runId, scheduledAt: queued.scheduledAt },
      });
      expect(Date.parse(release.releasedAt)).toBeGreaterThanOrEqual(releasedAfter - 1_000);

      // The released run is now the one in flight: the next occurrence queues again.
      const requeued = await waitFor(
        () => decisionsOf(snapshot.jobId).find((d, i) => i > 2 && d.action === 'queue'),
        10_000,
      );
      // Deleted: the one waiting occurrence has no workflow, so the job workflow cancels its row.
      await handle.signal(jobDeletedSignal);
      await handle.result();
      expect(calls.cancelRuns).toContainEqual({ runIds: [requeued.runId] });
    }, 15_000);

    it('should cancel the run in flight when the next occurrence starts (overlap_policy cancel_previous)', async () => {
      const snapshot = snapshotOf('cancel_previous');
      const handle = await startJob(snapshot);
      await waitFor(() => decisionsOf(snapshot.jobId).length >= 2, 10_000);
      const [first, second] = decisionsOf(snapshot.jobId);
      expect(first).toMatchObject({ action: 'start' });
      expect(second).toMatchObject({ action: 'start' });
      const cancelled = () => calls.cancelRuns.flatMap((c) => c.runIds);
      await waitFor(() => cancelled().includes(first.runId), 10_000);
      // Only runs a later occurrence replaced are cancelled, never the newest one.
      const started = decisionsOf(snapshot.jobId).filter((d) => d.action === 'start');
      expect(cancelled().every((id) => started.findIndex((d) => d.runId === id) < started.length - 1)).toBe(true);
      expect(cancelled().filter((id) => id === first.runId)).toHaveLength(1);
      await handle.signal(jobDeletedSignal);
      await handle.result();
    }, 15_000);

    it('should open each run ahead of its occurrence by at most prepareAheadMs', async () => {
      const lead = 2_000;
      const snapshot = snapshotOf('allow', {
        prepareAheadMs: lead,
        schedule: { ...snapshotOf('allow').schedule, expr: 'every 3 seconds' },
      });
      const handle = await startJob(snapshot);
      await waitFor(() => decisionsOf(snapshot.jobId).length >= 3, 15_000);
      await handle.signal(jobDeletedSignal);
      await handle.result();
      const opened = decisionsOf(snapshot.jobId).map((d) => ({
        ahead: Date.parse(d.scheduledAt) - openedAt.get(d.runId)!,
        action: d.action,
      }));
      expect(opened.every((o) => o.action === 'start')).toBe(true);
      // Never earlier than the lead (the workflow's clock trails the worker's), and ahead for the
      // occurrences it slept towards (the first one may be due at start).
      expect(opened.every((o) => o.ahead <= lead)).toBe(true);
      expect(opened.slice(1).some((o) => o.ahead > 0)).toBe(true);
    }, 20_000);

    it('should open no run while paused and resume from now, and end when the job is deleted', async () => {
      const snapshot = snapshotOf('allow');
      const handle = await startJob(snapshot);
      await waitFor(() => decisionsOf(snapshot.jobId).length >= 1, 10_000);
      expect(calls.openRuns.find((c) => c.jobId === snapshot.jobId)?.notifyJob).toBe(false);

      await handle.signal(jobChangedSignal, { ...snapshot, revision: 2, state: 'paused' });
      await onRevision(snapshot.jobId, 2);
      const pausedAt = Date.now();
      const whilePaused = calls.openRuns.filter((c) => c.jobId === snapshot.jobId).length;
      await sleep(2_500); // two occurrences fall due while paused
      expect(calls.openRuns.filter((c) => c.jobId === snapshot.jobId).length).toBe(whilePaused);

      await handle.signal(jobChangedSignal, { ...snapshot, revision: 3, state: 'active' });
      const resumed = await waitFor(
        () => decisionsOf(snapshot.jobId).find((d) => Date.parse(d.scheduledAt) > pausedAt),
        10_000,
      );
      // Occurrences of the pause never exist: the first one after it is due after the resume.
      expect(Date.parse(resumed.scheduledAt)).toBeGreaterThan(pausedAt + 2_000);

      await handle.signal(jobDeletedSignal);
      await expect(handle.result()).resolves.toBeUndefined();
      expect((await handle.describe()).status.name).toBe('COMPLETED');
    }, 15_000);
  });

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

    it('should close the run as failed when the attempt fails outside an attempt (non-retryable error)', async () => {
      const input = runInput('job_WORKFLOWTESTNONE');
      attemptBehaviour.set(input.runId, 'gone');
      await expect((await startRun(input)).result()).resolves.toBe('failed');
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

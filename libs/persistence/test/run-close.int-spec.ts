import { newId } from '@svc/workflow-contract/ids';
import { RunEntity } from '../src/entities';
import { RunsRepository } from '../src/repositories';
import { createWorkspace, insertJob } from './fixtures';
import { useScratchDatabase } from './scratch-database';

/**
 * RunsRepository.close against real PostgreSQL: the attempt, the run and the job's outcome in one
 * statement, once, with the job locked first so that concurrent closes and job writers serialize.
 */
describe('RunsRepository.close (PostgreSQL)', () => {
  const DEFAULT_SLA_MS = 300_000;
  const scratch = useScratchDatabase('runclose', { poolSize: 6 });
  let runs: RunsRepository;
  let workspaceId: string;

  beforeAll(async () => {
    runs = new RunsRepository(scratch.ds);
    workspaceId = (await createWorkspace(scratch.ds)).id;
  });

  function job(extra: { slaThresholdMs?: number; consecutiveFailures?: number } = {}): Promise<string> {
    return insertJob(scratch.ds, workspaceId, extra);
  }

  /** A run of `jobId` scheduled `ageMs` ago, with attempt 0 started unless `started` is false. */
  async function startedRun(jobId: string, ageMs = 1_000, started = true, now = Date.now()): Promise<RunEntity> {
    const id = newId('run');
    const scheduledAt = new Date(now - ageMs);
    await runs.openRuns(
      [{ id, workspaceId, jobId, jobVersion: 1, scheduledAt, trigger: 'schedule', status: 'running' }],
      scheduledAt,
    );
    const run = (await runs.findByIdUnscoped(id))!;
    if (started) {
      await runs.startAttempt(run, 0, scheduledAt, 'POST https://example.test/');
    }
    return run;
  }

  const finish = (finishedAt: Date) => ({
    finishedAt,
    durationMs: 12,
    outcome: 'success' as const,
    statusCode: 200,
    error: null,
    requestSummary: 'POST https://example.test/',
    responseBody: null,
  });

  async function jobRow(id: string) {
    const [row] = (await scratch.ds.query(
      `SELECT consecutive_failures, last_run_status, last_run_at FROM jobs WHERE id = $1`,
      [id],
    )) as Array<{ consecutive_failures: number; last_run_status: string | null; last_run_at: Date | null }>;
    return row;
  }

  it('should close the attempt, the run and fold the outcome into the job, once', async () => {
    const jobId = await job({ consecutiveFailures: 2 });
    const run = await startedRun(jobId);
    const finishedAt = new Date();
    const closed = await runs.close({
      runId: run.id,
      status: 'succeeded',
      finishedAt,
      attempt: { n: 0, startedAt: run.scheduledAt, finish: finish(finishedAt) },
      defaultSlaThresholdMs: DEFAULT_SLA_MS,
    });
    expect(closed?.run).toBeInstanceOf(RunEntity);
    expect(closed?.run).toMatchObject({
      id: run.id,
      jobId,
      workspaceId,
      status: 'succeeded',
      finishedAt,
      scheduledAt: run.scheduledAt,
      attemptsCount: 1,
      slaBreached: false,
      nextAttemptAt: null,
    });
    expect(closed?.run.e2eMs).toBeGreaterThanOrEqual(1_000);
    expect(closed?.outcome).toEqual({
      previousFailures: 2,
      consecutiveFailures: 0,
      state: 'active',
      autoDisableThreshold: null,
    });
    expect(closed?.slaThresholdMs).toBe(DEFAULT_SLA_MS);
    const [attempt] = await runs.listAttempts(workspaceId, run.id);
    expect(attempt).toMatchObject({ outcome: 'success', statusCode: 200, durationMs: 12, finishedAt });
    expect(await jobRow(jobId)).toEqual({
      consecutive_failures: 0,
      last_run_status: 'succeeded',
      last_run_at: run.scheduledAt,
    });

    // A re-executed activity: nothing changes, the job's streak included.
    await scratch.ds.query(`UPDATE jobs SET consecutive_failures = 4 WHERE id = $1`, [jobId]);
    const again = await runs.close({
      runId: run.id,
      status: 'failed',
      finishedAt: new Date(),
      attempt: { n: 0, startedAt: run.scheduledAt, finish: finish(new Date()) },
      defaultSlaThresholdMs: DEFAULT_SLA_MS,
    });
    expect(again).toBeNull();
    expect((await runs.findByIdUnscoped(run.id))?.status).toBe('succeeded');
    expect((await jobRow(jobId)).consecutive_failures).toBe(4);
  });

  it('should write the attempt it closes when its row is not there yet (fast delivery), with the run start', async () => {
    const jobId = await job();
    const run = await startedRun(jobId, 3_000, false);
    const startedAt = new Date(run.scheduledAt.getTime() + 250);
    const finishedAt = new Date(startedAt.getTime() + 12);
    const closed = await runs.close({
      runId: run.id,
      status: 'failed',
      finishedAt,
      lastError: 'HTTP 500',
      attempt: { n: 0, startedAt, finish: { ...finish(finishedAt), outcome: 'retryable', statusCode: 500 } },
      defaultSlaThresholdMs: DEFAULT_SLA_MS,
    });
    expect(closed?.run).toMatchObject({
      status: 'failed',
      startedAt,
      startLagMs: 250,
      attemptsCount: 1,
      lastError: 'HTTP 500',
    });
    expect(await runs.listAttempts(workspaceId, run.id)).toMatchObject([
      {
        n: 0,
        startedAt,
        finishedAt,
        outcome: 'retryable',
        statusCode: 500,
        requestSummary: 'POST https://example.test/',
      },
    ]);
  });

  it('should close as interrupted the older attempts a crash left open', async () => {
    const run = await startedRun(await job());
    const startedAt = new Date(run.scheduledAt.getTime() + 5_000);
    await runs.close({
      runId: run.id,
      status: 'succeeded',
      finishedAt: new Date(startedAt.getTime() + 12),
      attempt: { n: 1, startedAt, finish: finish(new Date(startedAt.getTime() + 12)) },
      defaultSlaThresholdMs: DEFAULT_SLA_MS,
    });
    expect(await runs.listAttempts(workspaceId, run.id)).toMatchObject([
      { n: 0, finishedAt: startedAt, outcome: 'retryable', error: 'interrupted', durationMs: 5_000 },
      { n: 1, outcome: 'success' },
    ]);
    expect(await runs.findByIdUnscoped(run.id)).toMatchObject({ attemptsCount: 2, startedAt: run.scheduledAt });
  });

  it('should leave the start of a run closed without an attempt unset', async () => {
    const run = await startedRun(await job(), 1_000, false);
    const closed = await runs.close({
      runId: run.id,
      status: 'skipped',
      skipReason: 'misfire',
      finishedAt: new Date(),
      defaultSlaThresholdMs: DEFAULT_SLA_MS,
    });
    expect(closed?.run).toMatchObject({ status: 'skipped', skipReason: 'misfire', startedAt: null, startLagMs: null });
    expect(closed?.run.attemptsCount).toBe(0);
    expect(await runs.listAttempts(workspaceId, run.id)).toEqual([]);
  });

  it("should measure the SLA against the job's threshold, else the default", async () => {
    const strict = await job({ slaThresholdMs: 500 });
    const lenient = await job();
    const late = await startedRun(strict, 2_000);
    const sameAge = await startedRun(lenient, 2_000);
    const close = (runId: string) =>
      runs.close({ runId, status: 'failed', finishedAt: new Date(), defaultSlaThresholdMs: DEFAULT_SLA_MS });
    expect(await close(late.id)).toMatchObject({ run: { slaBreached: true }, slaThresholdMs: 500 });
    expect(await close(sameAge.id)).toMatchObject({ run: { slaBreached: false }, slaThresholdMs: DEFAULT_SLA_MS });
  });

  it('should leave the job alone for skipped and cancelled runs, and for runs of a deleted job', async () => {
    const jobId = await job({ consecutiveFailures: 1 });
    for (const status of ['skipped', 'cancelled'] as const) {
      const run = await startedRun(jobId, status === 'skipped' ? 1_000 : 2_000);
      const closed = await runs.close({ runId: run.id, status, finishedAt: new Date(), defaultSlaThresholdMs: 1 });
      expect(closed).toMatchObject({ run: { status }, outcome: null });
    }
    expect(await jobRow(jobId)).toMatchObject({ consecutive_failures: 1, last_run_status: null });

    const gone = await job();
    const orphan = await startedRun(gone, 5_000);
    await scratch.ds.query(`DELETE FROM jobs WHERE id = $1`, [gone]);
    const closed = await runs.close({
      runId: orphan.id,
      status: 'failed',
      finishedAt: new Date(),
      defaultSlaThresholdMs: 1_000,
    });
    expect(closed).toMatchObject({
      run: { status: 'failed', slaBreached: true },
      outcome: null,
      slaThresholdMs: 1_000,
    });
  });

  it('should record the workflow an attempt started on the attempt and its run', async () => {
    const run = await startedRun(await job());
    const startedWorkflow = { namespace: 'default', workflow_id: 'wf-1', run_id: 'r-1' };
    const closed = await runs.close({
      runId: run.id,
      status: 'succeeded',
      finishedAt: new Date(),
      attempt: { n: 0, startedAt: run.scheduledAt, finish: { ...finish(new Date()), startedWorkflow } },
      defaultSlaThresholdMs: DEFAULT_SLA_MS,
    });
    expect(closed?.run.startedWorkflow).toEqual(startedWorkflow);
    expect((await runs.listAttempts(workspaceId, run.id))[0].startedWorkflow).toEqual(startedWorkflow);
  });

  it('should count every concurrent failure of one job, each seeing the streak the one before left', async () => {
    const jobId = await job();
    // One clock reading: five distinct occurrences of one job.
    const now = Date.now();
    const many = await Promise.all(Array.from({ length: 5 }, (_, i) => startedRun(jobId, 1_000 + i, true, now)));
    const closed = await Promise.all(
      many.map((run) =>
        runs.close({ runId: run.id, status: 'failed', finishedAt: new Date(), defaultSlaThresholdMs: DEFAULT_SLA_MS }),
      ),
    );
    const streaks = closed.map((c) => [c!.outcome!.previousFailures, c!.outcome!.consecutiveFailures]);
    expect(streaks.sort((a, b) => a[0] - b[0])).toEqual([
      [0, 1],
      [1, 2],
      [2, 3],
      [3, 4],
      [4, 5],
    ]);
    expect((await jobRow(jobId)).consecutive_failures).toBe(5);
  });

  it('should wait for a transaction holding the job and see the streak it committed', async () => {
    const jobId = await job();
    const run = await startedRun(jobId);
    const runner = scratch.ds.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    await runner.query(`SELECT id FROM jobs WHERE id = $1 FOR UPDATE`, [jobId]);
    await runner.query(`UPDATE jobs SET consecutive_failures = 7 WHERE id = $1`, [jobId]);
    let settled = false;
    const closing = runs
      .close({ runId: run.id, status: 'failed', finishedAt: new Date(), defaultSlaThresholdMs: DEFAULT_SLA_MS })
      .finally(() => (settled = true));
    // The close blocks on the job's lock: the run is still open meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(settled).toBe(false);
    const [open] = (await scratch.ds.query(`SELECT status FROM runs WHERE id = $1`, [run.id])) as Array<{
      status: string;
    }>;
    expect(open.status).toBe('running');
    await runner.commitTransaction();
    await runner.release();
    expect((await closing)?.outcome).toMatchObject({ previousFailures: 7, consecutiveFailures: 8 });
  });
});

import { buildConfig } from '@svc/common';
import { newId } from '@svc/workflow-contract/ids';
import { purgeExpiredRuns } from '@svc/orchestration';
import { RunsRepository, WorkspacesRepository } from '@svc/persistence';
import { useScratchDatabase } from '../../persistence/test/scratch-database';

/** Run retention against real PostgreSQL (issue 22): what goes, what stays, and who may run it. */
describe('purgeExpiredRuns (PostgreSQL)', () => {
  const DAY = 86_400_000;
  const now = new Date('2030-06-30T12:00:00Z');
  const ago = (days: number) => new Date(now.getTime() - days * DAY);
  // runs.retention 30d; plan `free` keeps runs 7 days; `self_hosted` and unknown plans follow 30d.
  const config = buildConfig({ runs: { retention: '30d' }, plans: { free: { run_retention: '7d' } } }, {});
  const scratch = useScratchDatabase('runret', { poolSize: 8 });
  let runs: RunsRepository;
  let workspaces: WorkspacesRepository;

  beforeAll(async () => {
    runs = new RunsRepository(scratch.ds);
    workspaces = new WorkspacesRepository(scratch.ds);
  });

  // Each test starts from an empty run history (the purge is global).
  beforeEach(async () => {
    await scratch.ds.query(`DELETE FROM runs`);
  });

  /** Opens a scheduled run (counted in usage), starts `attempts` attempts, and finishes it unless `status` is open. */
  async function run(
    workspaceId: string,
    scheduledAt: Date,
    outcome: {
      status: 'succeeded' | 'failed' | 'cancelled' | 'running' | 'deferred';
      finishedAt?: Date;
      attempts?: number;
    },
  ): Promise<string> {
    const id = newId('run');
    const [opened] = await runs.openRuns(
      [{ id, workspaceId, jobId: newId('job'), jobVersion: 1, scheduledAt, trigger: 'schedule', status: 'running' }],
      scheduledAt,
    );
    expect(opened.inserted).toBe(true);
    const row = await runs.findByIdUnscoped(id);
    for (let n = 0; n < (outcome.attempts ?? 1); n++) {
      const at = new Date(scheduledAt.getTime() + n * 1000);
      await runs.startAttempt(row!, n, at, 'POST https://example.test/');
      await runs.finishAttempt(id, n, {
        finishedAt: new Date(at.getTime() + 100),
        durationMs: 100,
        outcome: outcome.status === 'succeeded' ? 'success' : 'retryable',
        statusCode: 500,
        error: null,
        requestSummary: 'POST https://example.test/',
        responseBody: 'oops',
      });
    }
    if (outcome.status === 'deferred') {
      await runs.deferRun(id, new Date(scheduledAt.getTime() + 60_000), 'HTTP 500');
    } else if (outcome.status !== 'running') {
      await runs.close({
        runId: id,
        status: outcome.status,
        finishedAt: outcome.finishedAt ?? scheduledAt,
        defaultSlaThresholdMs: 300_000,
      });
    }
    return id;
  }

  async function skipped(workspaceId: string, at: Date): Promise<string> {
    const id = newId('run');
    await runs.openRuns(
      [
        {
          id,
          workspaceId,
          jobId: newId('job'),
          jobVersion: 1,
          scheduledAt: at,
          trigger: 'schedule',
          status: 'skipped',
          skipReason: 'misfire',
        },
      ],
      at,
    );
    return id;
  }

  const existing = async (ids: string[]): Promise<string[]> =>
    (await scratch.ds.query(`SELECT id FROM runs WHERE id = ANY($1::text[]) ORDER BY id`, [ids])).map(
      (r: { id: string }) => r.id,
    );
  const attemptsOf = async (ids: string[]): Promise<number> =>
    Number((await scratch.ds.query(`SELECT count(*) AS n FROM attempts WHERE run_id = ANY($1::text[])`, [ids]))[0].n);
  const usage = async (): Promise<Array<{ workspace_id: string; month: string; runs: number }>> =>
    scratch.ds.query(`SELECT workspace_id, month, runs FROM usage_counters ORDER BY workspace_id, month`);

  it('should delete terminal runs finished past their retention with their attempts, and keep young and open runs and usage', async () => {
    const hosted = await workspaces.create({ name: 'self', slug: 'ret-self', plan: 'self_hosted' });
    const free = await workspaces.create({ name: 'free', slug: 'ret-free', plan: 'free' });
    const legacy = await workspaces.create({ name: 'legacy', slug: 'ret-legacy', plan: 'legacy' });

    const gone = [
      await run(hosted.id, ago(45), { status: 'succeeded', attempts: 1 }),
      await run(hosted.id, ago(40), { status: 'failed', attempts: 3 }),
      await run(hosted.id, ago(35), { status: 'cancelled', attempts: 0 }),
      await skipped(hosted.id, ago(31)),
      await run(free.id, ago(10), { status: 'failed', attempts: 2 }),
      await run(legacy.id, ago(31), { status: 'succeeded' }),
    ];
    const kept = [
      // Younger than 30 days (finished 29 days ago although scheduled 40 days ago).
      await run(hosted.id, ago(40), { status: 'succeeded', finishedAt: ago(29) }),
      await run(hosted.id, ago(10), { status: 'failed', attempts: 2 }),
      // Open runs are never deleted, however old.
      await run(hosted.id, ago(90), { status: 'running' }),
      await run(hosted.id, ago(90), { status: 'deferred', attempts: 2 }),
      await run(free.id, ago(90), { status: 'deferred' }),
      // Plan free keeps 7 days.
      await run(free.id, ago(6), { status: 'succeeded' }),
      await skipped(free.id, ago(3)),
      await run(legacy.id, ago(29), { status: 'succeeded' }),
    ];
    expect(await attemptsOf(gone)).toBe(7);
    const keptAttempts = await attemptsOf(kept);
    const usageBefore = await usage();
    // Skipped runs deliver nothing and are not counted (2 of them).
    expect(usageBefore.reduce((sum, row) => sum + row.runs, 0)).toBe(gone.length + kept.length - 2);

    const result = await purgeExpiredRuns(runs, config, now, { batch: 2 });
    expect(result.deleted).toBe(gone.length);
    expect(result.truncated).toBe(false);
    expect(result.scopes.map((s) => [s.plans ?? s.exceptPlans, s.deleted])).toEqual([
      [['free'], 1],
      [['free'], 5],
    ]);
    expect(await existing(gone)).toEqual([]);
    expect(await attemptsOf(gone)).toBe(0);
    expect(await existing(kept)).toEqual([...kept].sort());
    expect(await attemptsOf(kept)).toBe(keptAttempts);
    // Monthly usage counts what was delivered, not what is still stored.
    expect(await usage()).toEqual(usageBefore);
    // Idempotent: a second purge finds nothing.
    expect((await purgeExpiredRuns(runs, config, now)).deleted).toBe(0);
  });

  it('should skip a run another transaction holds instead of waiting, and take it at the next purge', async () => {
    const ws = await workspaces.create({ name: 'lock', slug: 'ret-lock', plan: 'self_hosted' });
    const held = await run(ws.id, ago(50), { status: 'succeeded' });
    const free = await run(ws.id, ago(50), { status: 'succeeded' });
    const runner = scratch.ds.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      await runner.query(`SELECT id FROM runs WHERE id = $1 FOR UPDATE`, [held]);
      expect((await purgeExpiredRuns(runs, config, now)).deleted).toBe(1);
      expect(await existing([held, free])).toEqual([held]);
    } finally {
      await runner.commitTransaction();
      await runner.release();
    }
    expect((await purgeExpiredRuns(runs, config, now)).deleted).toBe(1);
    expect(await existing([held])).toEqual([]);
  });

  it('should let several purgers run at once: each run deleted once, none left, no error', async () => {
    const ws = await workspaces.create({ name: 'many', slug: 'ret-many', plan: 'self_hosted' });
    const total = 3_000;
    await scratch.ds.query(
      `INSERT INTO runs (id, workspace_id, job_id, job_version, scheduled_at, trigger, status, attempts_count, finished_at)
       SELECT 'run_many_' || i, $1, 'job_many', 1, $2::timestamptz + i * interval '1 second', 'schedule', 'succeeded', 2,
              $2::timestamptz + i * interval '1 second'
         FROM generate_series(1, $3::int) AS i`,
      [ws.id, ago(40), total],
    );
    await scratch.ds.query(
      `INSERT INTO attempts (run_id, n, workspace_id, started_at, finished_at, outcome, request_summary)
       SELECT 'run_many_' || i, n, $1, $2::timestamptz, $2::timestamptz, 'success', 'POST'
         FROM generate_series(1, $3::int) AS i, generate_series(0, 1) AS n`,
      [ws.id, ago(40), total],
    );
    const results = await Promise.all(
      Array.from({ length: 4 }, () => purgeExpiredRuns(runs, config, now, { batch: 100 })),
    );
    expect(results.reduce((sum, r) => sum + r.deleted, 0)).toBe(total);
    expect(
      Number((await scratch.ds.query(`SELECT count(*) AS n FROM runs WHERE workspace_id = $1`, [ws.id]))[0].n),
    ).toBe(0);
    expect(
      Number((await scratch.ds.query(`SELECT count(*) AS n FROM attempts WHERE workspace_id = $1`, [ws.id]))[0].n),
    ).toBe(0);
  });

  it('should find expired runs through idx_runs_finished_terminal', async () => {
    const plan: Array<{ 'QUERY PLAN': string }> = await scratch.ds.query(
      `EXPLAIN SELECT id FROM runs WHERE status IN ('succeeded', 'failed', 'skipped', 'cancelled') AND finished_at < $1
        ORDER BY finished_at LIMIT 2000 FOR UPDATE SKIP LOCKED`,
      [ago(30)],
    );
    expect(plan.map((row) => row['QUERY PLAN']).join('\n')).toContain('idx_runs_finished_terminal');
  });
});

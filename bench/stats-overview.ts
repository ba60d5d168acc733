/**
 * `GET /stats/overview` and `GET /runs` query cost as a workspace's run history grows (issue #8).
 * Not a test. Run: node -r @swc-node/register bench/stats-overview.ts [sizes] [rounds]
 *   e.g. bench/stats-overview.ts 10000,1000000 50
 *
 * For each size, a scratch database is migrated and one workspace gets that many runs at a steady
 * 10,000 runs a day ending now (so 10k runs are one day of history and 1M are 100 days), over 100
 * jobs, with a realistic mix of statuses and start lags; then VACUUM ANALYZE (what autovacuum does
 * for settled rows). Timed, each `rounds` times: the overview's run aggregate for the 24h and 30d
 * windows (`StatsRepository.runWindow`), and the first page of `GET /runs` (`RunsRepository.list`).
 * The 24h window holds the same 10k runs at every size: its cost should not grow with history.
 * Needs PostgreSQL: BENCH_PG_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres).
 * BENCH_WITHOUT_INCLUDE=1 measures the index as it was before (no INCLUDE columns), for comparison.
 */
import { newId } from '@svc/workflow-contract/ids';
import { RunsRepository, StatsRepository, WorkspacesRepository } from '@svc/persistence';
import { createScratchDatabase, timeRounds } from './scratch-database';

const SIZES = (process.argv[2] ?? '10000,1000000').split(',').map(Number);
const ROUNDS = Number(process.argv[3] ?? 50);
const RUNS_PER_DAY = 10_000;
const DAY_MS = 86_400_000;

const time = (fn: () => Promise<unknown>) => timeRounds(fn, ROUNDS);

async function benchSize(size: number): Promise<Record<string, string>> {
  const scratch = await createScratchDatabase('stats', { poolSize: 2 });
  const { ds } = scratch;
  try {
    await ds.initialize();
    await ds.runMigrations();
    if (process.env.BENCH_WITHOUT_INCLUDE === '1') {
      await ds.query(`DROP INDEX idx_runs_workspace_scheduled`);
      await ds.query(`CREATE INDEX idx_runs_workspace_scheduled ON runs (workspace_id, scheduled_at DESC, id DESC)`);
    }
    const ws = await new WorkspacesRepository(ds).create({ name: 'bench', slug: 'bench', plan: 'self_hosted' });
    const jobIds = Array.from({ length: 100 }, () => newId('job'));
    const now = Date.now();
    const seedStart = performance.now();
    // One statement: runs i = 0..size-1, newest at now, one every DAY_MS / RUNS_PER_DAY ms.
    await ds.query(
      `INSERT INTO runs (id, workspace_id, job_id, job_version, scheduled_at, trigger, status, start_lag_ms, sla_breached)
       SELECT 'run_' || lpad(to_hex(i), 26, '0'), $1, ($2::text[])[1 + i % 100], 1,
              to_timestamp(($3::bigint - i::bigint * $4::bigint) / 1000.0), 'schedule',
              CASE WHEN i % 50 = 0 THEN 'failed' WHEN i % 97 = 0 THEN 'skipped' ELSE 'succeeded' END,
              CASE WHEN i % 97 = 0 THEN NULL ELSE ((i::bigint * 7919) % 2000)::int END,
              i % 200 = 0
         FROM generate_series(0, $5::int - 1) AS i`,
      [ws.id, jobIds, now, DAY_MS / RUNS_PER_DAY, size],
    );
    await ds.query('VACUUM (ANALYZE) runs');
    const seedMs = performance.now() - seedStart;

    const stats = new StatsRepository(ds);
    const runs = new RunsRepository(ds);
    const w24h = await time(() => stats.runWindow(ws.id, new Date(Date.now() - DAY_MS)));
    const w30d = await time(() => stats.runWindow(ws.id, new Date(Date.now() - 30 * DAY_MS)));
    const list = await time(() => runs.list(ws.id, { limit: 51 }));
    const plan: Array<{ 'QUERY PLAN': string }> = await ds.query(
      `EXPLAIN (ANALYZE, BUFFERS) SELECT count(*), percentile_cont(ARRAY[0.5,0.95,0.99]::float8[]) WITHIN GROUP (ORDER BY start_lag_ms)
         FROM runs WHERE workspace_id = $1 AND scheduled_at >= $2`,
      [ws.id, new Date(Date.now() - DAY_MS)],
    );
    const scan = plan.map((row) => row['QUERY PLAN']).find((line) => /Scan/.test(line)) ?? '';
    const fmt = (t: { p50: number; p99: number }) => `${t.p50.toFixed(1)} / ${t.p99.toFixed(1)}`;
    return {
      runs: size.toLocaleString('en-US'),
      'seed s': (seedMs / 1000).toFixed(1),
      'overview 24h p50/p99 ms': fmt(w24h),
      'overview 30d p50/p99 ms': fmt(w30d),
      'GET /runs page p50/p99 ms': fmt(list),
      '24h plan': scan.trim().replace(/\s+\(cost.*$/, ''),
    };
  } finally {
    await scratch.close();
  }
}

async function main(): Promise<void> {
  const rows: Array<Record<string, string>> = [];
  for (const size of SIZES) {
    rows.push(await benchSize(size));
    console.error(`done: ${size} runs`);
  }
  console.table(rows);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

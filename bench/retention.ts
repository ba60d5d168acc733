/**
 * Run retention at scale (issue #22). Not a test. Run:
 *   nice node -r @swc-node/register bench/retention.ts [days] [runs_per_day] [retention_days] [live_cycles]
 *   e.g. bench/retention.ts 60 500000 30 200      (30 M runs written in all; the figure)
 *
 * A scratch database is migrated; runs are written one simulated day at a time (`runs_per_day`
 * runs spread over the day across 10 workspaces and 1,000 jobs, terminal, with one attempt each
 * and three for the 2% that failed), ending at the real now. After each day:
 *   - once the history is older than `retention_days`, the daily purge: `purgeExpiredRuns` with
 *     the service's batch size until nothing is left, while a live writer (below) runs beside it;
 *     then `VACUUM runs, attempts` (what autovacuum does; autovacuum is off on the bench server);
 *   - table + index size of `runs` and `attempts` (`pg_total_relation_size`) and the row count;
 *   - the live write path alone (same writer, no purge) for comparison.
 * The live writer opens a run (`RunsRepository.openRuns`), starts its attempt (`startAttempt`),
 * finishes it (`finishAttempt`) and closes the run (`finishRun`), one cycle after another, and
 * records each call's latency: p99 with and without the purge, and their ratio (goal <= 1.5x).
 * `GET /runs` first page (`RunsRepository.list`) and the 24h overview aggregate
 * (`StatsRepository.runWindow`) are timed on the first day the table holds >= 1 M runs and on the
 * last day (largest history). The load average is printed beside every figure: the machine is
 * shared. Needs PostgreSQL: BENCH_PG_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres).
 * BENCH_KEEP_DB=1 keeps the scratch database (its name is printed).
 */
import { buildConfig } from '@svc/common';
import { purgeExpiredRuns, RUN_PURGE_BATCH } from '@svc/orchestration';
import { RunsRepository, StatsRepository, WorkspacesRepository } from '@svc/persistence';
import { readFileSync } from 'node:fs';
import type { DataSource } from 'typeorm';
import { createScratchDatabase, percentile, timeRounds } from './scratch-database';

const DAYS = Number(process.argv[2] ?? 60);
const RUNS_PER_DAY = Number(process.argv[3] ?? 500_000);
const RETENTION_DAYS = Number(process.argv[4] ?? 30);
const LIVE_CYCLES = Number(process.argv[5] ?? 200);
const DAY_MS = 86_400_000;
const WORKSPACES = 10;
/** Rows per INSERT statement while filling a day (keeps each statement's memory bounded). */
const FILL_CHUNK = 100_000;
/**
 * Run ids are `run_` + a zero-padded hex counter that grows with simulated time, like the real
 * ULIDs (time first): day d's filled runs take d * ID_STRIDE + i, its live runs the ids after
 * them. (Random ULIDs from the real clock would all sort after every filled id, so each day's fill
 * would split index pages in the middle instead of appending: a bench-only bloat of the id indexes.)
 */
const ID_STRIDE = RUNS_PER_DAY + 1_000_000;
const runId = (n: number) => `run_${n.toString(16).padStart(26, '0')}`;

const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

interface LiveSamples {
  open: number[];
  attempt: number[];
  close: number[];
  all: number[];
}

/**
 * The live path: open, attempt start, attempt finish + run close, cycle after cycle, until `stop()`
 * says so and at least `minCycles` ran. Runs are scheduled at the simulated `at`.
 */
async function liveWriter(
  runs: RunsRepository,
  workspaceIds: string[],
  at: Date,
  minCycles: number,
  stop: () => boolean,
  nextId: () => string,
): Promise<LiveSamples> {
  const s: LiveSamples = { open: [], attempt: [], close: [], all: [] };
  const timed = async <T>(into: number[], fn: () => Promise<T>): Promise<T> => {
    const start = performance.now();
    const out = await fn();
    const ms = performance.now() - start;
    into.push(ms);
    s.all.push(ms);
    return out;
  };
  for (let i = 0; i < minCycles || !stop(); i++) {
    const id = nextId();
    const workspaceId = workspaceIds[i % workspaceIds.length];
    const scheduledAt = new Date(at.getTime() + i);
    await timed(s.open, () =>
      runs.openRuns(
        [
          {
            id,
            workspaceId,
            jobId: `job_live_${i % 50}`,
            jobVersion: 1,
            scheduledAt,
            trigger: 'schedule',
            status: 'running',
          },
        ],
        scheduledAt,
      ),
    );
    const run = { id, workspaceId } as Parameters<RunsRepository['startAttempt']>[0];
    await timed(s.attempt, () => runs.startAttempt(run, 0, scheduledAt, 'POST https://example.test/hook'));
    await timed(s.close, async () => {
      await runs.finishAttempt(id, 0, {
        finishedAt: new Date(scheduledAt.getTime() + 50),
        durationMs: 50,
        outcome: 'success',
        statusCode: 200,
        error: null,
        requestSummary: 'POST https://example.test/hook',
        responseBody: null,
      });
      await runs.close({
        runId: id,
        status: 'succeeded',
        finishedAt: new Date(scheduledAt.getTime() + 50),
        defaultSlaThresholdMs: 300_000,
      });
    });
  }
  return s;
}

/** Writes one simulated day of terminal runs and their attempts. */
async function fillDay(ds: DataSource, workspaceIds: string[], dayStart: number, offset: number): Promise<void> {
  const step = DAY_MS / RUNS_PER_DAY;
  for (let from = 0; from < RUNS_PER_DAY; from += FILL_CHUNK) {
    const to = Math.min(RUNS_PER_DAY, from + FILL_CHUNK) - 1;
    await ds.query(
      `WITH r AS (
         SELECT 'run_' || lpad(to_hex($6::bigint + i), 26, '0') AS id,
                ($1::text[])[1 + i % $7::int] AS workspace_id,
                'job_' || lpad((i % 1000)::text, 4, '0') AS job_id,
                to_timestamp(($2::bigint + (i * $3::float8)::bigint) / 1000.0) AS scheduled_at,
                CASE WHEN i % 50 = 0 THEN 'failed' WHEN i % 97 = 0 THEN 'skipped' ELSE 'succeeded' END AS status,
                i
           FROM generate_series($4::int, $5::int) AS i),
       ins AS (
         INSERT INTO runs (id, workspace_id, job_id, job_version, scheduled_at, trigger, status, attempts_count,
                           claimed_at, started_at, finished_at, start_lag_ms, e2e_ms, sla_breached, skip_reason)
         SELECT id, workspace_id, job_id, 1, scheduled_at, 'schedule', status,
                CASE status WHEN 'failed' THEN 3 WHEN 'skipped' THEN 0 ELSE 1 END,
                scheduled_at, CASE WHEN status <> 'skipped' THEN scheduled_at + interval '20 ms' END,
                scheduled_at + CASE status WHEN 'failed' THEN interval '70 s' ELSE interval '300 ms' END,
                CASE WHEN status <> 'skipped' THEN ((i::bigint * 7919) % 2000)::int END,
                CASE WHEN status <> 'skipped' THEN 300 END, i % 200 = 0,
                CASE WHEN status = 'skipped' THEN 'misfire' END
           FROM r
         RETURNING id, workspace_id, scheduled_at, status)
       INSERT INTO attempts (run_id, n, workspace_id, started_at, finished_at, duration_ms, outcome, status_code,
                             request_summary, response_body)
       SELECT ins.id, n, ins.workspace_id, ins.scheduled_at + n * interval '30 s', ins.scheduled_at + n * interval '30 s' + interval '250 ms',
              250, CASE WHEN ins.status = 'succeeded' THEN 'success' ELSE 'retryable' END,
              CASE WHEN ins.status = 'succeeded' THEN 200 ELSE 503 END, 'POST https://example.test/hook',
              CASE WHEN ins.status = 'failed' THEN 'service unavailable' END
         FROM ins, generate_series(0, CASE ins.status WHEN 'failed' THEN 2 ELSE 0 END) AS n
        WHERE ins.status <> 'skipped'`,
      [workspaceIds, dayStart, step, from, to, offset, WORKSPACES],
    );
  }
}

async function sizeMb(ds: DataSource): Promise<{ runs: number; attempts: number }> {
  const [row]: Array<{ runs: string; attempts: string }> = await ds.query(
    `SELECT pg_total_relation_size('runs') AS runs, pg_total_relation_size('attempts') AS attempts`,
  );
  return { runs: Number(row.runs) / 2 ** 20, attempts: Number(row.attempts) / 2 ** 20 };
}

async function timeQueries(ds: DataSource, workspaceId: string, now: Date, rounds = 30) {
  const stats = new StatsRepository(ds);
  const runs = new RunsRepository(ds);
  const time = (fn: () => Promise<unknown>) => timeRounds(fn, rounds);
  const list = await time(() => runs.list(workspaceId, { limit: 51 }));
  const overview = await time(() => stats.runWindow(workspaceId, new Date(now.getTime() - DAY_MS)));
  return { list, overview, load: loadavg() };
}

const f = (n: number, d = 1) => n.toFixed(d);

async function main(): Promise<void> {
  const scratch = await createScratchDatabase('retention', { poolSize: 4, applicationName: 'bench-retention' });
  console.error(`scratch database ${scratch.name}`);
  const { ds } = scratch;
  const config = buildConfig({ runs: { retention: `${RETENTION_DAYS}d` } }, {});
  try {
    await ds.initialize();
    await ds.runMigrations();
    const wsRepo = new WorkspacesRepository(ds);
    const workspaceIds: string[] = [];
    for (let w = 0; w < WORKSPACES; w++) {
      workspaceIds.push((await wsRepo.create({ name: `bench ${w}`, slug: `bench-${w}`, plan: 'self_hosted' })).id);
    }
    const runs = new RunsRepository(ds);
    const end = Date.now();
    const base = end - DAYS * DAY_MS;
    let rows = 0;
    const days: Array<Record<string, string>> = [];
    const withPurge: LiveSamples = { open: [], attempt: [], close: [], all: [] };
    const without: LiveSamples = { open: [], attempt: [], close: [], all: [] };
    const loads: { purge: string[]; idle: string[] } = { purge: [], idle: [] };
    const queries: Array<Record<string, string>> = [];
    for (let d = 0; d < DAYS; d++) {
      const dayStart = base + d * DAY_MS;
      const now = new Date(dayStart + DAY_MS);
      const fillStart = performance.now();
      await fillDay(ds, workspaceIds, dayStart, d * ID_STRIDE);
      let live = d * ID_STRIDE + RUNS_PER_DAY;
      const nextId = () => runId(live++);
      await ds.query('ANALYZE runs, attempts');
      rows += RUNS_PER_DAY;
      const fillS = (performance.now() - fillStart) / 1000;

      let deleted = 0;
      let purgeS = 0;
      if (d + 1 > RETENTION_DAYS) {
        // The live path alone, then the same with the daily purge beside it.
        const idle = await liveWriter(runs, workspaceIds, now, LIVE_CYCLES, () => true, nextId);
        loads.idle.push(loadavg());
        let done = false;
        const purgeStart = performance.now();
        const purge = (async () => {
          try {
            for (;;) {
              const result = await purgeExpiredRuns(runs, config, now);
              deleted += result.deleted;
              if (!result.truncated) {
                return;
              }
            }
          } finally {
            purgeS = (performance.now() - purgeStart) / 1000;
            done = true;
          }
        })();
        const during = await liveWriter(runs, workspaceIds, new Date(now.getTime() + 1_000_000), 0, () => done, nextId);
        await purge;
        loads.purge.push(loadavg());
        for (const k of ['open', 'attempt', 'close', 'all'] as const) {
          without[k].push(...idle[k]);
          withPurge[k].push(...during[k]);
        }
        rows -= deleted;
        await ds.query('VACUUM runs, attempts');
      }
      const size = await sizeMb(ds);
      const day: Record<string, string> = {
        day: String(d + 1),
        'runs rows': rows.toLocaleString('en-US'),
        'runs MB': f(size.runs, 0),
        'attempts MB': f(size.attempts, 0),
        'total MB': f(size.runs + size.attempts, 0),
        'fill s': f(fillS),
        'purged runs': deleted.toLocaleString('en-US'),
        'purge s': f(purgeS),
        load: loadavg(),
      };
      days.push(day);
      console.error(JSON.stringify(day));
      const firstMillion = rows >= 1_000_000 && !queries.some((q) => q.at === 'first day >= 1M rows');
      if (firstMillion || d === DAYS - 1) {
        const q = await timeQueries(ds, workspaceIds[0], now);
        const row = {
          at: firstMillion ? 'first day >= 1M rows' : 'last day',
          'runs rows': rows.toLocaleString('en-US'),
          'GET /runs page p50/p99 ms': `${f(q.list.p50)} / ${f(q.list.p99)}`,
          'overview 24h p50/p99 ms': `${f(q.overview.p50)} / ${f(q.overview.p99)}`,
          load: q.load,
        };
        queries.push(row);
        console.error(JSON.stringify(row));
      }
    }
    console.log(
      `\n## Retention bench: ${DAYS} days x ${RUNS_PER_DAY.toLocaleString('en-US')} runs/day, retention ${RETENTION_DAYS}d, batch ${RUN_PURGE_BATCH}\n`,
    );
    console.table(days);
    console.table(queries);
    const live = ['open', 'attempt', 'close', 'all'].map((k) => {
      const a = percentile(without[k as keyof LiveSamples], 0.99);
      const b = percentile(withPurge[k as keyof LiveSamples], 0.99);
      return {
        write: k,
        'n without / with': `${without[k as keyof LiveSamples].length} / ${withPurge[k as keyof LiveSamples].length}`,
        'p50 without ms': f(percentile(without[k as keyof LiveSamples], 0.5), 2),
        'p50 with purge ms': f(percentile(withPurge[k as keyof LiveSamples], 0.5), 2),
        'p99 without ms': f(a, 2),
        'p99 with purge ms': f(b, 2),
        'p99 ratio': f(b / a, 2),
      };
    });
    console.table(live);
    console.log(`load averages, live path alone: ${loads.idle.join(' | ')}`);
    console.log(`load averages, during the purge: ${loads.purge.join(' | ')}`);
  } finally {
    await scratch.close(process.env.BENCH_KEEP_DB === '1');
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

/**
 * Idle jobs bench (issue 25): what N job workflows that sleep (a daily schedule) cost the worker,
 * and what waking them costs. Not a test. It starts nothing; it takes a running stack:
 *
 *   SVC_URL=http://127.0.0.1:3000 SVC_API_KEY=sjs_… [WORKER_METRICS_URL=http://127.0.0.1:9464/metrics]
 *   [SDK_METRICS_URL=http://127.0.0.1:9465/metrics] [METRICS_TOKEN=…] [TEMPORAL_ADDRESS=127.0.0.1:7233] [TEMPORAL_NAMESPACE=default]
 *   [DATABASE_URL=postgres://…] [TEMPORAL_DB_FILE=.data/temporal.db]
 *   node -r @swc-node/register bench/idle-jobs.ts [jobs=1000] [settle seconds=30] [--via=apply] [--cleanup=0]
 *
 * `--via=apply` creates each batch through `POST /jobs/apply` (sets of 5,000, the most one apply
 * takes; up to 100,000 jobs a batch) instead of one POST per job, 8 at a time (up to 20,000), and
 * reports jobs created per second either way. With DATABASE_URL the bench reads the `jobs`
 * table's size (indexes and TOAST included) at each sample, and with TEMPORAL_DB_FILE the dev
 * server's SQLite file (and its WAL): bytes per job in PostgreSQL and in Temporal's database.
 * The API's resident memory is read from its own /metrics (SVC_URL/metrics, tokenless on loopback).
 * `--cleanup=0` leaves the jobs (a throwaway stack: deleting 200,000 takes longer than the bench).
 *
 * 1. samples the worker's resident memory and heap (its own /metrics) until steady;
 * 2. creates N jobs firing once a day, 12 hours from now (8 requests at a time), waits `settle`
 *    seconds and until memory is steady, samples, then does it again with N more: the growth from
 *    the first sample to the second, divided by N, is the cost of an idle job (the first batch
 *    also pays the worker's warm-up, which a fresh process has to do once);
 *    With the worker on this machine (Linux), each sample also reads its live heap after a full
 *    GC, per thread (bench/load/live-heap.ts, through the worker's Node inspector): what a job
 *    keeps, without the garbage RSS still carries (LIVE_HEAP=0 leaves the inspector closed);
 * 3. wakes every job workflow once with the `describe` query: a workflow the worker evicted from
 *    its cache is fetched and replayed from history to answer it (the cost of its next wake);
 *    reports query latency and the worker's CPU seconds for the whole pass (2N), per 1,000 jobs;
 * 4. deletes the jobs (by tag, also after an error or Ctrl-C).
 * See bench/README.md.
 */
import { Client, Connection } from '@temporalio/client';
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { findWorkerPid, liveHeap, type LiveHeap } from './load/live-heap';
import { ServiceApi } from './load/service-side';
import { forEachLimited, log, percentile, range, round, timed } from './load/util';

interface WorkerSample {
  rssBytes: number;
  heapUsedBytes: number;
  cpuSeconds: number;
}

async function sampleWorker(url: string, token: string | undefined): Promise<WorkerSample> {
  const res = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  if (!res.ok) {
    throw new Error(`${url}: ${res.status}`);
  }
  const text = await res.text();
  const metric = (name: string): number => {
    const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
    if (!line) {
      throw new Error(`${url} has no ${name}`);
    }
    return Number(line.trim().split(/\s+/).pop());
  };
  return {
    rssBytes: metric('svc_worker_process_resident_memory_bytes'),
    heapUsedBytes: metric('svc_worker_nodejs_heap_size_used_bytes'),
    cpuSeconds: metric('svc_worker_process_cpu_seconds_total'),
  };
}

/** Samples every 2 s until three in a row are within 2% of RSS (or 60 s); returns the last. */
async function steadySample(url: string, token: string | undefined): Promise<WorkerSample> {
  const samples: WorkerSample[] = [];
  const deadline = Date.now() + 60_000;
  for (;;) {
    samples.push(await sampleWorker(url, token));
    const last = samples.slice(-3);
    const rss = last.map((s) => s.rssBytes);
    if ((last.length === 3 && Math.max(...rss) <= Math.min(...rss) * 1.02) || Date.now() > deadline) {
      return samples[samples.length - 1]!;
    }
    await sleep(2_000);
  }
}

/** Workflows in the worker's cache (the Temporal SDK's own metrics, when served); null if not. */
async function cachedWorkflows(url: string): Promise<number | null> {
  try {
    const text = await (await fetch(url)).text();
    const lines = text.split('\n').filter((l) => l.startsWith('temporal_sticky_cache_size'));
    return lines.reduce((sum, l) => sum + Number(l.trim().split(/\s+/).pop()), 0);
  } catch {
    return null;
  }
}

/** The API's resident memory (its own /metrics); null when it is not served to this caller. */
async function apiRssBytes(svcUrl: string, token: string | undefined): Promise<number | null> {
  try {
    const res = await fetch(`${svcUrl}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    const line = (await res.text()).split('\n').find((l) => l.startsWith('svc_api_process_resident_memory_bytes '));
    return line ? Number(line.trim().split(/\s+/).pop()) : null;
  } catch {
    return null;
  }
}

/** What the stores hold: the `jobs` table with its indexes, and the dev server's SQLite file with its WAL. */
interface StoreSample {
  pgJobsBytes: number | null;
  temporalDbBytes: number | null;
}

async function sampleStores(databaseUrl: string | undefined, temporalDbFile: string | undefined): Promise<StoreSample> {
  let pgJobsBytes: number | null = null;
  if (databaseUrl) {
    const { Client: PgClient } = await import('pg');
    const pg = new PgClient({ connectionString: databaseUrl });
    await pg.connect();
    try {
      const rows = await pg.query<{ bytes: string }>(`SELECT pg_total_relation_size('jobs') AS bytes`);
      pgJobsBytes = Number(rows.rows[0].bytes);
    } finally {
      await pg.end();
    }
  }
  let temporalDbBytes: number | null = null;
  if (temporalDbFile) {
    const { stat } = await import('node:fs/promises');
    const size = async (path: string) => (await stat(path).catch(() => null))?.size ?? 0;
    temporalDbBytes = (await size(temporalDbFile)) + (await size(`${temporalDbFile}-wal`));
  }
  return { pgJobsBytes, temporalDbBytes };
}

/** The most jobs one apply takes (APPLY_MAX_JOBS). */
const APPLY_SET = 5_000;

function parseArgs(argv: string[]) {
  const positional = argv.filter((a) => !a.startsWith('--'));
  const flag = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? null;
  const via = flag('via') ?? 'post';
  if (via !== 'post' && via !== 'apply') {
    throw new Error('--via is post or apply');
  }
  const jobs = Number(positional[0] ?? '1000');
  const most = via === 'apply' ? 100_000 : 20_000;
  if (!Number.isInteger(jobs) || jobs < 1 || jobs > most) {
    throw new Error(`jobs must be an integer from 1 to ${most} (--via=${via})`);
  }
  return { jobs, settleS: Number(positional[1] ?? '30'), via, cleanup: flag('cleanup') !== '0' };
}

const mib = (bytes: number) => round(bytes / 1024 / 1024, 1);
const kib = (bytes: number) => round(bytes / 1024, 1);
/** At most this many jobs are woken (queried) for the wake figures. */
const WAKE_SAMPLE = 2_000;

async function main(): Promise<void> {
  const { jobs, settleS, via, cleanup } = parseArgs(process.argv.slice(2));
  const databaseUrl = process.env.DATABASE_URL || undefined;
  const temporalDbFile = process.env.TEMPORAL_DB_FILE || undefined;
  const svcUrl = (process.env.SVC_URL ?? '').replace(/\/+$/, '');
  const apiKey = process.env.SVC_API_KEY ?? '';
  if (!svcUrl || !apiKey) {
    throw new Error('SVC_URL and SVC_API_KEY are required');
  }
  const metricsUrl = process.env.WORKER_METRICS_URL ?? 'http://127.0.0.1:9464/metrics';
  const token = process.env.METRICS_TOKEN || undefined;
  const sdkMetricsUrl = process.env.SDK_METRICS_URL ?? 'http://127.0.0.1:9465/metrics';
  const api = new ServiceApi(svcUrl, apiKey);
  const tag = `bench-idle-${randomBytes(4).toString('hex')}`;
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS || '127.0.0.1:7233' });
  const client = new Client({ connection, namespace: process.env.TEMPORAL_NAMESPACE || 'default' });
  const loadBefore = loadavg();
  const ids: string[] = [];
  const remove = async () => {
    const found = await api.listAll<{ id: string }>(`/jobs?tag=${encodeURIComponent(tag)}`);
    log(`deleting ${found.length} jobs`);
    await forEachLimited(found, 8, async (job) => {
      await api.call('DELETE', `/jobs/${job.id}`, undefined, [204, 404]);
    });
  };
  let interrupted = false;
  process.on('SIGINT', () => {
    interrupted = true;
  });
  try {
    // Once a day, half a day away: the job workflow plans, then sleeps for hours.
    const at = new Date(Date.now() + 12 * 3_600_000);
    const schedule = { expr: `${at.getUTCMinutes()} ${at.getUTCHours()} * * *`, kind: 'cron' };
    const sink = { kind: 'webhook', config: { url: 'http://127.0.0.1:9/never' } };
    const applyBatch = async (from: number) => {
      for (let start = 0; start < jobs; start += APPLY_SET) {
        if (interrupted) {
          throw new Error('interrupted');
        }
        const keys = range(Math.min(APPLY_SET, jobs - start)).map((i) => `idle-${from + start + i}`);
        const plan = await api.call<{ ids: Record<string, string> }>('POST', '/jobs/apply', {
          managed_by: `${tag}:${from + start}`,
          jobs: keys.map((key) => ({ key, name: key, tags: [tag], schedule, sink })),
        });
        keys.forEach((key, i) => (ids[from + start + i] = plan.ids[key]));
      }
    };
    const createBatch = async (from: number) => {
      log(`creating ${jobs} idle jobs (${schedule.expr} UTC) via ${via}`);
      const created = await timed(() =>
        via === 'apply'
          ? applyBatch(from)
          : forEachLimited(range(jobs), 8, async (i) => {
              if (interrupted) {
                throw new Error('interrupted');
              }
              const body = { name: `idle-${from + i}`, tags: [tag], schedule, sink };
              ids[from + i] = (await api.call<{ id: string }>('POST', '/jobs', body, [201])).id;
            }),
      );
      log(
        `created in ${round(created.ms / 1000, 1)} s (${round(jobs / (created.ms / 1000), 1)} jobs/s); ` +
          `waiting ${settleS} s for the workflows to sleep`,
      );
      await sleep(settleS * 1_000);
      return created;
    };
    // The first batch also warms the worker (JIT, thread heaps, allocator arenas), which a fresh
    // process pays once: the cost per idle job is the growth from the first batch to the second.
    const workerPid = process.env.LIVE_HEAP === '0' ? null : findWorkerPid();
    const heapOf = async (label: string): Promise<LiveHeap | null> => {
      if (workerPid === null) {
        return null;
      }
      const heap = await liveHeap(workerPid);
      log(`${label}: live heap after GC ${heap.threads.map((t) => `${t.thread} ${mib(t.usedBytes)} MiB`).join(', ')}`);
      return heap;
    };
    log('sampling the worker before');
    const before = await steadySample(metricsUrl, token);
    const heapBefore = await heapOf('before');
    const apiBefore = await apiRssBytes(svcUrl, token);
    const storesBefore = await sampleStores(databaseUrl, temporalDbFile);
    const firstCreated = await createBatch(0);
    const first = await steadySample(metricsUrl, token);
    const heapFirst = await heapOf('first batch');
    const apiFirst = await apiRssBytes(svcUrl, token);
    const storesFirst = await sampleStores(databaseUrl, temporalDbFile);
    const created = await createBatch(jobs);
    const idle = await steadySample(metricsUrl, token);
    const heapIdle = await heapOf('second batch');
    const apiIdle = await apiRssBytes(svcUrl, token);
    const storesIdle = await sampleStores(databaseUrl, temporalDbFile);
    const perJob = (key: keyof StoreSample) =>
      storesIdle[key] === null || storesBefore[key] === null
        ? null
        : round((storesIdle[key]! - storesBefore[key]!) / (2 * jobs), 0);
    const cached = await cachedWorkflows(sdkMetricsUrl);
    const liveTotal = (h: LiveHeap | null) => (h === null ? null : h.threads.reduce((sum, t) => sum + t.usedBytes, 0));

    log(
      `idle: worker RSS ${mib(first.rssBytes)} -> ${mib(idle.rssBytes)} MiB ` +
        `(${kib((idle.rssBytes - first.rssBytes) / jobs)} KiB per idle job), ${cached ?? '?'} workflows cached`,
    );
    // Waking is sampled beyond WAKE_SAMPLE jobs: queries to evicted or parked jobs replay them one
    // by one, and the figure is a cost per 1,000 either way.
    const wakeIds =
      ids.length > WAKE_SAMPLE ? ids.filter((_, i) => i % Math.ceil(ids.length / WAKE_SAMPLE) === 0) : ids;
    log(`waking ${wakeIds.length} job workflows once (describe query: replayed when evicted or parked)`);
    const lat: number[] = [];
    const queryErrors: string[] = [];
    const wake = await timed(() =>
      forEachLimited(wakeIds, 16, async (id) => {
        try {
          const { ms } = await timed(() => client.workflow.getHandle(id).query('describe'));
          lat.push(ms);
        } catch (err) {
          const cause = (err as { cause?: Error }).cause;
          queryErrors.push(`${id}: ${(err as Error).message}${cause ? ` (${cause.message})` : ''}`);
        }
      }),
    );
    const woken = await sampleWorker(metricsUrl, token);
    lat.sort((a, b) => a - b);
    const report = {
      date: new Date().toISOString(),
      jobs,
      loadAverage: { before: loadBefore, after: loadavg() },
      workerBefore: { rssMiB: mib(before.rssBytes), heapMiB: mib(before.heapUsedBytes) },
      workerFirstBatch: { rssMiB: mib(first.rssBytes), heapMiB: mib(first.heapUsedBytes) },
      workerIdle: { rssMiB: mib(idle.rssBytes), heapMiB: mib(idle.heapUsedBytes), cachedWorkflows: cached },
      perIdleJobKiB: {
        rss: kib((idle.rssBytes - first.rssBytes) / jobs),
        heap: kib((idle.heapUsedBytes - first.heapUsedBytes) / jobs),
        // Every thread's heap after a full GC: what the jobs keep, garbage excluded.
        liveHeap: heapFirst && heapIdle ? kib((liveTotal(heapIdle)! - liveTotal(heapFirst)!) / jobs) : null,
        liveWorkflowHeap:
          heapFirst && heapIdle ? kib((heapIdle.workflowThreadsBytes - heapFirst.workflowThreadsBytes) / jobs) : null,
      },
      liveHeapMiB: [heapBefore, heapFirst, heapIdle].map((h) =>
        h === null
          ? null
          : { total: mib(liveTotal(h)!), workflowThreads: mib(h.workflowThreadsBytes), main: mib(h.mainBytes) },
      ),
      wake: {
        seconds: round(wake.ms / 1000, 2),
        queryMs: { p50: round(percentile(lat, 0.5), 1), p99: round(percentile(lat, 0.99), 1) },
        workerCpuSecondsPer1000: round(((woken.cpuSeconds - idle.cpuSeconds) * 1000) / wakeIds.length, 2),
        woken: wakeIds.length,
        workerRssAfterMiB: mib(woken.rssBytes),
        queryErrors: queryErrors.length,
        firstQueryErrors: queryErrors.slice(0, 3),
      },
      via,
      createPerS: [firstCreated, created].map((c) => round(jobs / (c.ms / 1000), 1)),
      apiRssMiB: [apiBefore, apiFirst, apiIdle].map((b) => (b === null ? null : mib(b))),
      // Both batches over the jobs of both: the tables and files as they stand, free space included.
      bytesPerJob: { postgresJobsTable: perJob('pgJobsBytes'), temporalDatabase: perJob('temporalDbBytes') },
      stores: [storesBefore, storesFirst, storesIdle],
    };
    console.log(
      [
        `idle jobs bench ${report.date}: 2 x ${jobs} jobs; load average ${loadBefore.map((n) => n.toFixed(2)).join(' ')}`,
        `worker RSS ${report.workerBefore.rssMiB} MiB -> ${report.workerFirstBatch.rssMiB} MiB (first batch) -> ` +
          `${report.workerIdle.rssMiB} MiB (second) ` +
          `(${report.perIdleJobKiB.rss} KiB per idle job; main-thread heap ${report.perIdleJobKiB.heap} KiB per job; ` +
          `${cached ?? '?'} workflows cached)`,
        ...(heapFirst && heapIdle
          ? [
              `live heap after GC (all threads) ${mib(liveTotal(heapBefore)!)} -> ${mib(liveTotal(heapFirst)!)} -> ` +
                `${mib(liveTotal(heapIdle)!)} MiB: ${report.perIdleJobKiB.liveHeap} KiB per idle job ` +
                `(workflow threads ${report.perIdleJobKiB.liveWorkflowHeap} KiB)`,
            ]
          : []),
        `waking ${report.wake.woken} once: ${report.wake.seconds} s, query p50 ${report.wake.queryMs.p50} ms p99 ${report.wake.queryMs.p99} ms, ` +
          `worker CPU ${report.wake.workerCpuSecondsPer1000} s per 1,000 jobs, RSS after ${report.wake.workerRssAfterMiB} MiB, ` +
          `${queryErrors.length} queries failed`,
        `created ${report.createPerS.join(' / ')} jobs/s via ${via}; API RSS ${report.apiRssMiB.join(' -> ')} MiB; ` +
          `bytes per job: PostgreSQL jobs table ${report.bytesPerJob.postgresJobsTable ?? '?'}, ` +
          `Temporal database ${report.bytesPerJob.temporalDatabase ?? '?'}`,
        JSON.stringify(report),
      ].join('\n'),
    );
  } finally {
    if (cleanup) {
      await remove().catch((err: unknown) => log(`cleanup failed: ${(err as Error).message}`));
    }
    await connection.close();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    log(`failed: ${(err as Error).stack ?? String(err)}`);
    process.exit(1);
  },
);

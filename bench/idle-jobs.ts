/**
 * Idle jobs bench (issue 25): what N job workflows that sleep (a daily schedule) cost the worker,
 * and what waking them costs. Not a test. It starts nothing; it takes a running stack:
 *
 *   SVC_URL=http://127.0.0.1:3000 SVC_API_KEY=sjs_… [WORKER_METRICS_URL=http://127.0.0.1:9464/metrics]
 *   [SDK_METRICS_URL=http://127.0.0.1:9465/metrics] [METRICS_TOKEN=…] [TEMPORAL_ADDRESS=127.0.0.1:7233] [TEMPORAL_NAMESPACE=default]
 *   node -r @swc-node/register bench/idle-jobs.ts [jobs=1000] [settle seconds=30]
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

const mib = (bytes: number) => round(bytes / 1024 / 1024, 1);
const kib = (bytes: number) => round(bytes / 1024, 1);
/** At most this many jobs are woken (queried) for the wake figures. */
const WAKE_SAMPLE = 2_000;

async function main(): Promise<void> {
  const jobs = Number(process.argv[2] ?? '1000');
  const settleS = Number(process.argv[3] ?? '30');
  if (!Number.isInteger(jobs) || jobs < 1 || jobs > 20_000) {
    throw new Error('jobs must be an integer from 1 to 20000');
  }
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
    const createBatch = async (from: number) => {
      log(`creating ${jobs} idle jobs (${schedule.expr} UTC)`);
      const created = await timed(() =>
        forEachLimited(range(jobs), 8, async (i) => {
          if (interrupted) {
            throw new Error('interrupted');
          }
          const body = {
            name: `idle-${from + i}`,
            tags: [tag],
            schedule,
            sink: { kind: 'webhook', config: { url: 'http://127.0.0.1:9/never' } },
          };
          ids[from + i] = (await api.call<{ id: string }>('POST', '/jobs', body, [201])).id;
        }),
      );
      log(`created in ${round(created.ms / 1000, 1)} s; waiting ${settleS} s for the workflows to sleep`);
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
    await createBatch(0);
    const first = await steadySample(metricsUrl, token);
    const heapFirst = await heapOf('first batch');
    const created = await createBatch(jobs);
    const idle = await steadySample(metricsUrl, token);
    const heapIdle = await heapOf('second batch');
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
      createPerS: round(jobs / (created.ms / 1000), 1),
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
        JSON.stringify(report),
      ].join('\n'),
    );
  } finally {
    await remove().catch((err: unknown) => log(`cleanup failed: ${(err as Error).message}`));
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

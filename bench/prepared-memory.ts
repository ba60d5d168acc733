/**
 * Prepared-runs memory bench (issue 25): what the worker holds while a burst of N runs waits,
 * prepared, for its instant. Not a test. It starts nothing; it takes a running stack whose worker
 * has room for the burst (see bench/README.md):
 *
 *   SVC_URL=http://127.0.0.1:3000 SVC_API_KEY=sjs_… WORKER_METRICS_URL=http://127.0.0.1:9464/metrics \
 *   node -r @swc-node/register bench/prepared-memory.ts [jobs=10000]
 *
 * 1. starts a loopback receiver that answers 200, and picks an instant far enough ahead for the
 *    creates and the burst's preparation (the next whole minute after N/20 s + 150 s);
 * 2. creates N jobs firing once a day at that instant (8 requests at a time, tagged);
 * 3. samples the worker's resident memory and its count of opened occurrences every 2 s until
 *    30 s after the instant, and reports the memory with every job sleeping (the last sample
 *    before the preparation began), at the instant, per run prepared by then, and at its peak;
 *    with the worker on this machine (Linux) it also reads its live heap after a full GC in every
 *    thread (bench/load/live-heap.ts) at 130 s, 60 s and 8 s before the instant (the lead is at
 *    most 120 s, so the first finds every job sleeping and nothing prepared): the growth per
 *    prepared run without the garbage RSS carries, measured at two counts to show whether it is
 *    linear, and from it the worker's live heap with 10,000 runs prepared (LIVE_HEAP=0 skips
 *    this; each reading pauses the worker for a GC, so the burst it measures is a little late);
 * 4. deletes the jobs (by tag, also after an error or Ctrl-C).
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { findWorkerPid, type LiveHeap, liveHeap } from './load/live-heap';
import { ServiceApi } from './load/service-side';
import { forEachLimited, log, range, round } from './load/util';

interface Sample {
  at: number;
  rssMiB: number;
  /** Occurrences the job workflows opened with a run to deliver (`svc_occurrences_total{action="start"}`). */
  opened: number;
}

async function sample(url: string): Promise<Sample | null> {
  try {
    const text = await (await fetch(url)).text();
    const value = (prefix: string): number =>
      text
        .split('\n')
        .filter((line) => line.startsWith(prefix))
        .reduce((sum, line) => sum + Number(line.trim().split(/\s+/).pop()), 0);
    return {
      at: Date.now(),
      rssMiB: value('svc_worker_process_resident_memory_bytes ') / 2 ** 20,
      opened: value('svc_occurrences_total{action="start"'),
    };
  } catch {
    return null;
  }
}

async function main(): Promise<void> {
  const jobs = Number(process.argv[2] ?? 10_000);
  const { SVC_URL, SVC_API_KEY, WORKER_METRICS_URL } = process.env;
  if (!SVC_URL || !SVC_API_KEY || !WORKER_METRICS_URL) {
    throw new Error('SVC_URL, SVC_API_KEY and WORKER_METRICS_URL are required');
  }
  const api = new ServiceApi(SVC_URL, SVC_API_KEY);
  const receiver = createServer((req, res) => req.resume().on('end', () => res.end('ok')));
  await new Promise<void>((ready) => receiver.listen(0, '127.0.0.1', ready));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/prepared`;
  const tag = `bench-prepared-${randomBytes(4).toString('hex')}`;
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  // About 25 creates a second on two cores, and the first live-heap reading 130 s before the instant.
  const instant = new Date(Math.ceil((Date.now() + (jobs / 20) * 1000 + 150_000) / 60_000) * 60_000);
  const expr = `${instant.getUTCMinutes()} ${instant.getUTCHours()} * * *`;
  log(
    `load average ${loadavg()
      .map((v) => round(v, 2))
      .join(' ')}; ${jobs} jobs due at ${instant.toISOString()}`,
  );
  try {
    const before = await sample(WORKER_METRICS_URL);
    await forEachLimited(
      range(jobs),
      8,
      async (i) => {
        await api.call(
          'POST',
          '/jobs',
          {
            name: `prepared ${i}`,
            tags: [tag],
            schedule: { expr, kind: 'cron', timezone: 'UTC' },
            sink: { kind: 'webhook', config: { url: hook } },
          },
          [201],
        );
      },
      controller.signal,
    );
    const samples: Sample[] = [];
    const workerPid = process.env.LIVE_HEAP === '0' ? null : findWorkerPid();
    const heapDue = workerPid === null ? [] : [130_000, 60_000, 8_000].map((before) => instant.getTime() - before);
    const heaps: Array<{ heap: LiveHeap; opened: number }> = [];
    while (Date.now() < instant.getTime() + 30_000 && !controller.signal.aborted) {
      const s = await sample(WORKER_METRICS_URL);
      if (s) {
        samples.push(s);
      }
      if (workerPid !== null && heapDue.length > 0 && Date.now() >= heapDue[0]) {
        heapDue.shift();
        const heap = await liveHeap(workerPid);
        // The count read after the GC, so no run prepared during it is missed.
        const opened = (await sample(WORKER_METRICS_URL))?.opened ?? s?.opened ?? 0;
        const secondsBefore = Math.round((instant.getTime() - Date.now()) / 1000);
        heaps.push({ heap, opened });
        log(
          `${secondsBefore} s before the instant, ${opened} opened: live heap after GC ` +
            heap.threads.map((t) => `${t.thread} ${round(t.usedBytes / 2 ** 20, 1)} MiB`).join(', '),
        );
      }
      await sleep(2_000);
    }
    // The API answers a create before the job's workflow exists: the baseline is the last sample
    // before the burst's preparation began, when every job workflow sleeps in the worker.
    const created = samples.filter((s) => s.opened === samples[0].opened).pop() ?? samples[0];
    const peak = samples.reduce((max, s) => (s.rssMiB > max.rssMiB ? s : max), samples[0]);
    const atInstant = samples.filter((s) => s.at <= instant.getTime()).pop() ?? peak;
    const prepared = atInstant.opened - created.opened;
    log(
      `worker RSS: ${round(before?.rssMiB ?? 0, 1)} MiB before the creates, ${round(created.rssMiB, 1)} MiB with ` +
        `${jobs} jobs sleeping (${round(((created.rssMiB - (before?.rssMiB ?? 0)) * 1024) / jobs, 1)} KiB each), ` +
        `${round(atInstant.rssMiB, 1)} MiB at the instant with ${prepared} runs opened ahead ` +
        `(${round(((atInstant.rssMiB - created.rssMiB) * 1024) / Math.max(1, prepared), 1)} KiB per prepared run), ` +
        `${round(peak.rssMiB, 1)} MiB at the peak`,
    );
    reportLiveHeap(heaps, created.opened);
    for (const s of samples.filter((_, i) => i % 5 === 0)) {
      log(`${new Date(s.at).toISOString().slice(11, 19)} rss ${round(s.rssMiB, 1)} MiB, opened ${s.opened}`);
    }
    log(
      `load average ${loadavg()
        .map((v) => round(v, 2))
        .join(' ')}`,
    );
  } finally {
    const found = await api.listAll<{ id: string }>(`/jobs?tag=${encodeURIComponent(tag)}`);
    await forEachLimited(found, 8, async (job) => {
      await api.call('DELETE', `/jobs/${job.id}`, undefined, [200, 204, 404]);
    });
    receiver.close();
  }
}

/**
 * Live heap per prepared run, from the first reading (every job sleeping, nothing prepared) to
 * each later one, and the whole worker's live heap with 10,000 prepared at the last slope.
 */
function reportLiveHeap(heaps: Array<{ heap: LiveHeap; opened: number }>, openedBefore: number): void {
  const total = (h: LiveHeap): number => h.threads.reduce((sum, t) => sum + t.usedBytes, 0);
  const [first, ...later] = heaps;
  if (!first || first.opened !== openedBefore) {
    if (first) {
      log(`live heap: the first reading found runs prepared already (${first.opened - openedBefore}); no slope`);
    }
    return;
  }
  let perRunBytes: number | null = null;
  for (const h of later) {
    const prepared = h.opened - first.opened;
    if (prepared <= 0) {
      continue;
    }
    perRunBytes = (total(h.heap) - total(first.heap)) / prepared;
    const byThread = (pick: (x: LiveHeap) => number) => round((pick(h.heap) - pick(first.heap)) / prepared / 1024, 1);
    log(
      `live heap per prepared run at ${prepared} prepared: ${round(perRunBytes / 1024, 1)} KiB ` +
        `(main thread ${byThread((x) => x.mainBytes)} KiB, workflow threads ${byThread((x) => x.workflowThreadsBytes)} KiB)`,
    );
  }
  if (perRunBytes !== null) {
    log(
      `live heap with every job sleeping ${round(total(first.heap) / 2 ** 20, 1)} MiB; with 10,000 runs prepared ` +
        `(at the last slope) ${round((total(first.heap) + 10_000 * perRunBytes) / 2 ** 20, 1)} MiB, ` +
        `${round((10_000 * perRunBytes) / 2 ** 20, 1)} MiB more`,
    );
  }
}

main().catch((err: unknown) => {
  log(`failed: ${(err as Error).message}`);
  process.exitCode = 1;
});

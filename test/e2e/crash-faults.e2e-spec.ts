import { createDataSource } from '@svc/persistence';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { bootstrap } from '../../apps/cli/src/commands/bootstrap';
import {
  type Child,
  freePort,
  PrivatePostgres,
  ReadyzMonitor,
  type ServiceEnv,
  startApi,
  startWorker,
  TemporalDevServer,
} from '../utils/processes';
import { type ReceivedRequest, scheduledAtOf, sleep, waitFor, WebhookReceiver } from '../utils/receiver';
import { apiClient } from '../utils/stack';

/**
 * Crashes that overlap (issue #21; docs/operations.md → Faults). The built API and worker run as
 * their own OS processes against a Temporal dev server (file database) and a PostgreSQL started
 * by this file alone, while twelve jobs (`every 2 seconds` to `every 5 seconds`, `fire_all`,
 * overlap `allow`) deliver to a loopback receiver. For about two minutes the worker is killed
 * with SIGKILL every 8-15 s (restarted at once or a few seconds later, sometimes as two workers;
 * once together with the API), the API is killed, the Temporal server is killed and started again
 * on its database file, PostgreSQL is crashed (SIGKILL to the postmaster) and started again, each
 * of them at least twice, some of the outages at the same time. Two more jobs are deleted in the
 * middle of it. Then the faults stop, the jobs are deleted, and the test asserts:
 *
 * - no occurrence lost: every occurrence of each job, from its first delivery to a cut-off after
 *   the last fault, has a `succeeded` run and reached the receiver;
 * - one occurrence, one run: no two `schedule` runs of one (job, scheduled_at), in PostgreSQL and
 *   through the API;
 * - one occurrence, one `webhook-id`: every copy of a delivery carries its run's id;
 * - nothing hangs: no run is left `running` or `deferred` once the jobs are deleted (runs of a
 *   deleted job end `succeeded` or `cancelled`).
 *
 * Only what happened is asserted, never how fast: waits are bounded polls.
 */
const PERIODS_MS = [2_000, 3_000, 4_000, 5_000];
const KEPT_JOBS = 12;
const DELETED_JOBS = 2;
const TERMINAL = new Set(['succeeded', 'failed', 'skipped', 'cancelled']);
/** Occurrences due this long after the last fault are inside the checked range. */
const CUTOFF_AFTER_FAULTS_MS = 10_000;
/** How long open runs may take to close once the jobs are deleted (the orphan sweep runs about every 30 s). */
const CLOSE_WAIT_MS = 90_000;

/** One worker SIGKILL: after `afterMs` of the workers running, down for `downMs`, then `workers` of them. */
interface WorkerKill {
  afterMs: number;
  downMs: number;
  workers: 1 | 2;
  withApi?: boolean;
}
const WORKER_KILLS: WorkerKill[] = [
  { afterMs: 8_000, downMs: 0, workers: 1 },
  { afterMs: 10_000, downMs: 4_000, workers: 1, withApi: true },
  { afterMs: 9_000, downMs: 2_000, workers: 2 },
  { afterMs: 12_000, downMs: 0, workers: 1 },
  { afterMs: 8_000, downMs: 5_000, workers: 1 },
  { afterMs: 10_000, downMs: 0, workers: 2 },
  { afterMs: 9_000, downMs: 3_000, workers: 1 },
  { afterMs: 11_000, downMs: 0, workers: 1 },
  { afterMs: 8_000, downMs: 2_000, workers: 2 },
  { afterMs: 10_000, downMs: 0, workers: 1 },
];

type Part = 'api' | 'temporal' | 'postgres';
/** An outage of another part: `atMs` after the faults begin, for `downMs`. */
const OUTAGES: Array<{ part: Part; atMs: number; downMs: number }> = [
  { part: 'temporal', atMs: 20_000, downMs: 10_000 },
  { part: 'api', atMs: 34_000, downMs: 5_000 },
  { part: 'postgres', atMs: 45_000, downMs: 8_000 },
  { part: 'temporal', atMs: 75_000, downMs: 6_000 },
  { part: 'postgres', atMs: 78_000, downMs: 5_000 },
];
/** When the two extra jobs are deleted (mid-faults, just after a worker SIGKILL). */
const DELETE_AT_MS = 57_000;

interface Job {
  id: string;
  periodMs: number;
}

interface RunRow {
  id: string;
  job_id: string;
  scheduled_at: Date;
  status: string;
  trigger: string;
  skip_reason: string | null;
  created_at: Date;
  attempts_count: number;
}

interface ApiRun {
  id: string;
  scheduled_at: string;
  trigger: string;
}

interface FaultEvent {
  at: number;
  what: string;
}

describe('crashes that overlap', () => {
  let receiver: WebhookReceiver;
  let postgres: PrivatePostgres;
  let temporal: TemporalDevServer;
  let env: ServiceEnv;
  let apiPort: number;
  let metricsPort: number;
  let api: Child | undefined;
  let workers: Child[] = [];
  let readyz: ReadyzMonitor;
  let call: ReturnType<typeof apiClient>;
  const kept: Job[] = [];
  const deleted: Job[] = [];
  const faults: FaultEvent[] = [];
  const workerLogs: string[] = [];
  let report: Record<string, unknown> = {};

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    [postgres, temporal] = await Promise.all([PrivatePostgres.start(), TemporalDevServer.start()]);
    const dataSource = await createDataSource(postgres.url()).initialize();
    await dataSource.runMigrations();
    const boot = await bootstrap(dataSource, { slug: 'acme', plan: 'self_hosted' });
    await dataSource.destroy();
    [apiPort, metricsPort] = [await freePort(), await freePort()];
    env = {
      databaseUrl: postgres.url(),
      temporalAddress: temporal.address,
      taskQueue: `svc-crash-faults-${process.pid}`,
      extra: {},
    };
    [api] = await Promise.all([startApi(env, apiPort), startWorkers(1)]);
    const baseUrl = `http://127.0.0.1:${apiPort}`;
    call = apiClient(baseUrl, boot.apiKey);
    readyz = new ReadyzMonitor(baseUrl, 1_000);
    for (let i = 0; i < KEPT_JOBS + DELETED_JOBS; i++) {
      (i < KEPT_JOBS ? kept : deleted).push(await createJob(i));
    }
    await waitFor(() => [...kept, ...deleted].every((job) => receiver.forJob(job.id).length > 0), 60_000);
  }, 240_000);

  afterAll(async () => {
    console.log(`crash-faults: ${JSON.stringify(report, null, 1)}`);
    console.log(
      `crash-faults: faults ${JSON.stringify(faults.map((f) => `${new Date(f.at).toISOString()} ${f.what}`))}`,
    );
    await readyz?.stop();
    await Promise.all([api?.kill('SIGKILL'), killWorkers()]);
    keepWorkerLogs();
    await Promise.all([temporal?.destroy(), postgres?.destroy()]);
    await receiver?.stop();
  }, 60_000);

  /** The output of every worker process, in a file named in the test's output (for a failure's evidence). */
  function keepWorkerLogs(): void {
    const file = join(tmpdir(), `svc-crash-faults-workers-${process.pid}.log`);
    writeFileSync(file, workerLogs.map((output, i) => `=== worker process ${i + 1}\n${output}`).join('\n'));
    console.log(`crash-faults: worker logs in ${file}`);
  }

  async function createJob(i: number): Promise<Job> {
    const periodMs = PERIODS_MS[i % PERIODS_MS.length];
    const created = await call('POST', '/api/v1/jobs', {
      name: `crash ${i}`,
      schedule: { expr: `every ${periodMs / 1000} seconds` },
      sink: { kind: 'webhook', config: { url: `${receiver.url}/job-${i}` } },
      misfire_policy: 'fire_all',
      overlap_policy: 'allow',
    });
    expect(created.status).toBe(201);
    return { id: created.body.id, periodMs };
  }

  function noteFault(what: string): void {
    faults.push({ at: Date.now(), what });
  }

  /** Starts `start` again until it succeeds (a part it needs may be down meanwhile). */
  async function startUntilUp<T>(name: string, start: () => Promise<T>, timeoutMs = 120_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        return await start();
      } catch (err) {
        if (Date.now() > deadline) {
          throw new Error(`${name} did not start: ${(err as Error).message.slice(0, 2_000)}`);
        }
        await sleep(2_000);
      }
    }
  }

  async function startWorkers(count: number): Promise<void> {
    const started = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        startUntilUp('worker', () =>
          startWorker({ ...env, extra: { ...env.extra, METRICS_WORKER_PORT: i === 0 ? String(metricsPort) : '0' } }),
        ),
      ),
    );
    workers.push(...started);
  }

  async function killWorkers(): Promise<void> {
    const dying = workers;
    workers = [];
    await Promise.all(dying.map((w) => w.kill('SIGKILL')));
    workerLogs.push(...dying.map((w) => w.output));
  }

  async function restartApi(): Promise<void> {
    api = await startUntilUp('api', () => startApi(env, apiPort));
  }

  async function killApi(): Promise<void> {
    await api?.kill('SIGKILL');
  }

  async function crashWorkers(): Promise<void> {
    for (const kill of WORKER_KILLS) {
      await sleep(kill.afterMs);
      noteFault(`SIGKILL ${workers.length} worker(s)${kill.withApi ? ' and the API' : ''}`);
      await Promise.all([killWorkers(), kill.withApi ? killApi() : undefined]);
      await sleep(kill.downMs);
      await Promise.all([startWorkers(kill.workers), kill.withApi ? restartApi() : undefined]);
      noteFault(`started ${kill.workers} worker(s)${kill.withApi ? ' and the API' : ''}`);
    }
  }

  const stopPart: Record<Part, () => Promise<void>> = {
    api: killApi,
    temporal: () => temporal.kill(),
    postgres: () => postgres.crash(),
  };
  const startPart: Record<Part, () => Promise<void>> = {
    api: restartApi,
    temporal: () => startUntilUp('temporal', () => temporal.start()),
    postgres: () => startUntilUp('postgres', () => postgres.start()),
  };

  async function outage(part: Part, atMs: number, downMs: number, faultsStart: number): Promise<void> {
    await sleep(faultsStart + atMs - Date.now());
    noteFault(`SIGKILL ${part}`);
    await stopPart[part]();
    await sleep(downMs);
    await startPart[part]();
    noteFault(`started ${part}`);
  }

  /** Deletes a job, retrying while the API or PostgreSQL is down (404: an earlier try went through). */
  async function deleteJob(job: Job): Promise<void> {
    await waitFor(
      async () => {
        const answer = await call('DELETE', `/api/v1/jobs/${job.id}`).catch(() => ({ status: 0 }));
        return answer.status === 204 || answer.status === 404;
      },
      120_000,
      1_000,
    );
  }

  async function deleteMidFaults(faultsStart: number): Promise<void> {
    await sleep(faultsStart + DELETE_AT_MS - Date.now());
    await Promise.all(deleted.map(deleteJob));
    noteFault(`deleted ${deleted.length} jobs`);
  }

  async function query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    const client = new Client({ connectionString: postgres.url() });
    await client.connect();
    try {
      return (await client.query(sql, params)).rows as T[];
    } finally {
      await client.end();
    }
  }

  function scheduleRuns(): Promise<RunRow[]> {
    return query<RunRow>(
      `SELECT id, job_id, scheduled_at, status, trigger, skip_reason, created_at, attempts_count
         FROM runs ORDER BY job_id, scheduled_at`,
    );
  }

  function openRuns(): Promise<RunRow[]> {
    return query<RunRow>(
      `SELECT id, job_id, scheduled_at, status, trigger, skip_reason, created_at, attempts_count
         FROM runs WHERE status IN ('running', 'deferred') ORDER BY scheduled_at`,
    );
  }

  /** Occurrences of (job, scheduled_at) with more than one `schedule` run, read from PostgreSQL. */
  function duplicateOccurrences(): Promise<Array<{ job_id: string; scheduled_at: Date; count: string }>> {
    return query(
      `SELECT job_id, scheduled_at, count(*) FROM runs WHERE trigger = 'schedule'
        GROUP BY 1, 2 HAVING count(*) > 1 ORDER BY 2`,
    );
  }

  /** Waits until each kept job has decided an occurrence due at or after `at` (decisions are in order). */
  async function waitForOccurrencesDecidedPast(at: number): Promise<void> {
    await waitFor(
      async () => {
        const rows = await scheduleRuns().catch(() => []);
        return kept.every((job) =>
          rows.some((r) => r.job_id === job.id && r.scheduled_at.getTime() >= at && TERMINAL.has(r.status)),
        );
      },
      120_000,
      1_000,
    );
  }

  /** Waits (bounded, no throw) until the runs of kept jobs due up to `cutoff` are terminal. */
  async function waitForRunsUpTo(cutoff: number): Promise<void> {
    const keptIds = new Set(kept.map((job) => job.id));
    await waitFor(
      async () => {
        const open = await openRuns().catch(() => null);
        return open !== null && !open.some((r) => keptIds.has(r.job_id) && r.scheduled_at.getTime() <= cutoff);
      },
      90_000,
      1_000,
    ).catch(() => undefined);
  }

  /** Polls until no run is open, up to CLOSE_WAIT_MS; returns what is still open then. */
  async function openRunsAfterWaiting(): Promise<RunRow[]> {
    let open: RunRow[] = [];
    await waitFor(
      async () => {
        open = await openRuns();
        return open.length === 0;
      },
      CLOSE_WAIT_MS,
      2_000,
    ).catch(() => undefined);
    return open;
  }

  /** A job's runs through the API, every page. */
  async function runsThroughApi(jobId: string): Promise<ApiRun[]> {
    const all: ApiRun[] = [];
    let cursor: string | null = null;
    do {
      const path = `/api/v1/jobs/${jobId}/runs?limit=200${cursor ? `&cursor=${cursor}` : ''}`;
      const page: { status: number; body: { data: ApiRun[]; next_cursor: string | null } } = await call('GET', path);
      expect(page.status).toBe(200);
      all.push(...page.body.data);
      cursor = page.body.next_cursor;
    } while (cursor);
    return all;
  }

  /** Occurrences (scheduled_at, ms) that appear more than once among `schedule` runs. */
  function repeatedTicks(runs: Array<{ scheduled_at: string | Date; trigger: string }>): number[] {
    const seen = new Map<number, number>();
    for (const run of runs.filter((r) => r.trigger === 'schedule')) {
      const at = new Date(run.scheduled_at).getTime();
      seen.set(at, (seen.get(at) ?? 0) + 1);
    }
    return [...seen].filter(([, n]) => n > 1).map(([at]) => at);
  }

  /** Deliveries grouped by occurrence: `jobId@scheduledAt` → requests. */
  function deliveriesByOccurrence(): Map<string, ReceivedRequest[]> {
    const byOccurrence = new Map<string, ReceivedRequest[]>();
    for (const request of receiver.requests) {
      const key = `${request.headers['svc-job-id'] as string}@${scheduledAtOf(request)}`;
      byOccurrence.set(key, [...(byOccurrence.get(key) ?? []), request]);
    }
    return byOccurrence;
  }

  /** Occurrences of a kept job from its first delivery to `cutoff` without a succeeded, delivered run. */
  function lostOccurrences(job: Job, rows: RunRow[], cutoff: number, delivered: Map<string, ReceivedRequest[]>) {
    const first = Math.min(...receiver.forJob(job.id).map(scheduledAtOf));
    const lost: Array<{ job: string; at: string; runs: RunRow[]; deliveries: number }> = [];
    for (let at = first; at <= cutoff; at += job.periodMs) {
      const runs = rows.filter((r) => r.job_id === job.id && r.scheduled_at.getTime() === at);
      const deliveries = delivered.get(`${job.id}@${at}`)?.length ?? 0;
      if (deliveries === 0 || !runs.some((r) => r.status === 'succeeded')) {
        lost.push({ job: job.id, at: new Date(at).toISOString(), runs, deliveries });
      }
    }
    return lost;
  }

  /** Occurrences whose deliveries carry more than one `webhook-id`, or one that is not its run's id. */
  function foreignWebhookIds(rows: RunRow[], delivered: Map<string, ReceivedRequest[]>) {
    const runIdsOf = new Map<string, string[]>();
    for (const row of rows.filter((r) => r.trigger === 'schedule')) {
      const key = `${row.job_id}@${row.scheduled_at.getTime()}`;
      runIdsOf.set(key, [...(runIdsOf.get(key) ?? []), row.id]);
    }
    return [...delivered]
      .map(([occurrence, requests]) => ({
        occurrence,
        webhookIds: [...new Set(requests.map((r) => r.headers['webhook-id'] as string))],
        runIds: runIdsOf.get(occurrence) ?? [],
      }))
      .filter(
        ({ webhookIds, runIds }) => webhookIds.length !== 1 || runIds.length !== 1 || runIds[0] !== webhookIds[0],
      );
  }

  it('should deliver every occurrence once as one run with one webhook-id, and leave no run open', async () => {
    const faultsStart = Date.now();
    await Promise.all([
      crashWorkers(),
      ...OUTAGES.map(({ part, atMs, downMs }) => outage(part, atMs, downMs, faultsStart)),
      deleteMidFaults(faultsStart),
    ]);
    const lastFaultAt = Date.now();
    await waitFor(async () => (await readyz.probe()).status === 200, 120_000, 1_000);
    const cutoff = lastFaultAt + CUTOFF_AFTER_FAULTS_MS;
    await waitForOccurrencesDecidedPast(cutoff);
    await waitForRunsUpTo(cutoff);
    const duringFaults = await scheduleRuns();

    await Promise.all(kept.map(deleteJob));
    const deletedAt = Date.now();
    const stillOpen = await openRunsAfterWaiting();
    const rows = await scheduleRuns();
    const duplicates = await duplicateOccurrences();
    const delivered = deliveriesByOccurrence();
    const lost = kept.flatMap((job) => lostOccurrences(job, duringFaults, cutoff, delivered));
    const foreign = foreignWebhookIds(rows, delivered);
    const repeatedInApi: Array<{ job: string; at: number[] }> = [];
    for (const job of [...kept, ...deleted]) {
      const ticks = repeatedTicks(await runsThroughApi(job.id));
      if (ticks.length > 0) {
        repeatedInApi.push({ job: job.id, at: ticks });
      }
    }
    const deletedJobIds = new Set(deleted.map((job) => job.id));
    const ofDeletedJobs = rows.filter((r) => deletedJobIds.has(r.job_id));
    report = {
      faults: faults.length,
      faultsMs: lastFaultAt - faultsStart,
      cutoff: new Date(cutoff).toISOString(),
      occurrencesChecked: kept.reduce(
        (n, job) => n + duringFaults.filter((r) => r.job_id === job.id && r.scheduled_at.getTime() <= cutoff).length,
        0,
      ),
      runRows: rows.length,
      deliveries: receiver.requests.length,
      occurrencesDelivered: delivered.size,
      resends: receiver.requests.length - delivered.size,
      occurrencesWithTwoRuns: duplicates.length,
      resendsWithAnotherWebhookId: foreign.length,
      lost: lost.length,
      openAfterDelete: stillOpen.length,
      secondsToCloseAfterDelete: Math.round((Date.now() - deletedAt) / 1000),
      deletedJobRuns: ofDeletedJobs.length,
      deletedJobRunsCancelled: ofDeletedJobs.filter((r) => r.status === 'cancelled').length,
      readyz503: readyz.observations.filter((o) => o.status === 503).length,
    };

    expect(duplicates).toEqual([]);
    expect(repeatedInApi).toEqual([]);
    expect(foreign).toEqual([]);
    expect(lost).toEqual([]);
    expect(stillOpen).toEqual([]);
    expect(ofDeletedJobs.filter((r) => r.status !== 'succeeded' && r.status !== 'cancelled')).toEqual([]);
  }, 600_000);
});

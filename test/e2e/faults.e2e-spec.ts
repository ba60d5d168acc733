import { createDataSource } from '@svc/persistence';
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
 * Faults survived (issue #13; docs/operations.md → Faults). The built API and worker run as
 * their own OS processes against a Temporal dev server and a PostgreSQL started by this file
 * alone (the shared ones are never touched), while two jobs fire every 2 s to a loopback
 * receiver. The dev server is killed and started again on its database file, PostgreSQL is
 * stopped and started, the API is killed with SIGKILL and started again. After each recovery
 * every due occurrence has exactly one terminal run (delivered, or skipped as a misfire), a
 * second delivery of an occurrence carries the same `webhook-id`, no run is left open, and
 * `/readyz` said 503 naming the part that was down while it was down, then 200 by itself.
 *
 * `fire_all` keeps a run for every missed occurrence; under `skip` (the misfire threshold is 3 s
 * here, so outages make misfires) missed occurrences but the latest get no run of their own and
 * are counted in `svc_occurrences_total{action="collapse"}` (decisions.md), which the test reads.
 */
const PERIOD_MS = 2_000;
const OUTAGE_MS = 8_000;
const TERMINAL = new Set(['succeeded', 'failed', 'skipped', 'cancelled']);

interface Run {
  id: string;
  status: string;
  skip_reason?: string;
  scheduled_at: string;
  trigger: string;
}

describe('faults survived', () => {
  let receiver: WebhookReceiver;
  let postgres: PrivatePostgres;
  let temporal: TemporalDevServer;
  let env: ServiceEnv;
  let apiPort: number;
  let metricsPort: number;
  let api: Child;
  let worker: Child;
  let readyz: ReadyzMonitor;
  let call: ReturnType<typeof apiClient>;
  const jobs = { fireAll: '', skip: '' };

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    [postgres, temporal] = await Promise.all([PrivatePostgres.start(), TemporalDevServer.start()]);
    // The schema and the first key, as `svc migrate` and `svc bootstrap` make them.
    const dataSource = await createDataSource(postgres.url()).initialize();
    await dataSource.runMigrations();
    const boot = await bootstrap(dataSource, { slug: 'acme', plan: 'self_hosted' });
    await dataSource.destroy();
    [apiPort, metricsPort] = [await freePort(), await freePort()];
    env = {
      databaseUrl: postgres.url(),
      temporalAddress: temporal.address,
      taskQueue: `svc-faults-${process.pid}`,
      extra: { SCHEDULER_MISFIRE_THRESHOLD: '3s', METRICS_WORKER_PORT: String(metricsPort) },
    };
    [api, worker] = await Promise.all([startApi(env, apiPort), startWorker(env)]);
    const baseUrl = `http://127.0.0.1:${apiPort}`;
    call = apiClient(baseUrl, boot.apiKey);
    readyz = new ReadyzMonitor(baseUrl);
    for (const policy of ['fire_all', 'skip'] as const) {
      const created = await call('POST', '/api/v1/jobs', {
        name: `faults ${policy}`,
        schedule: { expr: 'every 2 seconds' },
        sink: { kind: 'webhook', config: { url: `${receiver.url}/${policy}` } },
        misfire_policy: policy,
        overlap_policy: 'allow',
      });
      expect(created.status).toBe(201);
      jobs[policy === 'fire_all' ? 'fireAll' : 'skip'] = created.body.id;
    }
    await waitFor(() => receiver.forJob(jobs.fireAll).length >= 2 && receiver.forJob(jobs.skip).length >= 2, 30_000);
  }, 240_000);

  afterAll(async () => {
    await readyz?.stop();
    await Promise.all([api?.kill('SIGKILL'), worker?.kill('SIGKILL')]);
    await Promise.all([temporal?.destroy(), postgres?.destroy()]);
    await receiver?.stop();
  });

  /** Takes a part down for OUTAGE_MS (three or four occurrences fall due), then starts it again. */
  async function outage(stop: () => Promise<unknown>, start: () => Promise<unknown>) {
    await waitFor(async () => (await readyz.probe()).status === 200, 60_000);
    await stop();
    const downAt = Date.now();
    await sleep(OUTAGE_MS);
    const upAt = Date.now();
    await start();
    return { downAt, upAt };
  }

  function expectReportedDown(downAt: number, upAt: number, part: 'temporal' | 'database_writable') {
    const during = readyz.between(downAt, upAt);
    expect(during.length).toBeGreaterThan(0);
    for (const seen of during) {
      expect({ status: seen.status, ready: seen.body?.status, [part]: seen.body?.[part] }).toEqual({
        status: 503,
        ready: 'unavailable',
        [part]: false,
      });
    }
  }

  async function runsOf(jobId: string): Promise<Run[]> {
    const page = await call('GET', `/api/v1/jobs/${jobId}/runs?limit=200`);
    expect(page.status).toBe(200);
    return page.body.data as Run[];
  }

  /** The worker's count of missed occurrences folded into a later one's run (no row of their own). */
  async function collapsed(): Promise<number> {
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    return text
      .split('\n')
      .filter((line) => line.startsWith('svc_occurrences_total{') && line.includes('action="collapse"'))
      .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
  }

  /**
   * After a recovery: for each job, waits for an occurrence due well after it to end (the job
   * workflow decides occurrences in order, so every earlier one is decided by then) and for every
   * run up to there to be terminal, then accounts for each occurrence from the job's first.
   */
  async function expectEveryOccurrenceAccounted(recoveredAt: number): Promise<void> {
    for (const jobId of [jobs.fireAll, jobs.skip]) {
      const boundary = await waitFor(async () => {
        const after = (await runsOf(jobId)).find(
          (r) => Date.parse(r.scheduled_at) >= recoveredAt + 2 * PERIOD_MS && TERMINAL.has(r.status),
        );
        return after ? Date.parse(after.scheduled_at) : null;
      }, 90_000);
      let open: Run[] = [];
      const runs = await waitFor(async () => {
        const upTo = (await runsOf(jobId)).filter((r) => Date.parse(r.scheduled_at) <= boundary);
        open = upTo.filter((r) => !TERMINAL.has(r.status));
        return open.length === 0 ? upTo : null;
      }, 90_000).catch(() => {
        throw new Error(`runs left open: ${JSON.stringify(open)}`);
      });

      expect(runs.every((r) => r.trigger === 'schedule')).toBe(true);
      const byTick = new Map<number, Run[]>();
      for (const run of runs) {
        const at = Date.parse(run.scheduled_at);
        byTick.set(at, [...(byTick.get(at) ?? []), run]);
      }
      // Never two runs of one occurrence; every run delivered, or skipped as a misfire.
      expect([...byTick.values()].filter((same) => same.length > 1)).toEqual([]);
      expect(
        runs.filter((r) => r.status !== 'succeeded' && !(r.status === 'skipped' && r.skip_reason === 'misfire')),
      ).toEqual([]);
      // A delivery belongs to its occurrence's delivered run: a copy carries that run's webhook-id.
      const deliveries = receiver.forJob(jobId).filter((d) => scheduledAtOf(d) <= boundary);
      const strays = deliveries.filter((d: ReceivedRequest) => {
        const run = byTick.get(scheduledAtOf(d))?.[0];
        return !run || run.status !== 'succeeded' || d.headers['webhook-id'] !== run.id;
      });
      expect(strays.map((d) => d.headers)).toEqual([]);
      const delivered = new Set(deliveries.map((d) => d.headers['webhook-id']));
      expect(runs.filter((r) => r.status === 'succeeded' && !delivered.has(r.id))).toEqual([]);

      const first = Math.min(...byTick.keys());
      const missing: string[] = [];
      for (let t = first; t <= boundary; t += PERIOD_MS) {
        if (!byTick.has(t)) {
          missing.push(new Date(t).toISOString());
        }
      }
      if (jobId === jobs.fireAll) {
        // fire_all: a delivered run for every occurrence.
        expect(missing).toEqual([]);
        expect(runs.filter((r) => r.status !== 'succeeded')).toEqual([]);
      } else {
        // skip: an occurrence without a run is one the misfire policy folded into a later run,
        // counted when that run was opened.
        const folded = await waitFor(async () => {
          const count = await collapsed();
          return count >= missing.length ? count : null;
        }, 10_000).catch(() => collapsed());
        expect(missing.length).toBeLessThanOrEqual(folded);
      }
    }
  }

  it('should account for every occurrence across a crash and restart of the Temporal server', async () => {
    let duringOutage: Awaited<ReturnType<typeof call>> | undefined;
    const { downAt, upAt } = await outage(
      async () => {
        await temporal.kill();
        // Runs are read from PostgreSQL only: the API still answers them.
        duringOutage = await call('GET', `/api/v1/jobs/${jobs.fireAll}/runs?limit=1`);
      },
      () => temporal.start(),
    );
    expect(duringOutage?.status).toBe(200);
    expectReportedDown(downAt, upAt, 'temporal');
    // Ready again by itself: the worker polls the restarted server, the API reaches it.
    await waitFor(async () => (await readyz.probe()).status === 200, 90_000);
    await expectEveryOccurrenceAccounted(upAt);
    expect([api.alive, worker.alive]).toEqual([true, true]);
  }, 240_000);

  it('should account for every occurrence across a restart of PostgreSQL', async () => {
    let duringOutage: Awaited<ReturnType<typeof call>> | undefined;
    const { downAt, upAt } = await outage(
      async () => {
        await postgres.stop();
        // Requests that need the database say so (spec: 503 unavailable, retry), not 500.
        duringOutage = await call('GET', `/api/v1/jobs/${jobs.fireAll}`);
      },
      () => postgres.start(),
    );
    expect(duringOutage).toMatchObject({ status: 503, body: { error: { code: 'unavailable' } } });
    expect(duringOutage?.headers.get('retry-after')).toBe('5');
    expectReportedDown(downAt, upAt, 'database_writable');
    // /readyz names the dependency that is out and why.
    for (const seen of readyz.between(downAt, upAt)) {
      expect(seen.body?.database_error).toMatch(/^PostgreSQL at 127\.0\.0\.1:\d+: /);
    }
    await waitFor(async () => (await readyz.probe()).status === 200, 90_000);
    await expectEveryOccurrenceAccounted(upAt);
    expect([api.alive, worker.alive]).toEqual([true, true]);
  }, 240_000);

  it('should account for every occurrence when the API is killed and started again', async () => {
    const { downAt, upAt } = await outage(
      () => api.kill('SIGKILL'),
      async () => {
        api = await startApi(env, apiPort);
      },
    );
    // No API, no answer at all; the schedule does not depend on it.
    expect(readyz.between(downAt, upAt).every((seen) => seen.status === 0)).toBe(true);
    await waitFor(async () => (await readyz.probe()).status === 200, 60_000);
    await expectEveryOccurrenceAccounted(upAt);
    expect(worker.alive).toBe(true);
  }, 240_000);
});

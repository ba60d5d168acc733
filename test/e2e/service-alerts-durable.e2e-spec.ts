import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Child, freePort, serviceDegradedGauges, startWorker } from '../utils/processes';
import { sleep, waitFor } from '../utils/receiver';
import { serviceAlertsChannel, serviceAlertsReceived } from '../utils/service-alerts';
import { temporalAddress, useStackAndReceiver } from '../utils/stack';
import { TcpProxy } from '../utils/tcp-proxy';

/**
 * Issue 48: the service-health transitions a worker holds while PostgreSQL is out survive the
 * worker (docs/alerts.md → Service events). The built worker reaches PostgreSQL through a
 * loopback TCP proxy the test cuts; it sees the outage, is killed with SIGKILL before it can record
 * anything, and a new worker on the same state folder (`WORKER_STATE_DIR`) tells it once
 * PostgreSQL is back: exactly one signed `service.degraded` carrying its start and end, and one
 * `service.recovered`, at a loopback webhook. A crash between recording and rewriting the
 * journal (the old journal put back) records and sends nothing twice.
 */
jest.setTimeout(300_000);

const FILES = ['service-alerts.jsonl', 'service-health.json'];

describe('service alerts kept across a worker crash', () => {
  let postgres: TcpProxy;
  let stateDir: string;
  let databaseUrl: string;
  let metricsPort: number;
  let secret: string;
  const workers: Child[] = [];

  // Declared before the stack's hooks, so that it runs first: the workers stop before the stack drops their database.
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.kill('SIGKILL')));
    await postgres?.stop();
  });
  const e2e = useStackAndReceiver({ worker: false });
  afterAll(() => {
    rmSync(stateDir, { recursive: true, force: true });
  });

  beforeAll(async () => {
    secret = (await serviceAlertsChannel(e2e.api, `${e2e.receiver.url}/service`)).secret;
    ({ proxy: postgres, url: databaseUrl } = await TcpProxy.inFrontOfDatabase(e2e.stack.config.database.url));
    stateDir = mkdtempSync(join(tmpdir(), 'svc-worker-state-e2e-'));
    metricsPort = await freePort();
  });

  async function start(): Promise<Child> {
    const worker = await startWorker({
      databaseUrl,
      temporalAddress: temporalAddress(),
      taskQueue: e2e.stack.config.temporal.task_queue,
      extra: {
        WORKER_STATE_DIR: stateDir,
        METRICS_WORKER_PORT: String(metricsPort),
        ALERTS_SERVICE_DEGRADED_AFTER: '8s',
        ALERTS_SWEEP_INTERVAL: '1s',
      },
    });
    workers.push(worker);
    return worker;
  }

  const postgresGauge = async () => (await serviceDegradedGauges(metricsPort)).postgres;
  /** Verified service alerts for PostgreSQL received so far, of `type`. */
  const ofType = (type: string) =>
    serviceAlertsReceived(e2e.receiver, secret, 'postgres').filter((a) => a.type === type);

  async function recordedRows(): Promise<Array<{ type: string }>> {
    return e2e.stack.dataSource.query(
      `SELECT type FROM alert_events WHERE details->'service'->>'dependency' = 'postgres' ORDER BY type`,
    );
  }

  it('should tell an outage seen by a worker killed before it could record it, once, after recovery', async () => {
    const first = await start();
    postgres.down();
    let kept: Record<string, string>;
    try {
      await waitFor(async () => (await postgresGauge()) === 1, 60_000);
      await waitFor(() => /service alerts: 1 waiting, not recorded yet: PostgreSQL is out/.test(first.output), 20_000);
      kept = Object.fromEntries(FILES.map((file) => [file, readFileSync(join(stateDir, file), 'utf8')]));
      expect(kept['service-alerts.jsonl']).toMatch(/^\{"id":"service\.degraded:postgres:[^\n]+\}\n$/);
      await first.kill('SIGKILL');
    } finally {
      await postgres.up();
    }
    // The killed worker recorded nothing; without its journal nobody would tell this outage.
    expect(await recordedRows()).toEqual([]);
    const second = await start();
    await waitFor(() => /took up 1 waiting transition\(s\) and 1 degradation\(s\)/.test(second.output), 20_000);
    await waitFor(() => ofType('service.degraded').length > 0 && ofType('service.recovered').length > 0, 90_000);
    await sleep(6_000);
    expect(ofType('service.degraded')).toHaveLength(1);
    expect(ofType('service.recovered')).toHaveLength(1);
    const [down] = ofType('service.degraded');
    const [up] = ofType('service.recovered');
    expect(down.data.service.cause).toBe('PostgreSQL is unreachable or read-only');
    expect(up.data.service.began_at).toBe(down.data.service.began_at);
    // Told only after the restart: the degradation carries its end, the new worker's first look.
    expect(down.data.service.ended_at).toBe(up.data.service.ended_at);
    expect(Date.parse(down.data.service.ended_at)).toBeGreaterThan(Date.parse(down.data.service.began_at));
    await waitFor(() => readFileSync(join(stateDir, 'service-alerts.jsonl'), 'utf8') === '', 20_000);
    expect(await postgresGauge()).toBe(0);

    // A crash between recording and rewriting the journal: the old journal is back, and the next
    // worker records it again, which inserts nothing.
    await second.kill('SIGKILL');
    for (const [file, text] of Object.entries(kept)) {
      writeFileSync(join(stateDir, file), text);
    }
    const third = await start();
    await waitFor(() => /took up 1 waiting transition\(s\) and 1 degradation\(s\)/.test(third.output), 20_000);
    await waitFor(() => readFileSync(join(stateDir, 'service-alerts.jsonl'), 'utf8') === '', 30_000);
    await sleep(8_000);
    expect(await recordedRows()).toEqual([{ type: 'service.degraded' }, { type: 'service.recovered' }]);
    expect(ofType('service.degraded')).toHaveLength(1);
    expect(ofType('service.recovered')).toHaveLength(1);
  });
});

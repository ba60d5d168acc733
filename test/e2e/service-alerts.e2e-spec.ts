import { type Child, freePort, serviceDegradedGauges, startWorker } from '../utils/processes';
import { sleep, waitFor } from '../utils/receiver';
import { serviceAlertsChannel, serviceAlertsReceived } from '../utils/service-alerts';
import { apiClient, temporalAddress, useStackAndReceiver } from '../utils/stack';
import { TcpProxy } from '../utils/tcp-proxy';

/**
 * Operators are told (issue 48; docs/alerts.md → Service events): the built worker reaches
 * Temporal (the real dev server) and PostgreSQL through loopback TCP proxies the test cuts. A rule
 * subscribed to `service.degraded` / `service.recovered` gets, at a real webhook receiver on
 * 127.0.0.1, one signed `service.degraded` per outage (not one per probe) and one
 * `service.recovered` once it is over — also when the outage was PostgreSQL's, where the rules
 * could not be read: the alert is sent after recovery and carries when it began and ended. A
 * second outage within the rule's cooldown sends nothing.
 */
jest.setTimeout(420_000);

const DEGRADED_AFTER_S = 8;

describe('service alerts', () => {
  let temporal: TcpProxy;
  let postgres: TcpProxy;
  let worker: Child;
  let metricsPort: number;
  let secret: string;

  // Declared before the stack's hooks, so that it runs first: the worker stops before the stack drops its database.
  afterAll(async () => {
    await worker?.kill('SIGKILL');
    await temporal?.stop();
    await postgres?.stop();
  });
  const e2e = useStackAndReceiver({ worker: false });

  beforeAll(async () => {
    const { stack, receiver, api } = e2e;
    const channel = await serviceAlertsChannel(api, `${receiver.url}/service`, {
      // Narrows jobs only: service events still reach the rule.
      tags: ['prod'],
      cooldown: '10m',
    });
    secret = channel.secret;
    expect(channel.rule.events).toEqual(['service.degraded', 'service.recovered']);
    const refused = await api('POST', '/api/v1/alert-rules', {
      name: 'typo',
      channel_ids: [channel.channelId],
      events: ['service.down'],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.fields).toHaveProperty('events');

    temporal = await TcpProxy.start(temporalAddress());
    const proxied = await TcpProxy.inFrontOfDatabase(stack.config.database.url);
    postgres = proxied.proxy;
    metricsPort = await freePort();
    worker = await startWorker({
      databaseUrl: proxied.url,
      temporalAddress: temporal.address,
      taskQueue: stack.config.temporal.task_queue,
      extra: {
        METRICS_WORKER_PORT: String(metricsPort),
        ALERTS_SERVICE_DEGRADED_AFTER: `${DEGRADED_AFTER_S}s`,
        ALERTS_SWEEP_INTERVAL: '1s',
      },
    });
  });

  const degraded = () => serviceDegradedGauges(metricsPort);
  /** Verified payloads received so far for `dependency`, by type. */
  const alerts = (dependency: string) => serviceAlertsReceived(e2e.receiver, secret, dependency);
  const ofType = (dependency: string, type: string) => alerts(dependency).filter((a) => a.type === type);

  it('should send one service.degraded while Temporal is unreachable (sent once it is back) and one service.recovered', async () => {
    expect(await degraded()).toEqual({ temporal: 0, postgres: 0, worker_polling: 0, schedule_lag: 0 });
    const downAt = Date.now();
    temporal.down();
    await waitFor(async () => (await degraded()).temporal === 1, 60_000);
    // Several probes (every 5 s) while degraded: still one event recorded, none sent (no Temporal
    // to run the alert workflow).
    await sleep(12_000);
    const recorded = await e2e.stack.dataSource.query(
      `SELECT type, dispatched_at FROM alert_events WHERE type LIKE 'service.%' AND details->'service'->>'dependency' = 'temporal'`,
    );
    expect(recorded).toEqual([{ type: 'service.degraded', dispatched_at: null }]);
    expect(alerts('temporal')).toEqual([]);
    // The API reaches Temporal itself; /readyz carries what the worker's probe sees too (the banner).
    const readyz = await apiClient(e2e.stack.baseUrl)('GET', '/readyz');
    expect(readyz.body.service_degraded).toEqual([
      {
        dependency: 'temporal',
        cause: 'Temporal is unreachable',
        since: expect.any(String),
        degraded_at: expect.any(String),
        observed_at: expect.any(String),
        workers: 1,
      },
    ]);
    expect(Date.parse(readyz.body.service_degraded[0].since)).toBeGreaterThanOrEqual(downAt - 5_000);

    await temporal.up();
    const upAt = Date.now();
    await waitFor(
      () => ofType('temporal', 'service.degraded').length > 0 && ofType('temporal', 'service.recovered').length > 0,
      90_000,
    );
    await waitFor(async () => (await degraded()).temporal === 0, 30_000);
    await waitFor(
      async () => (await apiClient(e2e.stack.baseUrl)('GET', '/readyz')).body.service_degraded.length === 0,
      15_000,
    );
    // Nothing more arrives for it: one of each.
    await sleep(6_000);
    const [down] = ofType('temporal', 'service.degraded');
    const [up] = ofType('temporal', 'service.recovered');
    expect(ofType('temporal', 'service.degraded')).toHaveLength(1);
    expect(ofType('temporal', 'service.recovered')).toHaveLength(1);
    expect(down.data.title).toMatch(/degraded: Temporal is unreachable/);
    expect(down.data.service).toMatchObject({ dependency: 'temporal', cause: expect.any(String) });
    expect(down.request.headers['svc-event-type']).toBe('service.degraded');
    const began = Date.parse(down.data.service.began_at);
    expect(began).toBeGreaterThanOrEqual(downAt - 5_000);
    expect(Date.parse(down.data.service.degraded_at) - began).toBeGreaterThanOrEqual(DEGRADED_AFTER_S * 1000);
    expect(up.data.service.began_at).toBe(down.data.service.began_at);
    expect(Date.parse(up.data.service.ended_at)).toBeGreaterThanOrEqual(upAt - 1_000);
    expect(up.data.service.duration_ms).toBe(Date.parse(up.data.service.ended_at) - began);
    expect(up.data.title).toMatch(/recovered: Temporal is reachable again after/);
    expect(worker.alive).toBe(true);
  });

  it('should keep a degradation seen while PostgreSQL is out and send it, with its start and end, once it is back', async () => {
    postgres.down();
    try {
      await waitFor(async () => (await degraded()).postgres === 1, 60_000);
      await sleep(10_000);
      expect(alerts('postgres')).toEqual([]);
      expect(worker.output).toMatch(/service alerts: 1 waiting, not recorded yet: PostgreSQL is out/);
    } finally {
      await postgres.up();
    }
    const upAt = Date.now();
    await waitFor(
      () => ofType('postgres', 'service.degraded').length > 0 && ofType('postgres', 'service.recovered').length > 0,
      90_000,
    );
    await sleep(6_000);
    expect(ofType('postgres', 'service.degraded')).toHaveLength(1);
    expect(ofType('postgres', 'service.recovered')).toHaveLength(1);
    const [down] = ofType('postgres', 'service.degraded');
    const [up] = ofType('postgres', 'service.recovered');
    // Told only after the recovery: the degraded alert knows when it ended.
    expect(down.data.service.ended_at).toBe(up.data.service.ended_at);
    expect(Date.parse(down.data.service.ended_at)).toBeGreaterThanOrEqual(upAt - 1_000);
    // What is out, never the driver's message with the deployment's hosts and ports.
    expect(down.data.service.cause).toBe('PostgreSQL is unreachable or read-only');
    expect(Date.parse(down.data.service.ended_at)).toBeGreaterThan(Date.parse(down.data.service.began_at));
    expect(await degraded()).toMatchObject({ postgres: 0, temporal: 0 });
  });

  it('should send nothing for a second outage within the rule cooldown', async () => {
    const before = e2e.receiver.requests.length;
    temporal.down();
    await waitFor(async () => (await degraded()).temporal === 1, 60_000);
    await temporal.up();
    await waitFor(async () => (await degraded()).temporal === 0, 60_000);
    // Both transitions of the second outage are recorded and planned, and routed nowhere.
    const second = await waitFor(async () => {
      const rows: Array<{ id: string; type: string; planned_at: Date | null }> = await e2e.stack.dataSource.query(
        `SELECT id, type, planned_at FROM alert_events
          WHERE details->'service'->>'dependency' = 'temporal' ORDER BY occurred_at`,
      );
      return rows.length === 4 && rows.every((row) => row.planned_at !== null) ? rows : null;
    }, 60_000);
    const deliveries = await e2e.stack.dataSource.query(
      `SELECT event_id FROM alert_deliveries WHERE event_id = ANY($1::text[])`,
      [second.slice(2).map((row) => row.id)],
    );
    expect(deliveries).toEqual([]);
    await sleep(3_000);
    expect(e2e.receiver.requests.length).toBe(before);
    expect(ofType('temporal', 'service.degraded')).toHaveLength(1);
  });
});

import { createTestDatabase } from '../utils/database';
import { type Child, freePort, serviceDegradedGauges, startWorker } from '../utils/processes';
import { waitFor } from '../utils/receiver';
import { temporalAddress } from '../utils/stack';
import { TcpProxy } from '../utils/tcp-proxy';

/**
 * The worker tells when the service itself is degraded (issue 48; docs/operations.md → Service
 * degraded): the built worker reaches its PostgreSQL through a loopback TCP proxy the test cuts;
 * after 30 s without an answer `svc_service_degraded{dependency="postgres"}` is 1 and the worker
 * logs it with its cause; once the proxy is back the gauge is 0 and the recovery is logged.
 * Temporal stays `0` throughout, and the worker keeps running.
 */
jest.setTimeout(150_000);

describe('service degraded', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let proxy: TcpProxy;
  let worker: Child;
  let metricsPort: number;

  beforeAll(async () => {
    db = await createTestDatabase();
    const proxied = await TcpProxy.inFrontOfDatabase(db.url);
    proxy = proxied.proxy;
    metricsPort = await freePort();
    worker = await startWorker({
      databaseUrl: proxied.url,
      temporalAddress: temporalAddress(),
      taskQueue: `svc-degraded-${process.pid}`,
      extra: { METRICS_WORKER_PORT: String(metricsPort) },
    });
  });

  afterAll(async () => {
    await worker?.kill('SIGKILL');
    await proxy?.stop();
    await db?.drop();
  });

  const degraded = () => serviceDegradedGauges(metricsPort);

  it('should report PostgreSQL degraded after 30 s out, with its cause, and recovered once it is back', async () => {
    expect(await degraded()).toEqual({ temporal: 0, postgres: 0, worker_polling: 0, schedule_lag: 0 });
    proxy.down();
    const downAt = Date.now();
    await waitFor(async () => (await degraded()).postgres === 1, 60_000);
    expect(Date.now() - downAt).toBeGreaterThanOrEqual(29_000);
    expect(worker.output).toMatch(/service degraded: postgres failing since [^:]+:\d\d:[\d.]+Z: PostgreSQL: /);
    expect((await degraded()).temporal).toBe(0);

    await proxy.up();
    await waitFor(async () => (await degraded()).postgres === 0, 30_000);
    expect(worker.output).toMatch(/service recovered: postgres after \d+ s/);
    expect(await degraded()).toEqual({ temporal: 0, postgres: 0, worker_polling: 0, schedule_lag: 0 });
    expect(worker.alive).toBe(true);
  });
});

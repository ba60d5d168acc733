import type { DatabaseProbe, RunsRepository, ServiceHealthRepository } from '@svc/persistence';
import type { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { kitConfig } from '../../../../test/kit';
import { HealthService } from './health.service';

/**
 * HealthService over fake probes: ready only when PostgreSQL accepts writes, Temporal answers, a
 * worker polls the task queue and attempts keep up; each failure named in one line (never the
 * password); unknown counts (database down) are null, not a failure of the check.
 */
describe('HealthService', () => {
  const config = kitConfig({ database: { url: 'postgres://svc:hunter2@db.internal:6543/svc' } });
  let database: { connected: boolean; writable: jest.Mock };
  let pollers: Array<{ lastAccessTime: ReturnType<typeof msToTs> }>;
  let temporalError: Error | null;
  let runs: { countStalled: jest.Mock; oldestAwaitingFirstAttempt: jest.Mock };
  let serviceHealth: { degraded: jest.Mock };
  let service: HealthService;

  beforeEach(() => {
    database = { connected: true, writable: jest.fn(async () => true) };
    pollers = [{ lastAccessTime: msToTs(Date.now() - 5_000) }];
    temporalError = null;
    runs = {
      countStalled: jest.fn(async () => 0),
      oldestAwaitingFirstAttempt: jest.fn(async () => null),
    };
    serviceHealth = { degraded: jest.fn(async () => []) };
    const connection = {
      withDeadline: <T>(_deadline: number, fn: () => Promise<T>) => fn(),
      workflowService: {
        describeTaskQueue: async () => {
          if (temporalError) {
            throw temporalError;
          }
          return { pollers };
        },
      },
    };
    service = new HealthService(
      database as unknown as DatabaseProbe,
      connection as unknown as Connection,
      config,
      runs as unknown as RunsRepository,
      serviceHealth as unknown as ServiceHealthRepository,
    );
  });

  it('should be ready when the database is writable and a worker polls the task queue', async () => {
    const readiness = await service.readiness();
    expect(readiness).toMatchObject({
      ready: true,
      dispatcher: 'active',
      queue: true,
      temporal: true,
      database_writable: true,
      sqlite_writable: true,
      writer_backpressure: false,
      stalled_runs: 0,
      temporal_error: null,
      database_error: null,
      service_degraded: [],
    });
    expect(Date.parse(readiness.heartbeat!)).toBeLessThanOrEqual(Date.now());
  });

  it('should not be ready without a recent poll (dispatcher stopped)', async () => {
    pollers = [{ lastAccessTime: msToTs(Date.now() - 3_600_000) }];
    await expect(service.readiness()).resolves.toMatchObject({ ready: false, dispatcher: 'stopped', queue: true });
  });

  it('should name why Temporal did not answer', async () => {
    temporalError = Object.assign(new Error('14 UNAVAILABLE: connect ECONNREFUSED 127.0.0.1:7233'), { code: 14 });
    const readiness = await service.readiness();
    expect(readiness).toMatchObject({ ready: false, queue: false, temporal: false, dispatcher: 'stopped' });
    expect(readiness.temporal_error).toEqual(expect.any(String));
  });

  it('should name a read-only or unreachable database by host and port, never its password', async () => {
    database.writable.mockResolvedValue(false);
    const readOnly = await service.readiness();
    expect(readOnly).toMatchObject({ ready: false, database_writable: false });
    expect(readOnly.database_error).toBe('PostgreSQL at db.internal:6543: read-only (in recovery, or a standby)');
    database.connected = false;
    const down = await service.readiness();
    expect(down.database_error).toMatch(/^PostgreSQL at db.internal:6543: not connected/);
    database.connected = true;
    database.writable.mockRejectedValue(new Error('password authentication failed for user "svc"'));
    const refused = await service.readiness();
    expect(refused.database_error).toContain('password authentication failed');
    expect(JSON.stringify([readOnly, down, refused])).not.toContain('hunter2');
  });

  it('should report writer backpressure when a due run waits past the threshold', async () => {
    runs.oldestAwaitingFirstAttempt.mockResolvedValue(
      new Date(Date.now() - config.scheduler.writer_backpressure_threshold_ms - 1_000),
    );
    await expect(service.readiness()).resolves.toMatchObject({ ready: false, writer_backpressure: true });
  });

  it('should count stalled runs past the grace, and answer null (not a failure) when it cannot count', async () => {
    runs.countStalled.mockResolvedValue(3);
    const counted = await service.readiness();
    expect(counted).toMatchObject({ stalled_runs: 3, ready: true });
    const cutoff = runs.countStalled.mock.calls[0][0] as Date;
    expect(Date.now() - cutoff.getTime()).toBeGreaterThanOrEqual(config.scheduler.stalled_run_grace_ms);
    runs.countStalled.mockRejectedValue(new Error('connection terminated'));
    runs.oldestAwaitingFirstAttempt.mockRejectedValue(new Error('connection terminated'));
    await expect(service.readiness()).resolves.toMatchObject({ stalled_runs: null, writer_backpressure: false });
  });

  it("should carry the workers' view of what is degraded, fresh reports only, without changing ready", async () => {
    const at = (s: number) => new Date(Date.UTC(2026, 10, 28, 12, 0, s));
    serviceHealth.degraded.mockResolvedValue([
      {
        dependency: 'schedule_lag',
        cause: 'the oldest due run has waited 90 s for its first attempt (threshold 60 s)',
        since: at(0),
        degradedAt: at(30),
        observedAt: at(55),
        workers: 2,
      },
    ]);
    const readiness = await service.readiness();
    expect(readiness.ready).toBe(true);
    expect(readiness.service_degraded).toEqual([
      {
        dependency: 'schedule_lag',
        cause: 'the oldest due run has waited 90 s for its first attempt (threshold 60 s)',
        since: at(0).toISOString(),
        degraded_at: at(30).toISOString(),
        observed_at: at(55).toISOString(),
        workers: 2,
      },
    ]);
    const freshSince = serviceHealth.degraded.mock.calls[0][0] as Date;
    expect(Date.now() - freshSince.getTime()).toBeGreaterThanOrEqual(30_000);
    expect(Date.now() - freshSince.getTime()).toBeLessThan(35_000);
    // Unreadable (PostgreSQL out): empty, and database_error tells why.
    serviceHealth.degraded.mockRejectedValue(new Error('connection terminated'));
    await expect(service.readiness()).resolves.toMatchObject({ service_degraded: [] });
    database.connected = false;
    serviceHealth.degraded.mockClear();
    await expect(service.readiness()).resolves.toMatchObject({ service_degraded: [] });
    expect(serviceHealth.degraded).not.toHaveBeenCalled();
  });
});

import { ServiceHealthRepository } from '../src/repositories';
import { useScratchDatabase } from './scratch-database';

/** Issue 48: the workers' view of the service's health for `/readyz` (docs/operations.md → Service degraded). */
describe('service health repository', () => {
  const scratch = useScratchDatabase('service_health', { poolSize: 2 });
  let health: ServiceHealthRepository;

  beforeAll(async () => {
    health = new ServiceHealthRepository(scratch.ds);
  });

  const at = (s: number) => new Date(Date.UTC(2026, 10, 28, 12, 0, s));
  const lag = (since: number, cause = 'waited 90 s') => ({
    dependency: 'schedule_lag' as const,
    since: at(since),
    degradedAt: at(since + 30),
    cause,
  });

  it('should merge the workers reporting a dependency, count fresh reports only, and forget a recovery', async () => {
    await health.report('a:1', [lag(0, 'waited 90 s')], at(40));
    await health.report('b:2', [lag(5, 'waited 95 s'), { ...lag(5), dependency: 'temporal', cause: 'down' }], at(45));
    expect(await health.degraded(at(30))).toEqual([
      {
        dependency: 'schedule_lag',
        cause: 'waited 95 s',
        since: at(0),
        degradedAt: at(30),
        observedAt: at(45),
        workers: 2,
      },
      { dependency: 'temporal', cause: 'down', since: at(5), degradedAt: at(35), observedAt: at(45), workers: 1 },
    ]);
    // a:1 stops reporting (killed): only b:2 counts once a:1's report is older than the window.
    expect((await health.degraded(at(41))).find((d) => d.dependency === 'schedule_lag')?.workers).toBe(1);
    // b:2 sees Temporal back: its report without it removes its row.
    await health.report('b:2', [lag(5, 'waited 100 s')], at(50));
    expect((await health.degraded(at(30))).map((d) => d.dependency)).toEqual(['schedule_lag']);
    await health.report('b:2', [], at(55));
    await health.report('a:1', [], at(55));
    expect(await health.degraded(at(0))).toEqual([]);
  });

  it('should purge rows no worker refreshed for a day', async () => {
    await health.report('gone:9', [lag(0)], at(0));
    await health.report('live:1', [], new Date(at(0).getTime() + 86_400_000 + 1_000));
    const rows: unknown[] = await scratch.ds.query(`SELECT observer FROM service_health`);
    expect(rows).toEqual([]);
  });
});

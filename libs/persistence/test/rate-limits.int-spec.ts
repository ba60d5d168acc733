import { RateLimitsRepository } from '@svc/persistence';
import { useScratchDatabase } from './scratch-database';

describe('RateLimitsRepository', () => {
  const scratch = useScratchDatabase('ratelimits', { poolSize: 8 });
  let windows: RateLimitsRepository;

  beforeAll(async () => {
    windows = new RateLimitsRepository(scratch.ds);
  });

  it('should count concurrent hits from many connections without losing one', async () => {
    const hits = await Promise.all(Array.from({ length: 40 }, () => windows.hit('api:concurrent', 60_000)));
    expect(hits.map((h) => h.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(hits.every((h) => h.resetMs > 0 && h.resetMs <= 60_000)).toBe(true);
  });

  it('should open a new window once the current one has closed, and sweep closed ones', async () => {
    // A window long enough that two hits fall in it even on a loaded machine; then one past it.
    await windows.hit('api:expiring', 3_000);
    expect((await windows.hit('api:expiring', 3_000)).count).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 3_200));
    expect((await windows.hit('api:expiring', 3_000)).count).toBe(1);

    await windows.hit('api:closed', 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await windows.deleteExpired(0)).toBeGreaterThanOrEqual(1);
    const left: Array<{ bucket: string }> = await scratch.ds.query(
      'SELECT bucket FROM rate_limit_windows ORDER BY bucket',
    );
    expect(left.map((r) => r.bucket)).not.toContain('api:closed');
    expect(left.map((r) => r.bucket)).toContain('api:concurrent');
  });
});

import type { RunBucketRow, StatsRepository } from '@svc/persistence';
import { authFor } from '../../../../test/kit';
import { StatsService } from './stats.service';

/**
 * StatsService.jobsHourly over a recording stats repository: whole UTC hours, oldest first, the last
 * the current hour; zero-filled; named jobs all present (once, in the order named); otherwise the
 * jobs that had runs.
 */
describe('StatsService.jobsHourly', () => {
  const auth = authFor();
  const now = new Date('2026-11-28T12:34:56Z');
  let rows: RunBucketRow[];
  let asked: unknown[][];
  let service: StatsService;

  beforeEach(() => {
    rows = [];
    asked = [];
    const stats = {
      runBuckets: async (...args: unknown[]) => {
        asked.push(args);
        return rows;
      },
    };
    service = new StatsService(stats as unknown as StatsRepository);
  });

  const row = (job_id: string, bucket: number, counts: Partial<RunBucketRow> = {}): RunBucketRow => ({
    job_id,
    bucket,
    succeeded: 0,
    failed: 0,
    skipped: 0,
    other: 0,
    ...counts,
  });

  it('should ask for the 24 whole hours ending with the current one, in the caller workspace', async () => {
    await service.jobsHourly(auth, '24h', undefined, now);
    expect(asked).toEqual([
      [auth.workspaceId, new Date('2026-11-27T13:00:00Z'), new Date('2026-11-28T13:00:00Z'), 3_600_000, undefined],
    ]);
  });

  it('should zero-fill each job with runs, oldest hour first, its counts in their bucket', async () => {
    rows = [row('job_a', 0, { failed: 2 }), row('job_a', 23, { succeeded: 5, other: 1 })];
    const { data } = await service.jobsHourly(auth, '24h', undefined, now);
    expect(data).toHaveLength(1);
    const { job_id, buckets } = data[0];
    expect(job_id).toBe('job_a');
    expect(buckets).toHaveLength(24);
    expect(buckets[0]).toEqual({ hour: '2026-11-27T13:00:00.000Z', succeeded: 0, failed: 2, skipped: 0, other: 0 });
    expect(buckets[23]).toEqual({ hour: '2026-11-28T12:00:00.000Z', succeeded: 5, failed: 0, skipped: 0, other: 1 });
    expect(buckets.slice(1, 23).every((b) => b.succeeded + b.failed + b.skipped + b.other === 0)).toBe(true);
  });

  it('should give every named job its buckets once, in the order named, even without runs', async () => {
    rows = [row('job_b', 5, { skipped: 1 })];
    const { data } = await service.jobsHourly(auth, '24h', ['job_b', 'job_a', 'job_b'], now);
    expect(data.map((series) => series.job_id)).toEqual(['job_b', 'job_a']);
    expect(asked[0][4]).toEqual(['job_b', 'job_a']);
    expect(data[1].buckets.every((b) => b.succeeded + b.failed + b.skipped + b.other === 0)).toBe(true);
  });

  it('should ignore a bucket outside the window', async () => {
    rows = [row('job_a', 24, { succeeded: 9 })];
    const { data } = await service.jobsHourly(auth, '24h', undefined, now);
    expect(data[0].buckets.some((b) => b.succeeded > 0)).toBe(false);
  });
});

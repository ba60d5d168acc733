import { purgeExpiredResponseBodies } from '@svc/orchestration';

describe('purgeExpiredResponseBodies', () => {
  const now = new Date('2025-06-10T12:00:00Z');
  const week = 7 * 86_400_000;

  it('should clear bodies of attempts finished more than the retention before now, batch by batch', async () => {
    let left = 12;
    const calls: Array<[string, number]> = [];
    const runs = {
      clearResponseBodiesFinishedBefore: async (cutoff: Date, limit: number) => {
        calls.push([cutoff.toISOString(), limit]);
        const n = Math.min(left, limit);
        left -= n;
        return n;
      },
    };
    expect(await purgeExpiredResponseBodies(runs, week, now, 5)).toEqual({
      cutoff: new Date('2025-06-03T12:00:00Z'),
      cleared: 12,
    });
    // 5 + 5 + 2: stops at the first short batch.
    expect(calls).toEqual([
      ['2025-06-03T12:00:00.000Z', 5],
      ['2025-06-03T12:00:00.000Z', 5],
      ['2025-06-03T12:00:00.000Z', 5],
    ]);
  });

  it('should make one query when nothing is due', async () => {
    const clear = jest.fn().mockResolvedValue(0);
    expect((await purgeExpiredResponseBodies({ clearResponseBodiesFinishedBefore: clear }, week, now)).cleared).toBe(0);
    expect(clear).toHaveBeenCalledTimes(1);
  });
});

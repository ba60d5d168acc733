import { buildConfig } from '@svc/common';
import { purgeExpiredRuns, runRetentionScopes } from '@svc/orchestration';
import type { RunPurgeScope } from '@svc/persistence';

describe('run retention', () => {
  const now = new Date('2025-06-30T12:00:00Z');
  const day = 86_400_000;

  /** A fake `deleteFinishedBefore` over a count of expired runs per scope key. */
  function fakeRuns(left: Record<string, number>) {
    const calls: Array<{ cutoff: string; limit: number; scope: RunPurgeScope }> = [];
    const key = (scope: RunPurgeScope) => scope.plans?.join(',') ?? `except:${scope.exceptPlans?.join(',') ?? ''}`;
    return {
      calls,
      runs: {
        deleteFinishedBefore: async (cutoff: Date, limit: number, scope: RunPurgeScope = {}) => {
          calls.push({ cutoff: cutoff.toISOString(), limit, scope });
          const n = Math.min(left[key(scope)] ?? 0, limit);
          left[key(scope)] = (left[key(scope)] ?? 0) - n;
          return n;
        },
      },
    };
  }

  describe('runRetentionScopes', () => {
    it('should be one scope over every workspace when no plan sets its own retention', () => {
      expect(runRetentionScopes(buildConfig({}, {}), now)).toEqual([
        { retentionMs: 30 * day, cutoff: new Date('2025-05-31T12:00:00Z') },
      ]);
    });

    it('should give plans with their own retention a scope each and every other plan runs.retention', () => {
      const config = buildConfig(
        {
          runs: { retention: '30d' },
          plans: {
            free: { run_retention: '7d' },
            hobby: { run_retention: '7d' },
            pro: { run_retention: '90d' },
            team: { run_retention: '30d' },
          },
        },
        {},
      );
      expect(runRetentionScopes(config, now)).toEqual([
        { retentionMs: 7 * day, cutoff: new Date('2025-06-23T12:00:00Z'), plans: ['free', 'hobby'] },
        { retentionMs: 90 * day, cutoff: new Date('2025-04-01T12:00:00Z'), plans: ['pro'] },
        { retentionMs: 30 * day, cutoff: new Date('2025-05-31T12:00:00Z'), exceptPlans: ['free', 'hobby', 'pro'] },
      ]);
    });
  });

  describe('purgeExpiredRuns', () => {
    it('should delete batch by batch and stop at the first short batch', async () => {
      const { runs, calls } = fakeRuns({ 'except:': 12 });
      const result = await purgeExpiredRuns(runs, buildConfig({}, {}), now, { batch: 5 });
      expect(result.deleted).toBe(12);
      expect(result.truncated).toBe(false);
      // 5 + 5 + 2.
      expect(calls.map((c) => [c.cutoff, c.limit])).toEqual([
        ['2025-05-31T12:00:00.000Z', 5],
        ['2025-05-31T12:00:00.000Z', 5],
        ['2025-05-31T12:00:00.000Z', 5],
      ]);
    });

    it('should make one statement when nothing is due', async () => {
      const { runs, calls } = fakeRuns({});
      expect((await purgeExpiredRuns(runs, buildConfig({}, {}), now)).deleted).toBe(0);
      expect(calls).toHaveLength(1);
    });

    it('should purge every scope with its own cutoff and report each', async () => {
      const config = buildConfig({ plans: { free: { run_retention: '7d' } } }, {});
      const { runs, calls } = fakeRuns({ free: 3, 'except:free': 4 });
      const result = await purgeExpiredRuns(runs, config, now, { batch: 10 });
      expect(result.scopes.map((s) => [s.plans ?? s.exceptPlans, s.cutoff.toISOString(), s.deleted])).toEqual([
        [['free'], '2025-06-23T12:00:00.000Z', 3],
        [['free'], '2025-05-31T12:00:00.000Z', 4],
      ]);
      expect(calls.map((c) => c.scope)).toEqual([
        { plans: ['free'], exceptPlans: undefined },
        { plans: undefined, exceptPlans: ['free'] },
      ]);
      expect(result.deleted).toBe(7);
    });

    it('should stop after maxBatches statements, say so, and leave the rest to the next call', async () => {
      const config = buildConfig({ plans: { free: { run_retention: '7d' } } }, {});
      const { runs, calls } = fakeRuns({ free: 100, 'except:free': 100 });
      const result = await purgeExpiredRuns(runs, config, now, { batch: 10, maxBatches: 3 });
      expect(result).toMatchObject({ deleted: 30, truncated: true });
      expect(calls).toHaveLength(3);
      const next = await purgeExpiredRuns(runs, config, now, { batch: 10, maxBatches: 100 });
      expect(next).toMatchObject({ deleted: 170, truncated: false });
    });

    it('should pause between statements when asked, never before the first', async () => {
      const { runs } = fakeRuns({ 'except:': 25 });
      const sleep = jest.fn(async (_ms: number) => undefined);
      await purgeExpiredRuns(runs, buildConfig({}, {}), now, { batch: 10, pauseMs: 50, sleep });
      // 3 statements (10 + 10 + 5), 2 pauses.
      expect(sleep.mock.calls).toEqual([[50], [50]]);
    });
  });
});

import type { StatsRepository } from '@svc/persistence';
import { authFor } from '../../../../test/kit';
import { FAILING_JOBS_LIMIT, STATS_WINDOW_MS, StatsService } from './stats.service';

/**
 * StatsService over a recording stats repository (the aggregates are SQL, specified by the
 * integration specs): the window it asks for, the workspace it scopes to, the zero-filled states.
 */
describe('StatsService', () => {
  const auth = authFor();
  const now = new Date('2026-11-28T12:00:00Z');
  let calls: Array<{ method: string; args: unknown[] }>;
  let service: StatsService;

  beforeEach(() => {
    calls = [];
    const stats = {
      jobCountsByState: async (...args: unknown[]) => {
        calls.push({ method: 'jobCountsByState', args });
        return { active: 3, disabled: 1 };
      },
      runWindow: async (...args: unknown[]) => {
        calls.push({ method: 'runWindow', args });
        return { total: 5, succeeded: 3, failed: 2, sla_breached: 1, start_lag_ms: { p50: 10, p95: 40, p99: null } };
      },
      failingJobs: async (...args: unknown[]) => {
        calls.push({ method: 'failingJobs', args });
        return [{ id: 'job_1', name: 'nightly', consecutive_failures: 4 }];
      },
    };
    service = new StatsService(stats as unknown as StatsRepository);
  });

  it('should answer the 24 h window by default, every state counted (absent ones as 0)', async () => {
    await expect(service.overview(auth, undefined, now)).resolves.toEqual({
      window: '24h',
      jobs: { active: 3, paused: 0, disabled: 1, completed: 0 },
      runs: { total: 5, succeeded: 3, failed: 2, sla_breached: 1 },
      start_lag_ms: { p50: 10, p95: 40, p99: null },
      failing_jobs: [{ id: 'job_1', name: 'nightly', consecutive_failures: 4 }],
    });
    expect(calls).toEqual(
      expect.arrayContaining([
        { method: 'jobCountsByState', args: [auth.workspaceId] },
        { method: 'runWindow', args: [auth.workspaceId, new Date(now.getTime() - 86_400_000)] },
        { method: 'failingJobs', args: [auth.workspaceId, FAILING_JOBS_LIMIT] },
      ]),
    );
  });

  it.each(Object.entries(STATS_WINDOW_MS))('should read the runs of the %s window', async (window, ms) => {
    await service.overview(auth, window as keyof typeof STATS_WINDOW_MS, now);
    expect(calls.find((call) => call.method === 'runWindow')!.args[1]).toEqual(new Date(now.getTime() - ms));
  });
});

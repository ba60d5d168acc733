import { newId } from '@svc/workflow-contract/ids';
import { apiClient, createIdleJobs, useStack } from '../utils/stack';

/** percentile_cont: linear interpolation between the closest ranks (PostgreSQL's definition). */
function percentileCont(values: number[], fraction: number): number | null {
  if (values.length === 0) {
    return null;
  }
  const sorted = [...values].sort((a, b) => a - b);
  const position = fraction * (sorted.length - 1);
  const low = Math.floor(position);
  const high = Math.ceil(position);
  return Math.round(sorted[low] + (sorted[high] - sorted[low]) * (position - low));
}

/**
 * `GET /api/v1/stats/overview` (issue #8; spec → Stats overview; decisions.md: `window` default
 * `24h`): job counts by state, run counts and start-lag percentiles over the window, failing jobs.
 */
describe('GET /api/v1/stats/overview', () => {
  const e2e = useStack({ worker: false });
  const jobs: Record<string, string> = {};
  const HOUR = 3_600_000;
  /** Runs by age: [age in ms, status, start lag or null, sla breached]. */
  const RUNS: Array<[number, string, number | null, boolean]> = [
    [10 * 60_000, 'succeeded', 120, false],
    [20 * 60_000, 'failed', 40, false],
    [50 * 60_000, 'running', 3_000, true],
    [3 * HOUR, 'succeeded', 250, false],
    [20 * HOUR, 'skipped', null, false],
    [23 * HOUR, 'failed', 900, true],
    [3 * 24 * HOUR, 'succeeded', 15, false],
    [6 * 24 * HOUR, 'cancelled', 60, false],
    [20 * 24 * HOUR, 'succeeded', 5_000, false],
    [40 * 24 * HOUR, 'failed', 99_999, true],
  ];

  beforeAll(async () => {
    Object.assign(jobs, await createIdleJobs(e2e.api, ['steady', 'flaky', 'broken', 'resting', 'done']));
    await e2e.api('POST', `/api/v1/jobs/${jobs.resting}/pause`);
    const set = (name: string, sql: string) =>
      e2e.stack.dataSource.query(`UPDATE jobs SET ${sql} WHERE id = $1`, [jobs[name]]);
    await set('flaky', 'consecutive_failures = 2');
    await set('broken', `state = 'disabled', consecutive_failures = 10`);
    await set('done', `state = 'completed'`);
    const now = Date.now();
    for (const [age, status, lag, sla] of RUNS) {
      await e2e.stack.dataSource.query(
        `INSERT INTO runs (id, workspace_id, job_id, job_version, scheduled_at, trigger, status, start_lag_ms, sla_breached)
         VALUES ($1, $2, $3, 1, $4, 'schedule', $5, $6, $7)`,
        [newId('run'), e2e.stack.workspaceId, jobs.steady, new Date(now - age), status, lag, sla],
      );
    }
  });

  function expected(windowMs: number) {
    const inWindow = RUNS.filter(([age]) => age <= windowMs - 60_000);
    const lags = inWindow.map(([, , lag]) => lag).filter((lag): lag is number => lag !== null);
    return {
      runs: {
        total: inWindow.length,
        succeeded: inWindow.filter(([, status]) => status === 'succeeded').length,
        failed: inWindow.filter(([, status]) => status === 'failed').length,
        sla_breached: inWindow.filter(([, , , sla]) => sla).length,
      },
      start_lag_ms: {
        p50: percentileCont(lags, 0.5),
        p95: percentileCont(lags, 0.95),
        p99: percentileCont(lags, 0.99),
      },
    };
  }

  it.each([
    ['1h', HOUR],
    ['24h', 24 * HOUR],
    ['7d', 7 * 24 * HOUR],
    ['30d', 30 * 24 * HOUR],
  ])('should aggregate the runs of the %s window in SQL', async (window, ms) => {
    const response = await e2e.api('GET', `/api/v1/stats/overview?window=${window}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      window,
      jobs: { active: 2, paused: 1, disabled: 1, completed: 1 },
      ...expected(ms),
      failing_jobs: [
        { id: jobs.broken, name: 'broken', consecutive_failures: 10 },
        { id: jobs.flaky, name: 'flaky', consecutive_failures: 2 },
      ],
    });
  });

  it('should default to the 24h window', async () => {
    const response = await e2e.api('GET', '/api/v1/stats/overview');
    expect(response.status).toBe(200);
    expect(response.body.window).toBe('24h');
    expect(response.body.runs).toEqual(expected(24 * HOUR).runs);
  });

  it.each([
    ['an unknown window', 'window=2h'],
    ['a window in the wrong case', 'window=24H'],
    ['an empty window', 'window='],
    ['a repeated window', 'window=1h&window=7d'],
    ['an unknown parameter', 'since=2030-01-01T00:00:00Z'],
  ])('should answer 400 validation_failed naming the field for %s', async (_, query) => {
    const response = await e2e.api('GET', `/api/v1/stats/overview?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('validation_failed');
    expect(Object.keys(response.body.error.fields)).toEqual([query.startsWith('since') ? 'since' : 'window']);
  });

  it('should count nothing of another workspace, with null percentiles when no run started', async () => {
    const other = await e2e.stack.newWorkspaceKey('stats-other');
    const reader = await apiClient(e2e.stack.baseUrl, other.apiKey)('POST', '/api/v1/api-keys', {
      name: 'reader',
      scopes: ['jobs:read'],
    });
    const response = await apiClient(e2e.stack.baseUrl, reader.body.key)('GET', '/api/v1/stats/overview?window=30d');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      window: '30d',
      jobs: { active: 0, paused: 0, disabled: 0, completed: 0 },
      runs: { total: 0, succeeded: 0, failed: 0, sla_breached: 0 },
      start_lag_ms: { p50: null, p95: null, p99: null },
      failing_jobs: [],
    });
  });
});

import { apiClient, useStack } from '../utils/stack';

/**
 * `GET /api/v1/usage` (issue #8; spec → Usage, Limits → Monthly runs): the UTC month's run counter
 * against the plan's cap, and what a blocking cap does to manual triggers.
 */
describe('GET /api/v1/usage', () => {
  const e2e = useStack({
    worker: false,
    config: {
      default_plan: 'capped',
      plans: {
        capped: {
          max_jobs_per_workspace: 0,
          min_interval: '1s',
          max_runs_per_month_per_workspace: 2,
          over_quota_policy: 'block',
        },
      },
    },
  });

  function thisMonth() {
    const now = new Date();
    return {
      month: now.toISOString().slice(0, 7),
      reset_at: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
    };
  }

  it('should answer the UTC month, its run count, the plan limit and policy, and the next month start', async () => {
    const response = await e2e.api('GET', '/api/v1/usage');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...thisMonth(), runs: 0, limit: 2, over_quota_policy: 'block' });
    expect(response.body.reset_at).toMatch(/^\d{4}-\d{2}-01T00:00:00\.000Z$/);
  });

  it('should count manual runs and answer 429 limit_exceeded at the blocking cap, counting nothing more', async () => {
    const job = await e2e.api('POST', '/api/v1/jobs', {
      name: 'counted',
      schedule: { expr: '0 0 0 1 1 ? 2031' },
      sink: { kind: 'webhook', config: { url: 'https://example.com/hook' } },
    });
    expect(job.status).toBe(201);
    for (let i = 0; i < 2; i++) {
      expect((await e2e.api('POST', `/api/v1/jobs/${job.body.id}/trigger`)).status).toBe(202);
    }
    expect((await e2e.api('GET', '/api/v1/usage')).body).toMatchObject({ runs: 2, limit: 2 });

    const blocked = await e2e.api('POST', `/api/v1/jobs/${job.body.id}/trigger`);
    expect(blocked.status).toBe(429);
    expect(blocked.body.error).toMatchObject({
      code: 'limit_exceeded',
      limit: 'max_runs_per_month_per_workspace',
      value: 2,
    });
    expect((await e2e.api('GET', '/api/v1/usage')).body.runs).toBe(2);
  });

  it('should count only the current UTC month', async () => {
    const now = new Date();
    const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 15)).toISOString().slice(0, 7);
    await e2e.stack.dataSource.query(`INSERT INTO usage_counters (workspace_id, month, runs) VALUES ($1, $2, 500)`, [
      e2e.stack.workspaceId,
      lastMonth,
    ]);
    expect((await e2e.api('GET', '/api/v1/usage')).body).toMatchObject({ month: thisMonth().month, runs: 2 });
  });

  it("should follow the workspace's plan: unlimited (0) with policy allow, per workspace", async () => {
    const other = await e2e.stack.newWorkspaceKey('usage-unlimited');
    await e2e.stack.dataSource.query(`UPDATE workspaces SET plan = 'self_hosted' WHERE id = $1`, [other.workspaceId]);
    const usage = await apiClient(e2e.stack.baseUrl, other.apiKey)('GET', '/api/v1/usage');
    expect(usage.body).toEqual({ ...thisMonth(), runs: 0, limit: 0, over_quota_policy: 'allow' });
  });

  it('should be readable by a key of any scope', async () => {
    const reader = await e2e.api('POST', '/api/v1/api-keys', { name: 'reader', scopes: ['runs:read'] });
    const usage = await apiClient(e2e.stack.baseUrl, reader.body.key)('GET', '/api/v1/usage');
    expect(usage.status).toBe(200);
    expect(usage.body.runs).toBe(2);
  });
});

import { generateApiKey } from '@svc/common/api-keys';
import { ApiKeysRepository, RunsRepository } from '@svc/persistence';
import { setWorkspaceSuspended } from '../../apps/cli/src/commands/workspace';
import { apiClient, startStack, TEST_SECRETS_ENCRYPTION_KEY, useStack } from '../utils/stack';

/** API basics every endpoint relies on (issue #2): auth, scopes, envelope, isolation, paging. */
describe('API basics', () => {
  const e2e = useStack();
  const webhook = { kind: 'webhook', config: { url: 'http://127.0.0.1:9/unused' } };
  const jobBody = (name: string) => ({ name, schedule: { expr: '0 0 12 ? * MON' }, sink: webhook });

  async function keyWithScopes(scopes: string[]): Promise<{ key: string; id: string }> {
    const generated = generateApiKey();
    const row = await new ApiKeysRepository(e2e.stack.dataSource).create(e2e.stack.workspaceId, {
      name: `scoped ${scopes.join(',')}`,
      prefix: generated.prefix,
      keyHash: generated.hash,
      scopes,
    });
    return { key: generated.key, id: row.id };
  }

  describe('authentication', () => {
    it('should answer 401 in the envelope without a key, with a bad key and with a revoked key', async () => {
      const anonymous = apiClient(e2e.stack.baseUrl);
      const missing = await anonymous('GET', '/api/v1/jobs');
      expect(missing.status).toBe(401);
      expect(missing.body.error.code).toBe('unauthorized');
      const wrong = await apiClient(e2e.stack.baseUrl, 'sjs_notAKey0000000000000000000000000000000')(
        'GET',
        '/api/v1/jobs',
      );
      expect(wrong.status).toBe(401);

      const { key, id } = await keyWithScopes(['*']);
      expect((await apiClient(e2e.stack.baseUrl, key)('GET', '/api/v1/jobs')).status).toBe(200);
      await new ApiKeysRepository(e2e.stack.dataSource).revoke(e2e.stack.workspaceId, id);
      const revoked = await apiClient(e2e.stack.baseUrl, key)('GET', '/api/v1/jobs');
      expect(revoked.status).toBe(401);
      expect(revoked.body.error.code).toBe('unauthorized');
    });

    it('should answer 403 forbidden outside the key scopes and allow jobs:read with jobs:write', async () => {
      const runsOnly = apiClient(e2e.stack.baseUrl, (await keyWithScopes(['runs:read'])).key);
      const denied = await runsOnly('GET', '/api/v1/jobs');
      expect(denied.status).toBe(403);
      expect(denied.body.error.code).toBe('forbidden');
      expect((await runsOnly('GET', '/api/v1/runs')).status).toBe(200);

      const writer = apiClient(e2e.stack.baseUrl, (await keyWithScopes(['jobs:write'])).key);
      const created = await writer('POST', '/api/v1/jobs', jobBody('by writer'));
      expect(created.status).toBe(201);
      expect((await writer('GET', `/api/v1/jobs/${created.body.id}`)).status).toBe(200);
      expect((await writer('GET', '/api/v1/runs')).status).toBe(403);
    });
  });

  describe('workspace isolation', () => {
    it('should answer 404 for another workspace job and never show its data', async () => {
      const mine = await e2e.api('POST', '/api/v1/jobs', jobBody('secret project'));
      const other = await e2e.stack.newWorkspaceKey('other-co');
      const theirs = apiClient(e2e.stack.baseUrl, other.apiKey);
      for (const [method, path] of [
        ['GET', `/api/v1/jobs/${mine.body.id}`],
        ['PATCH', `/api/v1/jobs/${mine.body.id}`],
        ['DELETE', `/api/v1/jobs/${mine.body.id}`],
        ['POST', `/api/v1/jobs/${mine.body.id}/pause`],
        ['POST', `/api/v1/jobs/${mine.body.id}/trigger`],
        ['GET', `/api/v1/jobs/${mine.body.id}/runs`],
      ]) {
        const response = await theirs(method, path, method === 'PATCH' ? { name: 'stolen' } : undefined);
        expect(response.status).toBe(404);
        expect(response.body.error.code).toBe('not_found');
        expect(JSON.stringify(response.body)).not.toContain('secret project');
      }
      const list = await theirs('GET', '/api/v1/jobs');
      expect(list.body.data).toEqual([]);
      expect((await e2e.api('GET', `/api/v1/jobs/${mine.body.id}`)).body.name).toBe('secret project');
    });
  });

  describe('errors', () => {
    it('should answer 400 validation_failed with fields for bad input and write nothing', async () => {
      const before = (await e2e.api('GET', '/api/v1/jobs?limit=200')).body.data.length;
      const bad = await e2e.api('POST', '/api/v1/jobs', {
        name: '',
        schedule: { expr: 'every day at 9am' },
        sink: webhook,
        timeout: '10m',
        retry: { max_attempts: 0 },
        surprise: true,
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe('validation_failed');
      expect(Object.keys(bad.body.error.fields)).toEqual(
        expect.arrayContaining(['name', 'timeout', 'retry.max_attempts', 'surprise']),
      );
      const badSchedule = await e2e.api('POST', '/api/v1/jobs', {
        ...jobBody('x'),
        schedule: { expr: 'every mondy at 9' },
      });
      expect(badSchedule.status).toBe(400);
      expect(badSchedule.body.error.fields['schedule.expr']).toBeDefined();
      expect(badSchedule.body.error.errors[0]).toMatchObject({ position: 6, length: 5 });
      const badUrl = await e2e.api('POST', '/api/v1/jobs', {
        ...jobBody('x'),
        sink: { kind: 'webhook', config: { url: 'ftp://x' } },
      });
      expect(badUrl.status).toBe(400);
      expect(badUrl.body.error.fields['sink.config.url']).toBeDefined();
      const reserved = await e2e.api('POST', '/api/v1/jobs', {
        ...jobBody('x'),
        sink: { kind: 'webhook', config: { url: 'http://127.0.0.1:9/', headers: { 'webhook-signature': 'x' } } },
      });
      expect(reserved.status).toBe(400);
      const command = await e2e.api('POST', '/api/v1/jobs', {
        ...jobBody('x'),
        sink: { kind: 'command', config: { argv: ['true'] } },
      });
      expect(command.status).toBe(400);
      expect(command.body.error.fields['sink.kind']).toContain('disabled');
      const malformed = await e2e.api('POST', '/api/v1/jobs', '{"name": ');
      expect(malformed.status).toBe(400);
      expect(malformed.body.error.code).toBe('validation_failed');
      expect((await e2e.api('GET', '/api/v1/jobs?limit=200')).body.data.length).toBe(before);
    });

    it('should answer 409 conflict for transitions from the wrong state', async () => {
      const job = await e2e.api('POST', '/api/v1/jobs', jobBody('states'));
      for (const action of ['resume', 'enable']) {
        const response = await e2e.api('POST', `/api/v1/jobs/${job.body.id}/${action}`);
        expect(response.status).toBe(409);
        expect(response.body.error.code).toBe('conflict');
      }
    });

    it('should answer 404 in the envelope for unknown routes and ids, with X-Request-ID', async () => {
      const route = await e2e.api('GET', '/api/v1/nothing-here');
      expect(route.status).toBe(404);
      expect(route.body.error.code).toBe('not_found');
      expect(route.headers.get('x-request-id')).toBeTruthy();
      expect((await e2e.api('GET', '/api/v1/jobs/job_01ARZ3NDEKTSV4RRFFQ69G5FAV')).status).toBe(404);
      expect((await e2e.api('GET', '/api/v1/jobs/not-an-id')).status).toBe(404);
      expect((await e2e.api('GET', '/api/v1/runs/run_01ARZ3NDEKTSV4RRFFQ69G5FAV')).status).toBe(404);
      const echoed = await e2e.api('GET', '/healthz', undefined, { 'x-request-id': 'req-abc-123' });
      expect(echoed.headers.get('x-request-id')).toBe('req-abc-123');
    });

    it('should refuse bodies over 1 MiB with the envelope', async () => {
      const huge = await e2e.api('POST', '/api/v1/jobs', { ...jobBody('big'), description: 'x'.repeat(1_100_000) });
      expect(huge.status).toBe(400);
      expect(huge.body.error.code).toBe('validation_failed');
    });

    it('should answer 403 workspace_suspended to mutations and allow reads', async () => {
      const other = await e2e.stack.newWorkspaceKey('sleepy');
      const client = apiClient(e2e.stack.baseUrl, other.apiKey);
      await setWorkspaceSuspended(e2e.stack.dataSource, 'sleepy', true);
      const write = await client('POST', '/api/v1/jobs', jobBody('nope'));
      expect(write.status).toBe(403);
      expect(write.body.error.code).toBe('workspace_suspended');
      expect((await client('GET', '/api/v1/jobs')).status).toBe(200);
      await setWorkspaceSuspended(e2e.stack.dataSource, 'sleepy', false);
      expect((await client('POST', '/api/v1/jobs', jobBody('yes'))).status).toBe(201);
    });
  });

  describe('pagination', () => {
    it('should page with opaque cursors, stable while rows are inserted', async () => {
      const other = await e2e.stack.newWorkspaceKey('pager');
      const client = apiClient(e2e.stack.baseUrl, other.apiKey);
      for (let i = 0; i < 5; i++) {
        await client('POST', '/api/v1/jobs', jobBody(`job ${i}`));
      }
      const first = await client('GET', '/api/v1/jobs?limit=2');
      expect(first.body.data.map((j: { name: string }) => j.name)).toEqual(['job 4', 'job 3']);
      await client('POST', '/api/v1/jobs', jobBody('job 5'));
      const second = await client('GET', `/api/v1/jobs?limit=2&cursor=${first.body.next_cursor}`);
      expect(second.body.data.map((j: { name: string }) => j.name)).toEqual(['job 2', 'job 1']);
      const third = await client('GET', `/api/v1/jobs?limit=2&cursor=${second.body.next_cursor}`);
      expect(third.body.data.map((j: { name: string }) => j.name)).toEqual(['job 0']);
      expect(third.body.next_cursor).toBeNull();
      expect((await client('GET', '/api/v1/jobs?limit=201')).status).toBe(400);
      expect((await client('GET', '/api/v1/jobs?cursor=garbage')).status).toBe(400);
      expect((await client('GET', '/api/v1/jobs?q=JOB%203')).body.data).toHaveLength(1);
    });
  });

  describe('job object', () => {
    it('should fill server defaults, show next_runs and stats_24h on GET and the secret only once', async () => {
      const created = await e2e.api('POST', '/api/v1/jobs', { ...jobBody('defaults'), tags: ['a', 'b'] });
      expect(created.body).toMatchObject({
        retry: {
          max_attempts: 3,
          backoff: 'exponential',
          initial_interval: '10s',
          max_interval: '10m',
          multiplier: 2,
          jitter: 0.2,
        },
        timeout: '30s',
        misfire_policy: 'fire_once',
        overlap_policy: 'allow',
        state: 'active',
        consecutive_failures: 0,
        version: 1,
        schedule: { kind: 'quartz', canonical: '0 0 12 ? * MON', timezone: 'UTC' },
      });
      const got = await e2e.api('GET', `/api/v1/jobs/${created.body.id}`);
      expect(got.body.signing_secret).toBeUndefined();
      expect(got.body.next_runs).toHaveLength(5);
      expect(got.body.next_run_at).toBe(got.body.next_runs[0]);
      expect(got.body.stats_24h).toEqual({ runs: 0, succeeded: 0, failed: 0, sla_breached: 0, p95_start_lag_ms: null });
      const byTag = await e2e.api('GET', '/api/v1/jobs?tag=b');
      expect(byTag.body.data.map((j: { id: string }) => j.id)).toContain(created.body.id);
      const listed = await e2e.api('GET', '/api/v1/jobs');
      expect(JSON.stringify(listed.body)).not.toContain('whsec_');
      // Updates and state changes keep the signing secret (it is never selected with the row).
      await e2e.api('PATCH', `/api/v1/jobs/${created.body.id}`, { description: 'changed' });
      await e2e.api('POST', `/api/v1/jobs/${created.body.id}/pause`);
      const [row] = await e2e.stack.dataSource.query('SELECT signing_secrets FROM jobs WHERE id = $1', [
        created.body.id,
      ]);
      expect(row.signing_secrets).toEqual([{ secret: created.body.signing_secret, expires_at: null }]);
    });
  });

  describe('public endpoints', () => {
    it('should serve healthz, readyz, version and features without auth', async () => {
      const anonymous = apiClient(e2e.stack.baseUrl);
      expect((await anonymous('GET', '/healthz')).status).toBe(200);
      const ready = await anonymous('GET', '/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body).toMatchObject({
        dispatcher: 'active',
        queue: true,
        database_writable: true,
        sqlite_writable: true,
      });
      expect((await anonymous('GET', '/version')).body).toMatchObject({ edition: 'oss' });
      const features = await anonymous('GET', '/api/v1/features');
      expect(features.body).toEqual({
        public_url: expect.any(String),
        auth: { providers: [], dev_login: false },
        sinks: { webhook: true, command: false, temporal_workflow: true },
        sink_kinds: [
          expect.objectContaining({ kind: 'webhook', enabled: true }),
          expect.objectContaining({ kind: 'command', enabled: false }),
          expect.objectContaining({ kind: 'temporal_workflow', enabled: true }),
        ],
      });
    });
  });
});

describe('Idempotency-Key', () => {
  const e2e = useStack({ worker: false });
  const body = (name: string) => ({
    name,
    schedule: { expr: '0 0 12 ? * MON' },
    sink: { kind: 'webhook', config: { url: 'http://127.0.0.1:9/unused' } },
  });

  it('should replay the first response for the same key and body, and refuse another body', async () => {
    const first = await e2e.api('POST', '/api/v1/jobs', body('once'), { 'idempotency-key': 'create-once-1' });
    expect(first.status).toBe(201);
    const again = await e2e.api('POST', '/api/v1/jobs', body('once'), { 'idempotency-key': 'create-once-1' });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    const other = await e2e.api('POST', '/api/v1/jobs', body('different'), { 'idempotency-key': 'create-once-1' });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('idempotency_conflict');
    const listed = await e2e.api('GET', '/api/v1/jobs?q=once');
    expect(listed.body.data).toHaveLength(1);
  });

  it("should keep a webhook job's one-time signing secret sealed in the replay record, for its caller only", async () => {
    const first = await e2e.api('POST', '/api/v1/jobs', body('sealed'), { 'idempotency-key': 'create-sealed-1' });
    expect(first.status).toBe(201);
    expect(first.body.signing_secret).toMatch(/^whsec_/);
    const again = await e2e.api('POST', '/api/v1/jobs', body('sealed'), { 'idempotency-key': 'create-sealed-1' });
    expect(again.body).toEqual(first.body);
    // The database never holds the secret in the clear in the replay record.
    const records: Array<{ text: string }> = await e2e.stack.dataSource.query(
      `SELECT row_to_json(r)::text AS text FROM idempotency_records r`,
    );
    expect(records.length).toBeGreaterThan(0);
    expect(records.map((r) => r.text).join('\n')).not.toContain(first.body.signing_secret);
    // Another credential of the workspace replaying the same request learns nothing.
    const other = await e2e.api('POST', '/api/v1/api-keys', { name: 'second key' });
    const replay = await apiClient(e2e.stack.baseUrl, other.body.key)('POST', '/api/v1/jobs', body('sealed'), {
      'idempotency-key': 'create-sealed-1',
    });
    expect(replay.status).toBe(409);
    expect(JSON.stringify(replay.body)).not.toContain(first.body.signing_secret);
  });

  it('should create one resource for concurrent duplicates', async () => {
    const responses = await Promise.all(
      Array.from({ length: 5 }, () =>
        e2e.api('POST', '/api/v1/jobs', body('concurrent'), { 'idempotency-key': 'race-1' }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(responses.map((r) => r.body.id)).size).toBe(1);
    expect((await e2e.api('GET', '/api/v1/jobs?q=concurrent')).body.data).toHaveLength(1);
  });

  it('should let a key be reused after a failed first request', async () => {
    const bad = await e2e.api('POST', '/api/v1/jobs', { ...body('x'), name: '' }, { 'idempotency-key': 'fails-first' });
    expect(bad.status).toBe(400);
    const good = await e2e.api('POST', '/api/v1/jobs', body('after failure'), { 'idempotency-key': 'fails-first' });
    expect(good.status).toBe(201);
  });
});

describe('API rate limit per key', () => {
  const e2e = useStack({ worker: false, config: { limits: { api_rate_limit_per_minute: 5 } } });

  it('should answer 429 rate_limited with RateLimit-* headers past the limit, per key', async () => {
    const statuses: number[] = [];
    let last: { status: number; body: any; headers: Headers } | undefined;
    for (let i = 0; i < 6; i++) {
      last = await e2e.api('GET', '/api/v1/jobs');
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect(last!.body.error.code).toBe('rate_limited');
    expect(last!.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(last!.headers.get('ratelimit-limit')).toBe('5');
    expect(last!.headers.get('ratelimit-remaining')).toBe('0');
    const other = await e2e.stack.newWorkspaceKey('other-limits');
    const fresh = await apiClient(e2e.stack.baseUrl, other.apiKey)('GET', '/api/v1/jobs');
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('ratelimit-remaining')).toBe('4');
  });
});

describe('GET /readyz when dependencies are down', () => {
  it('should answer 503 with the breakdown when Temporal, the worker or PostgreSQL is missing', async () => {
    const { buildConfig } = await import('@svc/common');
    const { createApp } = await import('../../apps/api/src/app');
    const config = buildConfig(
      {},
      {
        DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none',
        TEMPORAL_ADDRESS: '127.0.0.1:1',
        PORT: '0',
        SECRETS_ENCRYPTION_KEY: TEST_SECRETS_ENCRYPTION_KEY,
      },
    );
    const app = await createApp({ config, logLevels: [] });
    await app.listen(0, '127.0.0.1');
    try {
      const response = await apiClient((await app.getUrl()).replace('[::1]', '127.0.0.1'))('GET', '/readyz');
      expect(response.status).toBe(503);
      expect(response.body).toMatchObject({
        status: 'unavailable',
        dispatcher: 'stopped',
        queue: false,
        database_writable: false,
        sqlite_writable: false,
        writer_backpressure: false,
      });
      const live = await apiClient((await app.getUrl()).replace('[::1]', '127.0.0.1'))('GET', '/healthz');
      expect(live.status).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('should report a stopped dispatcher while no worker polls the task queue', async () => {
    const stack = await startStack({ worker: false });
    try {
      const response = await apiClient(stack.baseUrl)('GET', '/readyz');
      expect(response.status).toBe(503);
      expect(response.body).toMatchObject({ dispatcher: 'stopped', queue: true, database_writable: true });
    } finally {
      await stack.stop();
    }
  });

  it('should report writer_backpressure while a due run waits longer than the threshold for its first attempt', async () => {
    const stack = await startStack({ config: { scheduler: { writer_backpressure_threshold: '30s' } } });
    const anonymous = apiClient(stack.baseUrl);
    const runs = new RunsRepository(stack.dataSource);
    const waiting = {
      id: 'run_01JBACKPRESSURE0000000000A',
      workspaceId: stack.workspaceId,
      jobId: 'job_01JBACKPRESSURE0000000000A',
      jobVersion: 1,
      trigger: 'schedule' as const,
      status: 'running' as const,
    };
    try {
      // Within the threshold the backlog is normal: not lagging.
      await runs.openRuns([{ ...waiting, scheduledAt: new Date(Date.now() - 5_000) }], new Date());
      const fresh = await anonymous('GET', '/readyz');
      expect(fresh.body).toMatchObject({ writer_backpressure: false, database_writable: true });

      await stack.dataSource.query(`UPDATE runs SET scheduled_at = now() - interval '2 minutes' WHERE id = $1`, [
        waiting.id,
      ]);
      const lagging = await anonymous('GET', '/readyz');
      expect(lagging.status).toBe(503);
      expect(lagging.body).toMatchObject({ status: 'unavailable', writer_backpressure: true, database_writable: true });

      // Its first attempt starts: the backlog is gone.
      await stack.dataSource.query(`UPDATE runs SET started_at = now() WHERE id = $1`, [waiting.id]);
      const caughtUp = await anonymous('GET', '/readyz');
      expect(caughtUp.body).toMatchObject({ writer_backpressure: false });
    } finally {
      await stack.stop();
    }
  });
});

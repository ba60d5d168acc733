import { generateApiKey } from '@svc/common/api-keys';
import { ApiKeysRepository } from '@svc/persistence';
import { apiClient, useStack } from '../utils/stack';

/**
 * Spec → Limits: `RateLimit-Limit`, `-Remaining`, `-Reset` on every response of the authenticated
 * API, errors included (issue #8), not only on the requests that pass the guard.
 */
describe('RateLimit-* headers on authenticated responses', () => {
  const LIMIT = 1000;
  const e2e = useStack({ worker: false, config: { limits: { api_rate_limit_per_minute: LIMIT } } });

  function rateLimitOf(response: { headers: Headers }) {
    return {
      limit: response.headers.get('ratelimit-limit'),
      remaining: Number(response.headers.get('ratelimit-remaining')),
      reset: Number(response.headers.get('ratelimit-reset')),
    };
  }

  function expectHeaders(response: { status: number; headers: Headers }, what: string) {
    const headers = rateLimitOf(response);
    expect({ what, limit: headers.limit }).toEqual({ what, limit: String(LIMIT) });
    expect(headers.remaining).toBeGreaterThanOrEqual(0);
    expect(headers.remaining).toBeLessThan(LIMIT);
    expect(headers.reset).toBeGreaterThanOrEqual(1);
    expect(headers.reset).toBeLessThanOrEqual(60);
  }

  it('should send them on success and count down per key', async () => {
    const first = await e2e.api('GET', '/api/v1/jobs');
    const second = await e2e.api('GET', '/api/v1/jobs');
    expect(first.status).toBe(200);
    expectHeaders(first, 'success');
    expect(rateLimitOf(second).remaining).toBe(rateLimitOf(first).remaining - 1);
  });

  it('should send them on 400, 401, 403, 404 and 409 errors', async () => {
    const generated = generateApiKey();
    await new ApiKeysRepository(e2e.stack.dataSource).create(e2e.stack.workspaceId, {
      name: 'runs only',
      prefix: generated.prefix,
      keyHash: generated.hash,
      scopes: ['runs:read'],
    });
    const runsOnly = apiClient(e2e.stack.baseUrl, generated.key);
    const anonymous = apiClient(e2e.stack.baseUrl);
    const wrongKey = apiClient(e2e.stack.baseUrl, 'sjs_wrong0000000000000000000000000000000000');
    const job = await e2e.api('POST', '/api/v1/jobs', {
      name: 'for a conflict',
      schedule: { expr: '0 0 12 ? * MON' },
      sink: { kind: 'webhook', config: { url: 'http://127.0.0.1:9/unused' } },
    });
    expect(job.status).toBe(201);

    const cases: Array<[string, number, () => Promise<{ status: number; headers: Headers; body: any }>]> = [
      ['missing key', 401, () => anonymous('GET', '/api/v1/jobs')],
      ['unknown key', 401, () => wrongKey('GET', '/api/v1/runs')],
      ['scope', 403, () => runsOnly('GET', '/api/v1/jobs')],
      ['unknown id', 404, () => e2e.api('GET', '/api/v1/jobs/job_01ARZ3NDEKTSV4RRFFQ69G5FAV')],
      ['malformed id', 404, () => e2e.api('DELETE', '/api/v1/jobs/nope')],
      ['unknown route', 404, () => e2e.api('GET', '/api/v1/no-such-thing')],
      ['unknown route, no key', 404, () => anonymous('POST', '/api/v1/no-such-thing', {})],
      ['validation', 400, () => e2e.api('POST', '/api/v1/jobs', { name: '' })],
      ['bad query', 400, () => e2e.api('GET', '/api/v1/runs?limit=0')],
      ['malformed JSON', 400, () => e2e.api('POST', '/api/v1/jobs', '{"name": ')],
      ['wrong content type', 400, () => e2e.api('POST', '/api/v1/jobs', 'name=x', { 'content-type': 'text/plain' })],
      ['body over 1 MiB', 400, () => e2e.api('POST', '/api/v1/jobs', { name: 'x'.repeat(1_100_000) })],
      ['conflict', 409, () => e2e.api('POST', `/api/v1/jobs/${job.body.id}/resume`)],
    ];
    for (const [what, status, send] of cases) {
      const response = await send();
      expect({ what, status: response.status }).toEqual({ what, status });
      expect(response.body.error.code).toEqual(expect.any(String));
      expectHeaders(response, what);
    }
  });

  it('should keep invalid keys and anonymous callers out of a real key bucket', async () => {
    const before = rateLimitOf(await e2e.api('GET', '/api/v1/jobs')).remaining;
    await apiClient(e2e.stack.baseUrl)('GET', '/api/v1/jobs');
    await apiClient(e2e.stack.baseUrl, 'sjs_other0000000000000000000000000000000000')('GET', '/api/v1/jobs');
    expect(rateLimitOf(await e2e.api('GET', '/api/v1/jobs')).remaining).toBe(before - 1);
  });

  it('should not send them on public endpoints outside the authenticated API', async () => {
    const anonymous = apiClient(e2e.stack.baseUrl);
    for (const path of ['/healthz', '/version', '/api/v1/features']) {
      const response = await anonymous('GET', path);
      expect(response.status).toBe(200);
      expect({ path, limit: response.headers.get('ratelimit-limit') }).toEqual({ path, limit: null });
    }
  });
});

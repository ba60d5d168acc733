import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApp } from '../../apps/api/src/app';
import { apiClient, startStack, type Stack } from '../utils/stack';

const LIMIT = 6;

/**
 * Issue #13: rate limits are counted in PostgreSQL (`limits.store: postgres`, the default), so two
 * API replicas on one database allow the configured rate in total, not twice it; `memory` keeps
 * the per-process count for a single replica.
 */
describe('rate limits shared by API replicas', () => {
  let stack: Stack;
  let second: NestFastifyApplication;

  beforeAll(async () => {
    stack = await startStack({
      worker: false,
      config: { limits: { api_rate_limit_per_minute: LIMIT, schedule_rate_limit_per_minute: LIMIT } },
    });
    second = await createApp({ config: stack.config, logLevels: ['error'] });
    await second.listen(0, '127.0.0.1');
  });

  afterAll(async () => {
    await second?.close();
    await stack?.stop();
  });

  const secondUrl = async () => (await second.getUrl()).replace('[::1]', '127.0.0.1');

  it('should count one key across both replicas and refuse past the limit on either', async () => {
    const apis = [apiClient(stack.baseUrl, stack.apiKey), apiClient(await secondUrl(), stack.apiKey)];
    const answers = [];
    for (let i = 0; i < LIMIT; i++) {
      answers.push(await apis[i % 2]('GET', '/api/v1/jobs'));
    }
    expect(answers.map((a) => a.status)).toEqual(Array(LIMIT).fill(200));
    expect(answers.map((a) => Number(a.headers.get('ratelimit-remaining')))).toEqual(
      Array.from({ length: LIMIT }, (_, i) => LIMIT - 1 - i),
    );
    for (const api of apis) {
      const refused = await api('GET', '/api/v1/jobs');
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
  });

  it('should share the per-address budget of the schedule endpoints too, apart from the API budget', async () => {
    const urls = [stack.baseUrl, await secondUrl()];
    const statuses: number[] = [];
    for (let i = 0; i <= LIMIT; i++) {
      const response = await fetch(`${urls[i % 2]}/api/v1/schedules/validate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ expr: 'every 5 minutes' }),
      });
      statuses.push(response.status);
    }
    expect(statuses).toEqual([...Array(LIMIT).fill(200), 429]);
  });
});

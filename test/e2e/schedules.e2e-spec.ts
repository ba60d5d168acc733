import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { request as httpRequest } from 'node:http';
import { createApp } from '../../apps/api/src/app';
import { apiClient, startStack, testConfig, type Stack } from '../utils/stack';

/**
 * The public schedule endpoints over real HTTP on loopback (spec → Schedules, Limits; issue #3):
 * shapes, validation, `after` anchoring, minimum gap, computation budget, the 16 KiB body limit
 * and the per-IP rate limit. The main stack runs with the rate limit off and a 1 minute minimum
 * interval; the rate-limit suites start extra API instances on the same database.
 */
/**
 * Never fires (every other second from an even one, but only odd seconds allowed), and proving that
 * means stepping through every second-period up to the horizon: billions of steps, far beyond
 * 100 ms on any machine, so the budget error is the only answer within the budget.
 */
const PATHOLOGICAL = 'DTSTART:20260101T000000Z\nRRULE:FREQ=SECONDLY;INTERVAL=2;BYSECOND=1';

describe('schedule endpoints', () => {
  let stack: Stack;
  let api: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    stack = await startStack({
      worker: false,
      config: { limits: { schedule_rate_limit_per_minute: 0, min_interval: '1m' } },
    });
    api = apiClient(stack.baseUrl); // no API key: these routes are public
  });

  afterAll(async () => {
    await stack?.stop();
  });

  const validate = (body: unknown) => api('POST', '/api/v1/schedules/validate', body);
  const preview = (body: unknown) => api('POST', '/api/v1/schedules/preview', body);

  describe('POST /api/v1/schedules/validate', () => {
    it.each([
      [
        'natural',
        { expr: 'every weekday at 9am', timezone: 'Europe/Berlin' },
        'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9;BYMINUTE=0;BYSECOND=0',
        'Every weekday at 09:00 (Europe/Berlin)',
      ],
      ['quartz', { expr: '0 15 10 ? * MON-FRI' }, '0 15 10 ? * MON-FRI', 'At 10:15 every weekday (UTC)'],
      ['cron', { expr: '*/5 * * * *' }, '*/5 * * * *', 'Every 5 minutes (UTC)'],
      [
        'rrule',
        { expr: 'RRULE:FREQ=DAILY;BYHOUR=9;BYMINUTE=0;BYSECOND=0' },
        'FREQ=DAILY;BYHOUR=9;BYMINUTE=0;BYSECOND=0',
        'Every day at 09:00 (UTC)',
      ],
    ])('should accept a valid %s schedule without authentication', async (kind, body, canonical, description) => {
      const response = await validate(body);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ valid: true, kind_detected: kind, canonical, description, errors: [] });
    });

    it('should honour a forced kind', async () => {
      const response = await validate({ expr: 'every 5 minutes', kind: 'cron' });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ valid: false, kind_detected: 'cron', errors: [{ kind: 'field_count' }] });
    });

    it('should answer 200 valid:false with UTF-8 byte positions and a suggestion, omitting canonical and description', async () => {
      const response = await validate({ expr: 'every mönday at 9' });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        valid: false,
        kind_detected: 'natural',
        errors: [
          {
            kind: 'unknown_word',
            position: 6,
            length: 7, // "mönday": ö is two bytes
            message: 'unknown word "mönday"; did you mean "monday"?',
            suggestion: 'monday',
          },
        ],
      });
    });

    it('should explain the Quartz day-field rule with the fixed expression', async () => {
      const response = await validate({ expr: '0 0 12 * * *' });
      expect(response.body).toMatchObject({
        valid: false,
        kind_detected: 'quartz',
        errors: [{ kind: 'day_fields_conflict', position: 11, length: 1, suggestion: '0 0 12 * * ?' }],
      });
    });

    it('should report an unknown time zone as a schedule error with a suggestion', async () => {
      const response = await validate({ expr: 'every day at 9:00', timezone: 'Europe/Berlim' });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        valid: false,
        errors: [{ kind: 'unknown_timezone', suggestion: 'Europe/Berlin' }],
      });
    });

    it('should report a schedule that never fires (0 0 0 30 2 ?)', async () => {
      const response = await validate({ expr: '0 0 0 30 2 ?' });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        valid: false,
        kind_detected: 'quartz',
        errors: [{ kind: 'never_fires', position: 0, length: 12 }],
      });
    });

    it("should reject a gap below the default plan's minimum interval, and exempt one-offs", async () => {
      const tooOften = await validate({ expr: 'every 30 seconds' });
      expect(tooOften.status).toBe(200);
      expect(tooOften.body).toMatchObject({ valid: false, errors: [{ kind: 'min_interval' }] });
      expect(tooOften.body.errors[0].message).toMatch(/30s apart.*minimum interval is 1m/);
      expect((await validate({ expr: 'every minute' })).body.valid).toBe(true);
      expect((await validate({ expr: 'in 20 minutes' })).body.valid).toBe(true);
    });

    it('should return the budget error for a pathological input within the budget', async () => {
      const started = performance.now();
      const response = await validate({ expr: PATHOLOGICAL });
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        valid: false,
        kind_detected: 'rrule',
        errors: [
          {
            kind: 'budget_exceeded',
            position: 0,
            length: 66,
            message: 'schedule computation budget exceeded',
            suggestion: null,
          },
        ],
      });
    });

    it.each([
      ['an unknown field', { expr: 'daily', after: '2026-01-01T00:00:00Z' }, { after: 'unknown field' }],
      ['a missing expr', { timezone: 'UTC' }, { expr: 'is required' }],
      ['a non-string expr', { expr: 5 }, { expr: 'must be a string' }],
      ['an expr over 4096 bytes', { expr: 'é'.repeat(2049) }, { expr: 'must be at most 4096 bytes' }],
      ['an unknown kind', { expr: 'daily', kind: 'crontab' }, { kind: expect.stringContaining('must be one of') }],
    ])('should refuse %s with 400 validation_failed', async (_, body, fields) => {
      const response = await validate(body);
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'validation_failed', fields });
    });
  });

  describe('POST /api/v1/schedules/preview', () => {
    it('should default to 10 fire times in UTC after the server clock', async () => {
      const before = Date.now();
      const response = await preview({ expr: '*/5 * * * *' });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        kind_detected: 'cron',
        canonical: '*/5 * * * *',
        description: 'Every 5 minutes (UTC)',
        timezone: 'UTC',
      });
      const next: string[] = response.body.next;
      expect(next).toHaveLength(10);
      expect(Date.parse(next[0])).toBeGreaterThan(before);
      expect(Date.parse(next[0]) - before).toBeLessThanOrEqual(5 * 60_000 + 1_000);
      for (let i = 1; i < next.length; i++) {
        expect(Date.parse(next[i]) - Date.parse(next[i - 1])).toBe(5 * 60_000);
      }
      expect(next.every((t) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(t))).toBe(true);
    });

    it('should list UTC instants for a zoned schedule across a DST change', async () => {
      const response = await preview({
        expr: 'every day at 9:00',
        timezone: 'Europe/Berlin',
        after: '2026-03-27T12:00:00+01:00',
        count: 3,
      });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        timezone: 'Europe/Berlin',
        description: 'Every day at 09:00 (Europe/Berlin)',
      });
      expect(response.body.next).toEqual([
        '2026-03-28T08:00:00.000Z',
        '2026-03-29T07:00:00.000Z',
        '2026-03-30T07:00:00.000Z',
      ]);
    });

    it('should anchor a relative expression at `after` (in 20 minutes)', async () => {
      const response = await preview({ expr: 'in 20 minutes', after: '2026-03-01T10:00:07Z' });
      expect(response.status).toBe(200);
      expect(response.body.next).toEqual(['2026-03-01T10:20:07.000Z']);
      expect(response.body.description).toBe('Once at 2026-03-01 10:20:07 (UTC)');
    });

    it('should start interval phases at `after` (every 5 minutes)', async () => {
      const response = await preview({ expr: 'every 5 minutes', after: '2026-03-01T10:00:07Z', count: 3 });
      expect(response.status).toBe(200);
      expect(response.body.next).toEqual([
        '2026-03-01T10:05:07.000Z',
        '2026-03-01T10:10:07.000Z',
        '2026-03-01T10:15:07.000Z',
      ]);
    });

    it.each([
      ['every 90 minutes', 'FREQ=MINUTELY;INTERVAL=90', ['2026-03-01T11:30:07.000Z', '2026-03-01T13:00:07.000Z']],
      ['every 36 hours', 'FREQ=HOURLY;INTERVAL=36', ['2026-03-02T22:00:07.000Z', '2026-03-04T10:00:07.000Z']],
      ['every 90 seconds', 'FREQ=SECONDLY;INTERVAL=90', ['2026-03-01T10:01:37.000Z', '2026-03-01T10:03:07.000Z']],
      ['every 120 seconds', 'FREQ=MINUTELY;INTERVAL=2', ['2026-03-01T10:02:07.000Z', '2026-03-01T10:04:07.000Z']],
      ['every 60 seconds', 'FREQ=MINUTELY', ['2026-03-01T10:01:07.000Z', '2026-03-01T10:02:07.000Z']],
    ])('should accept %s (issue #24) as an interval phased at `after`', async (expr, canonical, next) => {
      // a 1-minute minimum interval on this stack: 90 seconds passes, the phase is `after`'s
      const response = await preview({ expr, after: '2026-03-01T10:00:07Z', count: 2 });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ kind_detected: 'natural', canonical, next });
    });

    it.each([
      [
        'every 90 minutes between 9am and 5pm on weekdays',
        'Every 90 minutes between 09:00 and 17:00 (last at 16:30) on weekdays (UTC)',
      ],
      ['every 6 hours starting at 2am', 'Every 6 hours from 02:00 (at 02:00, 08:00, 14:00 and 20:00) (UTC)'],
      ['twice a day', 'Every day at 00:00 and 12:00 (UTC)'],
      ['at 9am every day except weekends', 'Every weekday at 09:00 (UTC)'],
      ['every 18 months', 'Every 18 months at 00:00 (UTC)'],
    ])('should validate %s (issue #24) with a description without holes', async (expr, description) => {
      const response = await validate({ expr });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ valid: true, description, errors: [] });
    });

    it.each([1, 100])('should accept count %p', async (count) => {
      const response = await preview({ expr: 'every hour', after: '2026-03-01T00:00:00Z', count });
      expect(response.status).toBe(200);
      expect(response.body.next).toHaveLength(count);
    });

    it.each([0, 101, -1, 1.5, '10'])('should refuse count %p with 400 validation_failed', async (count) => {
      const response = await preview({ expr: 'every hour', count });
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('validation_failed');
      expect(Object.keys(response.body.error.fields)).toEqual(['count']);
    });

    it.each([
      'yesterday',
      '2026-02-30T00:00:00Z',
      '2026-03-01T10:00:00',
      '2026-03-01 10:00:00Z',
      '2026-03-01T24:00:00Z',
      1767225600000,
    ])('should refuse after=%p with 400 validation_failed', async (after) => {
      const response = await preview({ expr: 'every hour', after });
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'validation_failed', fields: { after: expect.any(String) } });
    });

    it('should refuse unknown fields', async () => {
      const response = await preview({ expr: 'every hour', starts_at: '2026-01-01T00:00:00Z' });
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'validation_failed', fields: { starts_at: 'unknown field' } });
    });

    it('should answer an invalid expression with 400 validation_failed, fields.expr and structured errors', async () => {
      const response = await preview({ expr: 'every mondy at 9' });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        error: {
          code: 'validation_failed',
          message: 'Invalid schedule',
          fields: { expr: 'unknown word "mondy"; did you mean "monday"?' },
          errors: [
            {
              kind: 'unknown_word',
              position: 6,
              length: 5,
              message: 'unknown word "mondy"; did you mean "monday"?',
              suggestion: 'monday',
            },
          ],
        },
      });
    });

    it('should name the timezone field for an unknown zone', async () => {
      const response = await preview({ expr: 'daily', timezone: 'Mars/Olympus' });
      expect(response.status).toBe(400);
      expect(response.body.error.fields).toEqual({ timezone: expect.stringContaining('Mars/Olympus') });
      expect(response.body.error.errors).toMatchObject([{ kind: 'unknown_timezone' }]);
    });

    it.each([
      ['never fires', '0 0 0 30 2 ?', 'never_fires'],
      ['is below the minimum interval', 'every 30 seconds', 'min_interval'],
      ['exceeds the computation budget', PATHOLOGICAL, 'budget_exceeded'],
    ])('should answer a schedule that %s with 400 and the structured error', async (_, expr, kind) => {
      const started = performance.now();
      const response = await preview({ expr });
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({
        code: 'validation_failed',
        fields: { expr: expect.any(String) },
        errors: [{ kind }],
      });
    });
  });

  describe('request limits', () => {
    it('should refuse a body over 16 KiB with 400 validation_failed (field body)', async () => {
      const body = JSON.stringify({ expr: 'daily', kind: 'auto', timezone: 'UTC', pad: 'x'.repeat(16 * 1024) });
      for (const path of ['validate', 'preview']) {
        const response = await api('POST', `/api/v1/schedules/${path}`, body);
        expect(response.status).toBe(400);
        expect(response.body.error).toMatchObject({
          code: 'validation_failed',
          fields: { body: 'Request body too large' },
        });
      }
    });

    it('should refuse a chunked body (no Content-Length) once it passes 16 KiB', async () => {
      const url = new URL('/api/v1/schedules/validate', stack.baseUrl);
      const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = httpRequest(
          {
            host: url.hostname,
            port: url.port,
            path: url.pathname,
            method: 'POST',
            headers: { 'content-type': 'application/json' },
          },
          (res) => {
            let text = '';
            res.on('data', (chunk) => (text += chunk));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
          },
        );
        req.on('error', reject);
        req.write('{"expr":"');
        for (let i = 0; i < 20; i++) {
          req.write('x'.repeat(1024));
        }
        req.end('"}');
      });
      expect(status).toBe(400);
      expect(JSON.parse(text).error.fields).toEqual({ body: 'Request body too large' });
    });

    it('should keep the 1 MiB limit on other routes', async () => {
      const body = JSON.stringify({ name: 'x'.repeat(20 * 1024) });
      const response = await api('POST', '/api/v1/jobs', body, { authorization: `Bearer ${stack.apiKey}` });
      expect(response.status).toBe(400);
      expect(response.body.error.fields.body).toBeUndefined();
    });

    it.each([
      ['malformed JSON', '{"expr": "daily",'],
      ['an empty JSON body', ''],
    ])('should refuse %s with 400 validation_failed (field body)', async (_, raw) => {
      const response = await fetch(`${stack.baseUrl}/api/v1/schedules/preview`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: raw,
      });
      expect(response.status).toBe(400);
      const body = (await response.json()) as { error: { code: string; fields: Record<string, string> } };
      expect(body.error.code).toBe('validation_failed');
      expect(Object.keys(body.error.fields)).toEqual(['body']);
    });

    it.each([
      ['an array', '[]'],
      ['a string', '"daily"'],
      ['null', 'null'],
    ])('should refuse %s as the body with 400 validation_failed', async (_, raw) => {
      const response = await api('POST', '/api/v1/schedules/validate', raw);
      expect(response.status).toBe(400);
      // not an object: the envelope names the body itself
      expect(response.body.error).toMatchObject({
        code: 'validation_failed',
        fields: { body: 'must be a JSON object' },
      });
    });

    it('should not limit the rate when schedule_rate_limit_per_minute is 0', async () => {
      for (let i = 0; i < 70; i++) {
        const response = await validate({ expr: 'daily' });
        expect(response.status).toBe(200);
        expect(response.headers.get('ratelimit-limit')).toBeNull();
      }
    });
  });

  describe('rate limit', () => {
    const apps: NestFastifyApplication[] = [];
    async function startApi(overrides: Record<string, unknown>): Promise<ReturnType<typeof apiClient>> {
      const app = await createApp({ config: testConfig(stack.config.database.url, overrides), logLevels: ['error'] });
      await app.listen(0, '127.0.0.1');
      apps.push(app);
      return apiClient((await app.getUrl()).replace('[::1]', '127.0.0.1'));
    }
    afterAll(async () => {
      for (const app of apps) {
        await app.close();
      }
    });
    // The API instances share one database, and with it the per-address windows (limits.store
    // postgres): each case starts from fresh windows.
    beforeEach(async () => {
      await stack.dataSource.query('DELETE FROM rate_limit_windows');
    });

    it('should allow 5 requests a minute per peer IP with RateLimit-* headers, then 429 rate_limited with Retry-After', async () => {
      const limited = await startApi({ limits: { schedule_rate_limit_per_minute: 5 } });
      for (let i = 0; i < 5; i++) {
        // both endpoints share the bucket, and invalid requests count too
        const response =
          i % 2 === 0
            ? await limited('POST', '/api/v1/schedules/validate', { expr: 'daily' })
            : await limited('POST', '/api/v1/schedules/preview', { expr: 'daily', count: 0 });
        expect(response.status).toBe(i % 2 === 0 ? 200 : 400);
        expect(response.headers.get('ratelimit-limit')).toBe('5');
        expect(response.headers.get('ratelimit-remaining')).toBe(String(4 - i));
        const reset = Number(response.headers.get('ratelimit-reset'));
        expect(reset).toBeGreaterThanOrEqual(1);
        expect(reset).toBeLessThanOrEqual(60);
      }
      const rejected = await limited('POST', '/api/v1/schedules/preview', { expr: 'daily' });
      expect(rejected.status).toBe(429);
      expect(rejected.body).toEqual({
        error: { code: 'rate_limited', message: 'Too many requests; wait for Retry-After' },
      });
      expect(rejected.headers.get('ratelimit-remaining')).toBe('0');
      const retryAfter = Number(rejected.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(rejected.headers.get('x-request-id')).toBeTruthy();

      // X-Forwarded-For is not trusted by default: a "different client" still shares the peer's bucket
      const spoofed = await limited(
        'POST',
        '/api/v1/schedules/validate',
        { expr: 'daily' },
        { 'x-forwarded-for': '203.0.113.9' },
      );
      expect(spoofed.status).toBe(429);

      // other routes are not limited by it
      const health = await limited('GET', '/healthz');
      expect(health.status).toBe(200);
      expect(health.headers.get('ratelimit-limit')).toBeNull();
    });

    it('should default to 60 requests a minute', async () => {
      const defaults = await startApi({ limits: {} });
      const response = await defaults('POST', '/api/v1/schedules/validate', { expr: 'daily' });
      expect(response.headers.get('ratelimit-limit')).toBe('60');
      expect(response.headers.get('ratelimit-remaining')).toBe('59');
    });

    it('should key by X-Forwarded-For when http.trust_proxy is true', async () => {
      const proxied = await startApi({ http: { trust_proxy: true }, limits: { schedule_rate_limit_per_minute: 1 } });
      const from = (ip: string) =>
        proxied('POST', '/api/v1/schedules/validate', { expr: 'daily' }, { 'x-forwarded-for': ip });
      expect((await from('203.0.113.1')).status).toBe(200);
      expect((await from('203.0.113.2')).status).toBe(200);
      expect((await from('203.0.113.1')).status).toBe(429);
    });
  });
});

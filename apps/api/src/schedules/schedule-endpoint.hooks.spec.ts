import Fastify, { type FastifyInstance } from 'fastify';
import { toErrorResponse } from '../common/error.filter';
import { FixedWindowRateLimiter } from '../common/rate-limiter';
import { SCHEDULE_BODY_LIMIT, scheduleRouteOptions } from './schedule-endpoint.hooks';

/**
 * The hooks on a bare Fastify instance (no Nest, no sockets: `inject`), with the API's error
 * handler and the routes' own 16 KiB `bodyLimit`, so body-limit and rate-limit behaviour is
 * pinned down without the assembled app.
 */
async function build(options: { limit?: number; trustProxy?: boolean; now?: () => number } = {}) {
  const fastify = Fastify({ bodyLimit: 1024 * 1024, trustProxy: options.trustProxy ?? false });
  fastify.setErrorHandler((err, _request, reply) => {
    const { status, body } = toErrorResponse(err);
    void reply.status(status).send({ error: body });
  });
  const limiter = options.limit ? new FixedWindowRateLimiter({ limit: options.limit, now: options.now }) : null;
  const echo = async (request: { body: unknown }) => ({ size: JSON.stringify(request.body).length });
  fastify.post('/limited', scheduleRouteOptions({ limiter, trustProxy: options.trustProxy ?? false }), echo);
  fastify.post('/other', echo);
  await fastify.ready();
  return fastify;
}

function body(bytes: number): string {
  // {"expr":"xxx…"} of exactly `bytes` bytes
  return JSON.stringify({ expr: 'x'.repeat(bytes - 11) });
}

describe('schedule endpoint hooks', () => {
  let fastify: FastifyInstance;
  afterEach(async () => fastify?.close());
  /** A POST to `url`, from `remoteAddress` when given (else inject's default peer). */
  const post = (url: string, payload: object | string, headers: Record<string, string> = {}, remoteAddress?: string) =>
    fastify.inject({
      method: 'POST',
      url,
      payload,
      headers,
      ...(remoteAddress === undefined ? {} : { remoteAddress }),
    });
  const json = { 'content-type': 'application/json' };
  /** `times` POSTs to `url`, each answered 200 without RateLimit-* headers. */
  const expectNeverLimited = async (url: string, times: number) => {
    for (let i = 0; i < times; i++) {
      const response = await post(url, {});
      expect(response.statusCode).toBe(200);
      expect(response.headers['ratelimit-limit']).toBeUndefined();
    }
  };

  describe('body limit', () => {
    it('should accept a body of exactly 16 KiB', async () => {
      fastify = await build();
      const response = await post('/limited', body(SCHEDULE_BODY_LIMIT), json);
      expect(response.statusCode).toBe(200);
    });

    it('should refuse a Content-Length above 16 KiB with 400 validation_failed (fields.body)', async () => {
      fastify = await build();
      const response = await post('/limited', body(SCHEDULE_BODY_LIMIT + 1), json);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({
        error: {
          code: 'validation_failed',
          message: 'Request body too large',
          fields: { body: 'Request body too large' },
        },
      });
    });

    it('should count streamed bytes when Content-Length understates the body', async () => {
      fastify = await build();
      // onRequest trusts the declared 100 bytes; the preParsing counter stops the stream at 16 KiB
      const response = await post('/limited', body(SCHEDULE_BODY_LIMIT * 2), { ...json, 'content-length': '100' });
      expect(response.statusCode).toBe(400);
      expect(response.json().error.fields).toEqual({ body: 'Request body too large' });
    });

    it('should leave other routes at the global limit', async () => {
      fastify = await build();
      const response = await post('/other', body(SCHEDULE_BODY_LIMIT * 4), json);
      expect(response.statusCode).toBe(200);
    });
  });

  describe('rate limit', () => {
    it('should send RateLimit-* headers and 429 rate_limited with Retry-After past the limit', async () => {
      let t = 0;
      fastify = await build({ limit: 2, now: () => t });
      const hit = () => fastify.inject({ method: 'POST', url: '/limited', payload: { expr: 'daily' } });
      const first = await hit();
      expect(first.statusCode).toBe(200);
      expect(first.headers).toMatchObject({
        'ratelimit-limit': '2',
        'ratelimit-remaining': '1',
        'ratelimit-reset': '60',
      });
      t = 15_500;
      expect((await hit()).headers['ratelimit-remaining']).toBe('0');
      const limited = await hit();
      expect(limited.statusCode).toBe(429);
      expect(limited.headers).toMatchObject({
        'ratelimit-remaining': '0',
        'ratelimit-reset': '45',
        'retry-after': '45',
      });
      expect(limited.json()).toEqual({
        error: { code: 'rate_limited', message: 'Too many requests; wait for Retry-After' },
      });
      t = 60_000;
      expect((await hit()).statusCode).toBe(200);
    });

    it('should count requests that fail validation or are too large', async () => {
      fastify = await build({ limit: 2 });
      const big = await post('/limited', body(SCHEDULE_BODY_LIMIT + 1), json);
      expect(big.statusCode).toBe(400);
      expect(big.headers['ratelimit-remaining']).toBe('1');
      await post('/limited', '{bad', json);
      expect((await fastify.inject({ method: 'POST', url: '/limited', payload: {} })).statusCode).toBe(429);
    });

    it('should not limit or annotate other routes', async () => {
      fastify = await build({ limit: 1 });
      await expectNeverLimited('/other', 3);
    });

    it('should send no headers when the limit is off (0)', async () => {
      fastify = await build({ limit: 0 });
      await expectNeverLimited('/limited', 100);
    });

    it('should key by the peer address and ignore X-Forwarded-For by default', async () => {
      fastify = await build({ limit: 1 });
      const from = (xff: string) => post('/limited', {}, { 'x-forwarded-for': xff }, '10.1.1.1');
      expect((await from('1.1.1.1')).statusCode).toBe(200);
      expect((await from('2.2.2.2')).statusCode).toBe(429);
      const other = await post('/limited', {}, {}, '10.1.1.2');
      expect(other.statusCode).toBe(200);
    });

    it('should key by X-Forwarded-For when http.trust_proxy is true', async () => {
      fastify = await build({ limit: 1, trustProxy: true });
      const from = (xff: string) => post('/limited', {}, { 'x-forwarded-for': xff }, '10.1.1.1');
      expect((await from('1.1.1.1')).statusCode).toBe(200);
      expect((await from('2.2.2.2')).statusCode).toBe(200);
      expect((await from('1.1.1.1')).statusCode).toBe(429);
    });

    it('should treat an IPv4-mapped IPv6 peer as the IPv4 address', async () => {
      fastify = await build({ limit: 1 });
      expect((await post('/limited', {}, {}, '::ffff:10.9.9.9')).statusCode).toBe(200);
      expect((await post('/limited', {}, {}, '10.9.9.9')).statusCode).toBe(429);
    });
  });
});

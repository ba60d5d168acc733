import { Webhook } from 'standardwebhooks';
import type { LookupAddress } from 'node:dns';
import {
  NetworkRules,
  buildWebhookHeaders,
  classifyResponse,
  deliverHttp,
  generateSigningSecret,
  getRetryAfterMs,
  serializeStandardPayload,
} from '@svc/delivery';
import { Receiver, closedPort, startReceiver } from './receiver';

const selfHosted: NetworkRules = { mode: 'self_hosted', allowPrivateNetworks: true };
const hosted: NetworkRules = { mode: 'hosted' };
const defaults = { successCodes: '2xx' as const, retryOn: ['5xx', 408, 429, 'network', 'timeout'] as const };
const classify = (r: Parameters<typeof classifyResponse>[0]) =>
  classifyResponse(r, { successCodes: defaults.successCodes, retryOn: [...defaults.retryOn] });

describe('deliverHttp against a loopback receiver', () => {
  let rx: Receiver;
  beforeEach(async () => {
    rx = await startReceiver();
  });
  afterEach(async () => {
    await rx.close();
  });

  const send = (path: string, extra: Partial<Parameters<typeof deliverHttp>[0]> = {}) =>
    deliverHttp({
      url: `${rx.origin}${path}`,
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"a":1}',
      timeoutMs: 5000,
      rules: selfHosted,
      ...extra,
    });

  describe('responses and classification', () => {
    it('should deliver and classify 200 as success', async () => {
      rx.setHandler((_req, res) => {
        res.setHeader('X-Reply', 'yes');
        res.end('fine');
      });
      const r = await send('/hook?x=1');
      expect(r).toMatchObject({ statusCode: 200, body: 'fine', bodyTruncated: false, redirects: 0 });
      expect(r.headers['x-reply']).toBe('yes');
      expect(r.error).toBeUndefined();
      expect(r.requestSummary).toBe(`POST ${rx.origin}/hook?x=1 (7 bytes)`);
      expect(r.durationMs).toBeGreaterThanOrEqual(0);
      expect(classify(r)).toBe('success');
      expect(rx.requests).toHaveLength(1);
      expect(rx.requests[0]).toMatchObject({ method: 'POST', path: '/hook?x=1', body: '{"a":1}' });
    });

    it('should classify 500 as retryable', async () => {
      rx.setHandler((_req, res) => {
        res.statusCode = 500;
        res.end('boom');
      });
      const r = await send('/');
      expect(r).toMatchObject({ statusCode: 500, body: 'boom' });
      expect(classify(r)).toBe('retryable');
    });

    it('should classify 404 as fatal', async () => {
      rx.setHandler((_req, res) => {
        res.statusCode = 404;
        res.end();
      });
      const r = await send('/');
      expect(r.statusCode).toBe(404);
      expect(classify(r)).toBe('fatal');
    });

    it('should classify 429 as retryable and expose Retry-After', async () => {
      rx.setHandler((_req, res) => {
        res.statusCode = 429;
        res.setHeader('Retry-After', '7');
        res.end();
      });
      const r = await send('/');
      expect(classify(r)).toBe('retryable');
      expect(getRetryAfterMs(r, Date.now())).toBe(7000);
    });

    it('should time out when the receiver never answers', async () => {
      rx.setHandler(() => undefined);
      const r = await send('/', { timeoutMs: 300 });
      expect(r).toMatchObject({ statusCode: null, errorKind: 'timeout' });
      expect(r.error).toMatch(/timeout/);
      expect(r.durationMs).toBeGreaterThanOrEqual(250);
      expect(classify(r)).toBe('retryable');
    });

    it('should abandon the request in flight when its signal aborts (a cancelled run), long before the timeout', async () => {
      let closed = false;
      rx.setHandler((_req, res) => {
        res.on('close', () => (closed = true));
      });
      const cancel = new AbortController();
      setTimeout(() => cancel.abort(), 200);
      const r = await send('/', { timeoutMs: 10_000, signal: cancel.signal });
      expect(r).toMatchObject({
        statusCode: null,
        errorKind: 'network',
        error: 'cancelled: the attempt was abandoned',
      });
      expect(r.durationMs).toBeLessThan(5_000);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(closed).toBe(true);
    });

    it('should report a refused connection as a retryable network error', async () => {
      const port = await closedPort();
      const r = await deliverHttp({
        url: `http://127.0.0.1:${port}/`,
        method: 'POST',
        headers: {},
        body: 'x',
        timeoutMs: 2000,
        rules: selfHosted,
      });
      expect(r).toMatchObject({ statusCode: null, errorKind: 'network' });
      expect(r.error).toMatch(/ECONNREFUSED/);
      expect(classify(r)).toBe('retryable');
    });

    it('should report a DNS failure as a network error', async () => {
      const r = await send('/', {
        url: 'http://does-not-exist.test/',
        resolve: async () => {
          throw Object.assign(new Error('getaddrinfo ENOTFOUND does-not-exist.test'), { code: 'ENOTFOUND' });
        },
      });
      expect(r).toMatchObject({ statusCode: null, errorKind: 'network' });
      expect(r.error).toMatch(/ENOTFOUND/);
    });

    it('should read at most 64 KiB of a 70 KiB response', async () => {
      rx.setHandler((_req, res) => {
        res.end('a'.repeat(70 * 1024));
      });
      const r = await send('/');
      expect(r.statusCode).toBe(200);
      expect(r.bodyTruncated).toBe(true);
      expect(r.body).toHaveLength(64 * 1024);
    });

    it('should not mark a body of exactly the limit as truncated', async () => {
      rx.setHandler((_req, res) => res.end('b'.repeat(1024)));
      const r = await send('/', { maxResponseBytes: 1024 });
      expect(r).toMatchObject({ bodyTruncated: false });
      expect(r.body).toHaveLength(1024);
    });

    it('should not cut a multi-byte character in half', async () => {
      rx.setHandler((_req, res) => res.end('€€€€'));
      const r = await send('/', { maxResponseBytes: 7 }); // € is 3 bytes
      expect(r.body).toBe('€€');
      expect(r.bodyTruncated).toBe(true);
    });
  });

  describe('redirects', () => {
    const chain = (hops: number, final: (res: import('node:http').ServerResponse) => void) => {
      rx.setHandler((req, res) => {
        const n = Number(new URL(req.path, rx.origin).searchParams.get('n') ?? '0');
        if (n < hops) {
          res.statusCode = 302;
          res.setHeader('Location', `/r?n=${n + 1}`);
          res.end();
        } else {
          final(res);
        }
      });
    };

    it('should return the 3xx as is when follow_redirects is off', async () => {
      chain(1, (res) => res.end('final'));
      const r = await send('/r?n=0');
      expect(r).toMatchObject({ statusCode: 302, redirects: 0 });
      expect(r.headers.location).toBe('/r?n=1');
      expect(classify(r)).toBe('fatal');
      expect(rx.requests).toHaveLength(1);
    });

    it('should follow up to 5 redirects, keeping method and body on 302', async () => {
      chain(5, (res) => res.end('final'));
      const r = await send('/r?n=0', { followRedirects: true });
      expect(r).toMatchObject({ statusCode: 200, body: 'final', redirects: 5 });
      expect(r.finalUrl).toBe(`${rx.origin}/r?n=5`);
      expect(rx.requests).toHaveLength(6);
      expect(rx.requests.every((q) => q.method === 'POST' && q.body === '{"a":1}')).toBe(true);
      expect(classify(r)).toBe('success');
    });

    it('should stop after more than 5 redirects as too_many_redirects (fatal)', async () => {
      chain(6, (res) => res.end('final'));
      const r = await send('/r?n=0', { followRedirects: true });
      expect(r).toMatchObject({ errorKind: 'too_many_redirects', redirects: 5 });
      expect(rx.requests).toHaveLength(6);
      expect(classify(r)).toBe('fatal');
    });

    it('should switch to GET without a body on 303', async () => {
      rx.setHandler((req, res) => {
        if (req.path === '/start') {
          res.statusCode = 303;
          res.setHeader('Location', '/see-other');
          res.end();
        } else {
          res.end('done');
        }
      });
      const r = await send('/start', { followRedirects: true });
      expect(r.statusCode).toBe(200);
      expect(rx.requests[1]).toMatchObject({ method: 'GET', path: '/see-other', body: '' });
      expect(rx.requests[1].headers['content-type']).toBeUndefined();
    });

    it('should drop custom headers when a redirect changes host (127.0.0.1 → localhost)', async () => {
      rx.setHandler((req, res) => {
        if (req.path === '/start') {
          res.statusCode = 307;
          res.setHeader('Location', `http://localhost:${rx.port}/other-host`);
          res.end();
        } else if (req.path === '/same') {
          res.statusCode = 308;
          res.setHeader('Location', '/start');
          res.end();
        } else {
          res.end('done');
        }
      });
      const r = await send('/same', {
        followRedirects: true,
        headers: {
          'Content-Type': 'application/json',
          'webhook-id': 'run_1',
          Authorization: 'Bearer s3cret',
          'X-Token': 't',
        },
        // localhost must resolve to the loopback receiver only (IPv4), whatever /etc/hosts says
        resolve: async (): Promise<LookupAddress[]> => [{ address: '127.0.0.1', family: 4 }],
      });
      expect(r).toMatchObject({ statusCode: 200, redirects: 2 });
      const [first, second, third] = rx.requests;
      expect(first.headers.authorization).toBe('Bearer s3cret');
      expect(second.headers['x-token']).toBe('t'); // same host: kept
      expect(third.headers.host).toBe(`localhost:${rx.port}`);
      expect(third.headers.authorization).toBeUndefined();
      expect(third.headers['x-token']).toBeUndefined();
      expect(third.headers['webhook-id']).toBe('run_1'); // service headers stay
      expect(third.method).toBe('POST');
    });

    it('should refuse a redirect hop that breaks the rules without sending it', async () => {
      rx.setHandler((_req, res) => {
        res.statusCode = 302;
        res.setHeader('Location', 'http://169.254.169.254/latest/meta-data/');
        res.end();
      });
      const r = await send('/', { followRedirects: true, rules: { mode: 'self_hosted', allowPrivateNetworks: false } });
      // 127.0.0.1 itself is private under these rules, so even the first request is refused
      expect(r.errorKind).toBe('destination_not_allowed');
      expect(rx.requests).toHaveLength(0);
    });

    it('should re-check the resolved addresses of every hop', async () => {
      rx.setHandler((req, res) => {
        if (req.path === '/x') {
          return void res.end('arrived');
        }
        res.statusCode = 302;
        res.setHeader('Location', `http://internal.test:${rx.port}/x`);
        res.end();
      });
      const resolved: string[] = [];
      const r = await send('/', {
        followRedirects: true,
        rules: selfHosted,
        resolve: async (host) => {
          resolved.push(host);
          return [{ address: '127.0.0.1', family: 4 }];
        },
      });
      // self-hosted: allowed, and resolution went through our resolver exactly once for the new host
      expect(resolved).toEqual(['internal.test']);
      expect(r).toMatchObject({ statusCode: 200, body: 'arrived', redirects: 1 });
      expect(rx.requests[1].headers.host).toBe(`internal.test:${rx.port}`);
    });
  });

  describe('hosted network rules (no traffic may leave)', () => {
    /** POST `{}` to `url` under the hosted rules, names resolved by `resolve`. */
    const sendHosted = (url: string, resolve: () => Promise<LookupAddress[]>) =>
      deliverHttp({ url, method: 'POST', headers: {}, body: '{}', timeoutMs: 1000, rules: hosted, resolve });

    it.each([
      ['127.0.0.1', 'http://127.0.0.1/'],
      ['::1', 'http://[::1]/'],
      ['169.254.169.254', 'http://169.254.169.254/latest/meta-data/'],
      ['::ffff:10.0.0.1', 'http://[::ffff:10.0.0.1]/'],
      ['0x7f.1', 'http://0x7f.1/'],
      ['localhost', 'http://localhost/'],
    ])('should refuse %s before connecting', async (_name, url) => {
      const resolve = jest.fn(async (): Promise<LookupAddress[]> => [{ address: '127.0.0.1', family: 4 }]);
      const r = await sendHosted(url, resolve);
      expect(r).toMatchObject({
        statusCode: null,
        errorKind: 'destination_not_allowed',
        error: expect.stringMatching(/^network_blocked: destination not allowed \(.+\)$/),
      });
      expect(resolve).not.toHaveBeenCalled();
      expect(classify(r)).toBe('fatal');
    });

    it('should refuse port 8080 (only 80 and 443), even on the loopback receiver', async () => {
      const r = await send('/', { url: `http://127.0.0.1:${rx.port}/`, rules: hosted });
      expect(r.errorKind).toBe('destination_not_allowed');
      const r8080 = await send('/', { url: 'http://example.com:8080/', rules: hosted });
      expect(r8080.errorKind).toBe('destination_not_allowed');
      expect(rx.requests).toHaveLength(0);
    });

    it('should refuse a hostname that resolves to a private address, after one resolution', async () => {
      const resolve = jest.fn(async (): Promise<LookupAddress[]> => [
        { address: '93.184.216.34', family: 4 },
        { address: '::ffff:127.0.0.1', family: 6 },
      ]);
      const r = await sendHosted('http://rebind.test/', resolve);
      expect(r).toMatchObject({
        errorKind: 'destination_not_allowed',
        error: 'network_blocked: destination not allowed (rebind.test resolves to a loopback address)',
      });
      expect(resolve).toHaveBeenCalledTimes(1);
      expect(classify(r)).toBe('fatal');
    });
  });

  describe('connects only to the checked address', () => {
    it('should connect to the address the resolver returned, not a second lookup', async () => {
      const resolve = jest.fn(async (): Promise<LookupAddress[]> => [{ address: '127.0.0.1', family: 4 }]);
      const r = await send('/', { url: `http://svc-under-test.invalid:${rx.port}/p`, resolve });
      expect(r.statusCode).toBe(200);
      expect(resolve).toHaveBeenCalledTimes(1);
      expect(rx.requests[0].headers.host).toBe(`svc-under-test.invalid:${rx.port}`);
    });
  });

  describe('signed request', () => {
    it('should be verified by standardwebhooks on the receiver side', async () => {
      const secret = generateSigningSecret();
      const verified: unknown[] = [];
      rx.setHandler((req, res) => {
        try {
          verified.push(new Webhook(secret).verify(req.body, req.headers as Record<string, string>));
          res.end('ok');
        } catch (e) {
          res.statusCode = 401;
          res.end(String(e));
        }
      });
      const body = serializeStandardPayload({
        runId: 'run_01',
        jobId: 'job_01',
        jobName: 'demo ✓',
        scheduledAt: '2025-01-01T00:00:00Z',
        firedAt: Date.now(),
        attempt: 0,
      });
      const headers = buildWebhookHeaders({
        runId: 'run_01',
        jobId: 'job_01',
        scheduledAt: '2025-01-01T00:00:00Z',
        attempt: 0,
        timestampSec: Math.floor(Date.now() / 1000),
        body,
        secrets: [secret, generateSigningSecret()],
        serviceName: 'svc',
        version: '1.2.3',
        customHeaders: { 'X-Token': 'abc' },
      });
      const r = await send('/signed', { headers, body });
      expect(r.statusCode).toBe(200);
      expect(verified).toEqual([JSON.parse(body)]);
      const got = rx.requests[0].headers;
      expect(got['user-agent']).toBe('svc/1.2.3');
      expect(got['idempotency-key']).toBe('run_01');
      expect(got['svc-attempt']).toBe('0');
      expect(got['x-token']).toBe('abc');
    });
  });
});

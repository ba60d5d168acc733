import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { networkInterfaces } from 'node:os';
import { createApp } from '../../apps/api/src/app';
import { startStack, type Stack, testConfig } from '../utils/stack';

/**
 * `/metrics` and the client address behind a reverse proxy (issue 41; docs/operations.md →
 * Metrics access, docs/security.md → Metrics and proxies), over real HTTP: `X-Forwarded-For` is
 * believed only from `http.trusted_proxies`, and then only its right-most untrusted hop (never the
 * left-most one a client writes); without `metrics.token`, `/metrics` is served to loopback peers
 * only when the API is loopback-only (no trusted proxy, `http.host` loopback).
 *
 * A non-loopback peer: this host's own non-loopback address (the API listens on 0.0.0.0, and a
 * request to that address comes from it).
 */
const remoteAddress = Object.values(networkInterfaces())
  .flat()
  .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;

(remoteAddress ? describe : describe.skip)('metrics and client addresses behind a proxy', () => {
  let stack: Stack;
  const apps: NestFastifyApplication[] = [];

  beforeAll(async () => {
    stack = await startStack({ worker: false });
  });
  afterAll(async () => {
    for (const app of apps) {
      await app.close();
    }
    await stack?.stop();
  });
  beforeEach(async () => {
    await stack.dataSource.query('DELETE FROM rate_limit_windows');
  });

  /** An API on 0.0.0.0: `local` reaches it from 127.0.0.1, `remote` from the non-loopback address. */
  async function startApi(overrides: Record<string, unknown>) {
    const app = await createApp({ config: testConfig(stack.config.database.url, overrides), logLevels: ['error'] });
    await app.listen(0, '0.0.0.0');
    apps.push(app);
    const { port } = app.getHttpServer().address() as { port: number };
    const call =
      (host: string) =>
      (path: string, headers: Record<string, string> = {}, body?: unknown) =>
        fetch(`http://${host}:${port}${path}`, {
          method: body === undefined ? 'GET' : 'POST',
          headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
    return { local: call('127.0.0.1'), remote: call(remoteAddress!) };
  }

  /** `RateLimit-Remaining` of one schedule validation: which per-address bucket the API chose. */
  type Client = Awaited<ReturnType<typeof startApi>>['local'];
  async function remaining(client: Client, xff?: string): Promise<number> {
    const response = await client('/api/v1/schedules/validate', xff ? { 'x-forwarded-for': xff } : {}, {
      expr: 'daily',
    });
    expect(response.status).toBe(200);
    return Number(response.headers.get('ratelimit-remaining'));
  }

  it('believes X-Forwarded-For only from a listed proxy, and only its right-most untrusted hop', async () => {
    const api = await startApi({
      http: { trusted_proxies: ['127.0.0.1/32'] },
      limits: { schedule_rate_limit_per_minute: 10 },
    });
    // An untrusted peer cannot pick its bucket (nor claim to be loopback) by writing the header.
    expect(await remaining(api.remote, '127.0.0.1')).toBe(9);
    expect(await remaining(api.remote, '127.0.0.2')).toBe(8);
    expect(await remaining(api.remote)).toBe(7);
    // Through the trusted proxy: the client is the hop the proxy appended, whatever came before.
    expect(await remaining(api.local, '198.51.100.1, 203.0.113.9')).toBe(9);
    expect(await remaining(api.local, '127.0.0.1, 203.0.113.9')).toBe(8);
    expect(await remaining(api.local, '203.0.113.10')).toBe(9);
  });

  it('behind a proxy, /metrics needs metrics.token even from loopback (403 without one)', async () => {
    for (const http of [{ trusted_proxies: ['127.0.0.1'] }, { trust_proxy: true }]) {
      const api = await startApi({ http });
      for (const response of [
        await api.local('/metrics'),
        await api.local('/metrics', { 'x-forwarded-for': '127.0.0.1' }),
        await api.remote('/metrics', { 'x-forwarded-for': '127.0.0.1' }),
      ]) {
        expect(response.status).toBe(403);
        const body = (await response.json()) as { error: { code: string; message: string } };
        expect(body.error.code).toBe('forbidden');
        expect(body.error.message).toContain('metrics.token');
      }
    }
  });

  it('listening beyond loopback, /metrics needs metrics.token even from loopback', async () => {
    const api = await startApi({ http: { host: '0.0.0.0' } });
    expect((await api.local('/metrics')).status).toBe(403);
  });

  it('with metrics.token behind a proxy: its bearers only, from anywhere', async () => {
    const token = 'proxy-metrics-token-0123456789';
    const api = await startApi({ http: { trusted_proxies: ['127.0.0.1'] }, metrics: { token } });
    expect((await api.remote('/metrics', { 'x-forwarded-for': '127.0.0.1' })).status).toBe(401);
    expect((await api.local('/metrics')).status).toBe(401);
    const allowed = await api.remote('/metrics', { authorization: `Bearer ${token}` });
    expect(allowed.status).toBe(200);
    expect(await allowed.text()).toContain('svc_');
  });

  it('loopback-only (http.host 127.0.0.1, no proxy): loopback peers without a token, a forged header is no loopback', async () => {
    const api = await startApi({});
    expect((await api.local('/metrics')).status).toBe(200);
    const forged = await api.remote('/metrics', { 'x-forwarded-for': '127.0.0.1' });
    expect(forged.status).toBe(403);
    expect(((await forged.json()) as { error: { message: string } }).error.message).toContain('loopback');
  });
});

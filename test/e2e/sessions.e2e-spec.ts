import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { buildConfig } from '@svc/common';
import { createApp } from '../../apps/api/src/app';
import { useStack } from '../utils/stack';

/**
 * Dashboard sessions (issue #11; spec → Authentication 4 and 5; decisions.md → Sessions):
 * `POST /auth/dev-login` sets the `svc_session` cookie (HttpOnly, SameSite=Lax, Secure on https)
 * and stores only the token's hash; the guard accepts the cookie like a key, with the workspace
 * from `Svc-Workspace`, the membership role's scopes, and `X-CSRF-Token` on every mutation.
 */
describe('sessions', () => {
  const others: NestFastifyApplication[] = [];
  // Declared before the stack's hooks, so that it runs first: the other APIs close before the stack drops their database.
  afterAll(async () => {
    for (const app of others) {
      await app.close();
    }
  });
  const e2e = useStack({
    worker: false,
    config: { auth: { dev_login: true, join_workspace: 'acme', join_role: 'owner' } },
  });

  /** Another API process on the same database with different auth settings. */
  async function otherApi(auth: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<string> {
    const config = buildConfig(
      {
        ...extra,
        auth,
        limits: { api_rate_limit_per_minute: 0 },
        secrets: e2e.stack.config.secrets,
        metrics: { enabled: false },
      },
      { DATABASE_URL: e2e.stack.config.database.url, TEMPORAL_ADDRESS: e2e.stack.config.temporal.address, PORT: '0' },
    );
    const app = await createApp({ config, logLevels: ['error'] });
    others.push(app);
    await app.listen(0, '127.0.0.1');
    return (await app.getUrl()).replace('[::1]', '127.0.0.1');
  }

  interface Call {
    status: number;
    body: any;
    setCookies: string[];
  }

  async function call(
    baseUrl: string,
    method: string,
    path: string,
    options: { body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<Call> {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}), ...options.headers },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: text ? JSON.parse(text) : null,
      setCookies: response.headers.getSetCookie(),
    };
  }

  async function devLogin(baseUrl: string, email: string) {
    const response = await call(baseUrl, 'POST', '/api/v1/auth/dev-login', { body: { email } });
    expect(response.status).toBe(200);
    const cookie = response.setCookies.find((c) => c.startsWith('svc_session='))!;
    const token = cookie.split(';')[0].slice('svc_session='.length);
    return { response, cookie, token, header: { cookie: `svc_session=${token}` }, csrf: response.body.csrf_token };
  }

  const job = {
    name: 'from the dashboard',
    schedule: { expr: '0 0 0 1 1 ? 2031' },
    sink: { kind: 'webhook', config: { url: 'https://example.com/hook' } },
  };

  it('should sign in by email, set an HttpOnly SameSite=Lax cookie and store only the token hash', async () => {
    const { response, cookie, token } = await devLogin(e2e.stack.baseUrl, 'Ada@Example.com');
    expect(cookie).toMatch(/^svc_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=604800; HttpOnly; SameSite=Lax$/);
    expect(response.body).toEqual({
      user: { id: expect.stringMatching(/^usr_/), email: 'ada@example.com', name: 'Ada' },
      key: null,
      workspaces: [{ id: e2e.stack.workspaceId, name: 'acme', slug: 'acme', plan: expect.any(String), role: 'owner' }],
      csrf_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    const rows = await e2e.stack.dataSource.query(`SELECT token_hash, provider FROM sessions`);
    expect(rows).toEqual([{ token_hash: expect.stringMatching(/^[0-9a-f]{64}$/), provider: 'dev' }]);
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  it('should authenticate reads with the cookie and answer /me with the CSRF token', async () => {
    const { header, csrf, response } = await devLogin(e2e.stack.baseUrl, 'ada@example.com');
    const me = await call(e2e.stack.baseUrl, 'GET', '/api/v1/me', { headers: header });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ ...response.body, csrf_token: csrf });
    expect((await call(e2e.stack.baseUrl, 'GET', '/api/v1/jobs', { headers: header })).status).toBe(200);
  });

  it('should refuse cookie mutations without X-CSRF-Token (403) and create nothing, and accept them with it', async () => {
    const { header, csrf, response } = await devLogin(e2e.stack.baseUrl, 'ada@example.com');
    const before = await e2e.stack.dataSource.query(`SELECT count(*)::int AS n FROM jobs`);
    const missing = await call(e2e.stack.baseUrl, 'POST', '/api/v1/jobs', { body: job, headers: header });
    expect(missing.status).toBe(403);
    expect(missing.body.error.code).toBe('forbidden');
    expect(missing.body.error.message).toContain('X-CSRF-Token');
    const wrong = await call(e2e.stack.baseUrl, 'POST', '/api/v1/jobs', {
      body: job,
      headers: { ...header, 'x-csrf-token': csrf.replace(/^./, (c: string) => (c === 'A' ? 'B' : 'A')) },
    });
    expect(wrong.status).toBe(403);
    expect(await e2e.stack.dataSource.query(`SELECT count(*)::int AS n FROM jobs`)).toEqual(before);

    const created = await call(e2e.stack.baseUrl, 'POST', '/api/v1/jobs', {
      body: job,
      headers: { ...header, 'x-csrf-token': csrf, 'svc-workspace': e2e.stack.workspaceId },
    });
    expect(created.status).toBe(201);
    const [audit] = await e2e.stack.dataSource.query(
      `SELECT actor FROM audit_log WHERE action = 'job.create' AND target = $1`,
      [created.body.id],
    );
    expect(audit.actor).toBe(`user:${response.body.user.id}`);
  });

  it('should take the workspace from Svc-Workspace (id or slug) and refuse a workspace the user is not in', async () => {
    const other = await e2e.stack.newWorkspaceKey('other-team');
    const { header } = await devLogin(e2e.stack.baseUrl, 'ada@example.com');
    expect(
      (await call(e2e.stack.baseUrl, 'GET', '/api/v1/jobs', { headers: { ...header, 'svc-workspace': 'acme' } }))
        .status,
    ).toBe(200);
    const refused = await call(e2e.stack.baseUrl, 'GET', '/api/v1/jobs', {
      headers: { ...header, 'svc-workspace': other.workspaceId },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('forbidden');
    expect(
      (await call(e2e.stack.baseUrl, 'GET', '/api/v1/jobs', { headers: { ...header, 'svc-workspace': 'ws_nope' } }))
        .status,
    ).toBe(403);
  });

  it('should give members the jobs and runs scopes only, and a first-time user without a team workspace their own', async () => {
    const memberApi = await otherApi({ dev_login: true, join_workspace: 'acme', join_role: 'member' });
    const bob = await devLogin(memberApi, 'bob@example.com');
    expect(bob.response.body.workspaces).toEqual([expect.objectContaining({ slug: 'acme', role: 'member' })]);
    expect((await call(memberApi, 'GET', '/api/v1/jobs', { headers: bob.header })).status).toBe(200);
    const keys = await call(memberApi, 'GET', '/api/v1/api-keys', { headers: bob.header });
    expect(keys.status).toBe(403);
    expect(keys.body.error.code).toBe('forbidden');

    const soloApi = await otherApi({ dev_login: true });
    const carol = await devLogin(soloApi, 'carol.smith@example.com');
    expect(carol.response.body.workspaces).toEqual([
      expect.objectContaining({ slug: expect.stringMatching(/^carol-smith-[0-9a-f]{6}$/), role: 'owner' }),
    ]);
    expect((await call(soloApi, 'GET', '/api/v1/api-keys', { headers: carol.header })).status).toBe(200);
  });

  it('should keep API keys working without CSRF tokens', async () => {
    const created = await call(e2e.stack.baseUrl, 'POST', '/api/v1/jobs', {
      body: { ...job, name: 'by key' },
      headers: { authorization: `Bearer ${e2e.stack.apiKey}` },
    });
    expect(created.status).toBe(201);
  });

  it('should sign out only with the CSRF token, clear the cookie and end the session at once', async () => {
    const { header, csrf } = await devLogin(e2e.stack.baseUrl, 'ada@example.com');
    expect((await call(e2e.stack.baseUrl, 'POST', '/api/v1/auth/logout', { headers: header })).status).toBe(403);
    expect((await call(e2e.stack.baseUrl, 'GET', '/api/v1/me', { headers: header })).status).toBe(200);
    const out = await call(e2e.stack.baseUrl, 'POST', '/api/v1/auth/logout', {
      headers: { ...header, 'x-csrf-token': csrf },
    });
    expect(out.status).toBe(204);
    expect(out.setCookies).toEqual(['svc_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax']);
    const after = await call(e2e.stack.baseUrl, 'GET', '/api/v1/me', { headers: header });
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('unauthorized');
    expect(
      (await call(e2e.stack.baseUrl, 'GET', '/api/v1/me', { headers: { cookie: 'svc_session=forged' } })).status,
    ).toBe(401);
  });

  it('should answer 404 for dev login when auth.dev_login is off, and mark cookies Secure on https', async () => {
    const off = await otherApi({ dev_login: false });
    const refused = await call(off, 'POST', '/api/v1/auth/dev-login', { body: { email: 'ada@example.com' } });
    expect(refused.status).toBe(404);
    expect(refused.setCookies).toEqual([]);
    const features = await call(off, 'GET', '/api/v1/features');
    expect(features.body.auth).toEqual({ providers: [], dev_login: false });

    const https = await otherApi({ dev_login: true }, { public_url: 'https://svc.example.com' });
    const { cookie } = await devLogin(https, 'ada@example.com');
    expect(cookie).toMatch(/; HttpOnly; SameSite=Lax; Secure$/);
  });

  it('should refuse a malformed dev login body with validation_failed', async () => {
    const bad = await call(e2e.stack.baseUrl, 'POST', '/api/v1/auth/dev-login', {
      body: { email: 'not-an-email', role: 'owner' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_failed');
    expect(Object.keys(bad.body.error.fields).sort()).toEqual(['email', 'role']);
  });
});

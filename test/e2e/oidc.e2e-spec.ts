import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { ChildProcess } from 'node:child_process';
import type { Browser, Page } from 'playwright-core';
import { startOidcProvider } from '../utils/oidc-provider-process';
import { freePort, launchChromium, newLocalPage, startSignInApi } from '../utils/sign-in';
import { useStack } from '../utils/stack';

/**
 * Generic OIDC sign-in (issue #11; decisions.md → Sessions) against a real provider started here
 * (npm oidc-provider in a child process): `/features` lists `oidc`, the dashboard's single sign-on
 * button runs the authorization code flow with PKCE through the provider's own login page in
 * Chromium, and the callback leaves a session cookie. Unverified emails and callbacks without the
 * browser's flow cookie are refused.
 */
const CLIENT_ID = 'svc-dashboard';
const CLIENT_SECRET = 'oidc-test-client-secret-0123456789';

jest.setTimeout(120_000);

describe('OIDC sign-in', () => {
  let app: NestFastifyApplication;
  let provider: ChildProcess;
  let browser: Browser;
  let baseUrl: string;

  // Declared before the stack's hooks, so that it runs first: the sign-in API closes before the stack drops its database.
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    provider?.kill('SIGTERM');
  });
  const e2e = useStack({ worker: false });

  beforeAll(async () => {
    browser = await launchChromium();
    const [apiPort, providerPort] = [await freePort(), await freePort()];
    baseUrl = `http://127.0.0.1:${apiPort}`;
    provider = await startOidcProvider(providerPort, CLIENT_ID, CLIENT_SECRET, `${baseUrl}/api/v1/auth/oidc/callback`);
    app = await startSignInApi(e2e.stack, apiPort, {
      join_workspace: 'acme',
      join_role: 'admin',
      oidc: { issuer: `http://127.0.0.1:${providerPort}`, client_id: CLIENT_ID, client_secret: CLIENT_SECRET },
    });
  });

  const newPage = () => newLocalPage(browser);

  /** Starts the single sign-on in `page` and signs in at the provider's login page as `login` (its consent step next). */
  async function signInAtProvider(page: Page, login: string): Promise<void> {
    await page.goto(`${baseUrl}/`);
    await page.getByRole('button', { name: 'Sign in with single sign-on' }).click();
    await page.locator('input[name="login"]').fill(login);
    await page.locator('input[name="password"]').fill('any');
    await page.getByRole('button', { name: 'Sign-in' }).click();
  }

  it('should list oidc among the providers and never expose the client id or secret', async () => {
    const response = await fetch(`${baseUrl}/api/v1/features`);
    const text = await response.text();
    expect(JSON.parse(text).auth).toEqual({ providers: ['oidc'], dev_login: false });
    expect(text).not.toContain(CLIENT_ID);
    expect(text).not.toContain(CLIENT_SECRET);
  });

  it('should sign in through the provider with PKCE and land on the dashboard with a session', async () => {
    const { context, page } = await newPage();
    const authorizeUrls: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/auth?')) {
        authorizeUrls.push(request.url());
      }
    });
    await signInAtProvider(page, 'olive@example.com');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Jobs' }).waitFor();

    const authorize = new URL(authorizeUrls[0]);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(authorize.searchParams.get('state')).toBeTruthy();
    expect(authorize.searchParams.get('nonce')).toBeTruthy();
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${baseUrl}/api/v1/auth/oidc/callback`);

    const cookies = await context.cookies(baseUrl);
    const session = cookies.find((c) => c.name === 'svc_session')!;
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(cookies.find((c) => c.name === 'svc_oidc_flow')).toBeUndefined();
    const me = (await page.evaluate(async () => (await fetch('/api/v1/me')).json())) as Record<string, unknown>;
    expect(me.user).toEqual({ id: expect.stringMatching(/^usr_/), email: 'olive@example.com', name: 'Olive Provider' });
    expect(me.workspaces).toEqual([expect.objectContaining({ slug: 'acme', role: 'admin' })]);
    const rows = await e2e.stack.dataSource.query(`SELECT provider FROM sessions`);
    expect(rows).toEqual([{ provider: 'oidc' }]);
    await context.close();
  });

  it('should refuse an email the provider marks unverified, creating no session', async () => {
    const { context, page } = await newPage();
    await signInAtProvider(page, 'unverified:mallory@example.com');
    const [callback] = await Promise.all([
      page.waitForResponse((r) => r.url().includes('/api/v1/auth/oidc/callback')),
      page.getByRole('button', { name: 'Continue' }).click(),
    ]);
    // The browser gets a page saying why, with the way back to the sign-in (not a JSON envelope).
    expect(callback.status()).toBe(403);
    expect(callback.headers()['content-type']).toContain('text/html');
    await expect(page.getByRole('alert').textContent()).resolves.toContain('verified email address');
    await page.getByRole('link', { name: 'Back to sign-in' }).click();
    await page.getByRole('button', { name: 'Sign in with single sign-on' }).waitFor();
    expect((await context.cookies(baseUrl)).find((c) => c.name === 'svc_session')).toBeUndefined();
    expect(await e2e.stack.dataSource.query(`SELECT email FROM users WHERE email LIKE 'mallory%'`)).toEqual([]);
    await context.close();
  });

  it('should accept an ID token without email_verified (not every provider sends it; Google must)', async () => {
    const { context, page } = await newPage();
    await signInAtProvider(page, 'unstated:uma@example.com');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Jobs' }).waitFor();
    const me = (await page.evaluate(async () => (await fetch('/api/v1/me')).json())) as { user: { email: string } };
    expect(me.user.email).toBe('uma@example.com');
    await context.close();
  });

  it('should refuse a callback without the flow cookie of the browser that started it', async () => {
    const response = await fetch(`${baseUrl}/api/v1/auth/oidc/callback?code=stolen&state=guessed`);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('validation_failed');
    expect(response.headers.getSetCookie()).toEqual([]);
  });

  it('should show a browser that arrives without the flow cookie a page, escaped, with the way back', async () => {
    const response = await fetch(`${baseUrl}/api/v1/auth/oidc/callback?code=<b>x</b>&state=guessed`, {
      headers: { accept: 'text/html,application/xhtml+xml' },
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toContain('text/html');
    const html = await response.text();
    expect(html).toContain('no sign-in in progress in this browser');
    expect(html).toContain('<a href="/">Back to sign-in</a>');
    expect(html).not.toContain('<b>');
  });
});

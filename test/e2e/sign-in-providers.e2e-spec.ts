import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { ChildProcess } from 'node:child_process';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { type GitHubStandIn, startGitHubStandIn } from '../utils/github-stand-in';
import { startOidcProvider } from '../utils/oidc-provider-process';
import { freePort, launchChromium, newLocalPage, startSignInApi } from '../utils/sign-in';
import { startStack, type Stack } from '../utils/stack';

/**
 * GitHub (OAuth2) and Google (OpenID Connect) sign-in (issue #23; decisions.md → Sessions), each
 * against a stand-in started here on 127.0.0.1: a small GitHub (test/utils/github-stand-in.ts)
 * and npm oidc-provider in Google's place. Through the dashboard in Chromium: a button per
 * configured provider, a session after the provider's page, the account's verified email as the
 * user, the same join and role rules as every sign-in; refused: an unverified email, a callback
 * whose state is not the browser's own flow (login CSRF), and a callback without a flow.
 */
const GITHUB_CLIENT_ID = 'Iv1.svc-test-github';
const GITHUB_CLIENT_SECRET = 'github-test-client-secret-0123456789';
const GOOGLE_CLIENT_ID = 'svc-test.apps.googleusercontent.com';
const GOOGLE_CLIENT_SECRET = 'google-test-client-secret-0123456789';

jest.setTimeout(120_000);

describe('GitHub and Google sign-in', () => {
  let stack: Stack;
  let github: GitHubStandIn;
  let google: ChildProcess;
  let app: NestFastifyApplication;
  /** A second server without auth.join_workspace: first-time users get a workspace of their own. */
  let soloApp: NestFastifyApplication;
  let browser: Browser;
  let baseUrl: string;
  let soloUrl: string;
  let googleUrl: string;

  beforeAll(async () => {
    browser = await launchChromium();
    stack = await startStack({ worker: false });
    const [apiPort, soloPort, googlePort] = [await freePort(), await freePort(), await freePort()];
    baseUrl = `http://127.0.0.1:${apiPort}`;
    soloUrl = `http://127.0.0.1:${soloPort}`;
    googleUrl = `http://127.0.0.1:${googlePort}`;
    github = await startGitHubStandIn({
      clientId: GITHUB_CLIENT_ID,
      clientSecret: GITHUB_CLIENT_SECRET,
      redirectUris: [`${baseUrl}/api/v1/auth/github/callback`, `${soloUrl}/api/v1/auth/github/callback`],
      accounts: [
        {
          login: 'octo',
          name: 'Octo Cat',
          emails: [
            { email: 'octo@other.example', primary: false, verified: true },
            { email: 'Octo@Example.com', primary: true, verified: true },
          ],
        },
        // Verified addresses, but not the primary one: GitHub does not vouch for who this is.
        {
          login: 'mallory',
          name: null,
          emails: [
            { email: 'mallory@example.com', primary: true, verified: false },
            { email: 'mallory@other.example', primary: false, verified: true },
          ],
        },
        { login: 'solo', name: null, emails: [{ email: 'solo@example.com', primary: true, verified: true }] },
      ],
    });
    google = await startOidcProvider(
      googlePort,
      GOOGLE_CLIENT_ID,
      GOOGLE_CLIENT_SECRET,
      `${baseUrl}/api/v1/auth/google/callback`,
    );
    const auth = {
      github: {
        client_id: GITHUB_CLIENT_ID,
        client_secret: GITHUB_CLIENT_SECRET,
        url: github.url,
        api_url: github.apiUrl,
      },
    };
    app = await startSignInApi(stack, apiPort, {
      ...auth,
      join_workspace: 'acme',
      join_role: 'member',
      google: {
        client_id: GOOGLE_CLIENT_ID,
        client_secret: GOOGLE_CLIENT_SECRET,
        issuer: googleUrl,
      },
    });
    soloApp = await startSignInApi(stack, soloPort, auth);
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await soloApp?.close();
    await github?.close();
    google?.kill('SIGTERM');
    await stack?.stop();
  });

  const newPage = () => newLocalPage(browser);

  /** Goes through the provider's own page as `login`, up to where it sends the browser back. */
  async function throughProvider(page: Page, provider: 'github' | 'google', login: string): Promise<void> {
    if (provider === 'github') {
      await page.getByLabel('Login').fill(login);
      await page.getByRole('button', { name: 'Authorize' }).click();
    } else {
      await page.locator('input[name="login"]').fill(login);
      await page.locator('input[name="password"]').fill('any');
      await page.getByRole('button', { name: 'Sign-in' }).click();
      await page.getByRole('button', { name: 'Continue' }).click();
    }
  }

  /** Signs in through the dashboard's button; resolves with the callback's response. */
  async function signIn(page: Page, provider: 'github' | 'google', login: string, url = baseUrl) {
    await page.goto(`${url}/`);
    await page
      .getByRole('button', { name: provider === 'github' ? 'Sign in with GitHub' : 'Sign in with Google' })
      .click();
    const [callback] = await Promise.all([
      page.waitForResponse((r) => r.url().includes(`/api/v1/auth/${provider}/callback`)),
      throughProvider(page, provider, login),
    ]);
    return callback;
  }

  /**
   * Takes over the provider's form submissions in this browser: follows their redirects itself
   * and, where they lead to this server's callback, hands the callback URL (code and state) to
   * `divert`, which says where the browser goes instead (null: it stays on the provider's page).
   * Playwright does not route the hops of a redirect, so the callback itself cannot be caught.
   */
  async function divertCallback(
    context: BrowserContext,
    provider: 'github' | 'google',
    divert: (callbackUrl: string) => string | null,
  ): Promise<void> {
    const origin = provider === 'github' ? github.url : googleUrl;
    await context.route(`${origin}/**`, async (route) => {
      if (route.request().method() !== 'POST') {
        return route.fallback();
      }
      let response = await route.fetch({ maxRedirects: 0 });
      for (let hop = 0; hop < 10 && response.status() >= 300 && response.status() < 400; hop++) {
        const location = new URL(response.headers().location, response.url()).href;
        if (location.startsWith(`${baseUrl}/api/v1/auth/${provider}/callback?`)) {
          const target = divert(location);
          return target
            ? route.fulfill({ status: 302, headers: { location: target } })
            : route.fulfill({ status: 204 });
        }
        response = await context.request.get(location, { maxRedirects: 0 });
      }
      return route.fulfill({ response });
    });
  }

  /**
   * Runs a sign-in in a browser of its own as `login` and keeps the callback URL the provider sent
   * that browser back with (code and state of that flow), without following it: what an attacker
   * would plant in someone else's browser.
   */
  async function callbackUrlOf(provider: 'github' | 'google', login: string): Promise<string> {
    const { context, page } = await newPage();
    let caught!: (url: string) => void;
    const callbackUrl = new Promise<string>((resolve) => (caught = resolve));
    await divertCallback(context, provider, (url) => {
      caught(url);
      return null;
    });
    await page.goto(`${baseUrl}/`);
    await page
      .getByRole('button', { name: provider === 'github' ? 'Sign in with GitHub' : 'Sign in with Google' })
      .click();
    await throughProvider(page, provider, login);
    const url = await callbackUrl;
    expect(new URL(url).searchParams.get('code')).toBeTruthy();
    await context.close();
    return url;
  }

  async function me(page: Page): Promise<Record<string, any>> {
    return (await page.evaluate(async () => (await fetch('/api/v1/me')).json())) as Record<string, any>;
  }

  const sessionsOf = async (email: string) =>
    (await stack.dataSource.query(
      `SELECT s.provider FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.email = $1 ORDER BY s.created_at`,
      [email],
    )) as Array<{ provider: string }>;

  it('should list the configured providers and show a button for each, never the client ids or secrets', async () => {
    const response = await fetch(`${baseUrl}/api/v1/features`);
    const text = await response.text();
    expect(JSON.parse(text).auth).toEqual({ providers: ['github', 'google'], dev_login: false });
    for (const secret of [GITHUB_CLIENT_ID, GITHUB_CLIENT_SECRET, GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET]) {
      expect(text).not.toContain(secret);
    }
    const { context, page } = await newPage();
    await page.goto(`${baseUrl}/`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    const buttons = await page.getByRole('button').allTextContents();
    expect(buttons.filter((b) => b.startsWith('Sign in'))).toEqual(['Sign in with GitHub', 'Sign in with Google']);
    await context.close();
  });

  describe('GitHub', () => {
    it('should sign in with the verified primary email, joining the configured workspace with its role', async () => {
      const { context, page } = await newPage();
      const authorizeUrls: string[] = [];
      page.on('request', (r) => r.url().includes('/login/oauth/authorize?') && authorizeUrls.push(r.url()));
      const tokenCalls = github.tokenRequests.length;
      const callback = await signIn(page, 'github', 'octo');
      expect(callback.status()).toBe(200);
      await page.getByRole('heading', { name: 'Jobs' }).waitFor();

      const authorize = new URL(authorizeUrls[0]);
      expect(authorize.origin).toBe(github.url);
      expect(Object.fromEntries(authorize.searchParams)).toEqual({
        client_id: GITHUB_CLIENT_ID,
        redirect_uri: `${baseUrl}/api/v1/auth/github/callback`,
        response_type: 'code',
        scope: 'read:user user:email',
        state: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        code_challenge_method: 'S256',
      });
      // One exchange, server to server, with the secret and the PKCE verifier the stand-in checked.
      expect(github.tokenRequests.slice(tokenCalls)).toEqual([
        {
          body: expect.objectContaining({ client_secret: GITHUB_CLIENT_SECRET, code_verifier: expect.any(String) }),
          answered: expect.objectContaining({ access_token: expect.stringMatching(/^gho_/) }),
        },
      ]);
      const apiCall = github.apiRequests.at(-1)!;
      expect(apiCall.headers).toMatchObject({
        authorization: expect.stringMatching(/^Bearer gho_/),
        accept: 'application/vnd.github+json',
        'x-github-api-version': '2022-11-28',
      });

      const cookies = await context.cookies(baseUrl);
      expect(cookies.find((c) => c.name === 'svc_session')).toMatchObject({
        httpOnly: true,
        sameSite: 'Lax',
        path: '/',
      });
      expect(cookies.find((c) => c.name === 'svc_github_flow')).toBeUndefined();
      const signedIn = await me(page);
      expect(signedIn.user).toEqual({
        id: expect.stringMatching(/^usr_/),
        email: 'octo@example.com',
        name: 'Octo Cat',
      });
      expect(signedIn.workspaces).toEqual([expect.objectContaining({ slug: 'acme', role: 'member' })]);
      // A member's session has a member's scopes: API keys are for owners and admins.
      const keys = await page.evaluate(async () => (await fetch('/api/v1/api-keys')).status);
      expect(keys).toBe(403);
      expect(await sessionsOf('octo@example.com')).toEqual([{ provider: 'github' }]);
      await context.close();
    });

    it('should refuse an account whose primary email GitHub has not verified, creating no user', async () => {
      const { context, page } = await newPage();
      const callback = await signIn(page, 'github', 'mallory');
      expect(callback.status()).toBe(403);
      expect(callback.headers()['content-type']).toContain('text/html');
      await expect(page.getByRole('alert').textContent()).resolves.toContain('verified primary email');
      expect((await context.cookies(baseUrl)).find((c) => c.name === 'svc_session')).toBeUndefined();
      expect(await stack.dataSource.query(`SELECT email FROM users WHERE email LIKE 'mallory%'`)).toEqual([]);
      await context.close();
    });

    it("should refuse another flow's code and state in a browser with a flow of its own (login CSRF), before any token exchange", async () => {
      const planted = await callbackUrlOf('github', 'octo');
      const { context, page } = await newPage();
      // The victim's browser has started a sign-in of its own, so it holds a flow cookie.
      await page.goto(`${baseUrl}/`);
      await page.getByRole('button', { name: 'Sign in with GitHub' }).click();
      await page.getByLabel('Login').waitFor();
      const tokenCalls = github.tokenRequests.length;
      const response = await page.goto(planted);
      expect(response!.status()).toBe(403);
      await expect(page.getByRole('alert').textContent()).resolves.toContain('did not confirm this sign-in');
      expect(github.tokenRequests.length).toBe(tokenCalls);
      expect((await context.cookies(baseUrl)).find((c) => c.name === 'svc_session')).toBeUndefined();
      await context.close();

      // Without any flow in the browser, the planted URL gets nowhere either.
      const bare = await fetch(planted, { headers: { accept: 'text/html' } });
      expect(bare.status).toBe(400);
      expect(bare.headers.getSetCookie()).toEqual([]);
    });

    it('should refuse a callback whose state was changed on the way back', async () => {
      const { context, page } = await newPage();
      const tokenCalls = github.tokenRequests.length;
      await divertCallback(context, 'github', (callbackUrl) => {
        const url = new URL(callbackUrl);
        url.searchParams.set('state', 'forged-state');
        return url.href;
      });
      const callback = await signIn(page, 'github', 'octo');
      expect(callback.status()).toBe(403);
      expect(callback.url()).toContain('state=forged-state');
      expect(github.tokenRequests.length).toBe(tokenCalls);
      expect((await context.cookies(baseUrl)).find((c) => c.name === 'svc_session')).toBeUndefined();
      await context.close();
    });

    it('should refuse a flow started for Google at the GitHub callback', async () => {
      const start = await fetch(`${baseUrl}/api/v1/auth/google/start`, { method: 'POST' });
      const flowCookie = start.headers.getSetCookie()[0];
      expect(flowCookie).toMatch(/^svc_google_flow=.*Path=\/api\/v1\/auth\/google;/);
      const response = await fetch(`${baseUrl}/api/v1/auth/github/callback?code=x&state=y`, {
        headers: { cookie: flowCookie.split(';')[0] },
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('validation_failed');
    });

    it('should give a first-time user a workspace of their own as owner where no join workspace is set', async () => {
      const { context, page } = await newPage();
      const callback = await signIn(page, 'github', 'solo', soloUrl);
      expect(callback.status()).toBe(200);
      await page.getByRole('heading', { name: 'Jobs' }).waitFor();
      const signedIn = await me(page);
      expect(signedIn.user).toMatchObject({ email: 'solo@example.com', name: 'solo' });
      expect(signedIn.workspaces).toEqual([
        expect.objectContaining({ slug: expect.stringMatching(/^solo-/), role: 'owner' }),
      ]);
      await context.close();
    });
  });

  describe('Google', () => {
    it('should sign in with the verified email into the same user as GitHub, keeping its membership', async () => {
      const before = (await stack.dataSource.query(`SELECT id FROM users WHERE email = 'octo@example.com'`)) as Array<{
        id: string;
      }>;
      expect(before).toHaveLength(1);
      const { context, page } = await newPage();
      const authorizeUrls: string[] = [];
      page.on('request', (r) => r.url().includes('/auth?') && authorizeUrls.push(r.url()));
      const callback = await signIn(page, 'google', 'octo@example.com');
      expect(callback.status()).toBe(200);
      await page.getByRole('heading', { name: 'Jobs' }).waitFor();

      const authorize = new URL(authorizeUrls[0]);
      expect(authorize.searchParams.get('client_id')).toBe(GOOGLE_CLIENT_ID);
      expect(authorize.searchParams.get('redirect_uri')).toBe(`${baseUrl}/api/v1/auth/google/callback`);
      expect(authorize.searchParams.get('scope')).toBe('openid email profile');
      expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
      expect(authorize.searchParams.get('nonce')).toBeTruthy();

      const signedIn = await me(page);
      expect(signedIn.user.id).toBe(before[0].id);
      expect(signedIn.workspaces).toEqual([expect.objectContaining({ slug: 'acme', role: 'member' })]);
      const providers = (await sessionsOf('octo@example.com')).map((row) => row.provider);
      expect(providers).toContain('github');
      expect(providers.at(-1)).toBe('google');
      expect((await context.cookies(baseUrl)).find((c) => c.name === 'svc_google_flow')).toBeUndefined();
      await context.close();
    });

    it('should give a new Google user the join workspace with the configured role', async () => {
      const { context, page } = await newPage();
      expect((await signIn(page, 'google', 'gia@example.com')).status()).toBe(200);
      await page.getByRole('heading', { name: 'Jobs' }).waitFor();
      const signedIn = await me(page);
      expect(signedIn.user).toMatchObject({ email: 'gia@example.com', name: 'Olive Provider' });
      expect(signedIn.workspaces).toEqual([expect.objectContaining({ slug: 'acme', role: 'member' })]);
      await context.close();
    });

    it.each([
      ['email_verified: false', 'unverified:mallory@example.com'],
      ['no email_verified claim', 'unstated:mallory@example.com'],
    ])('should refuse an ID token with %s, creating no user', async (_case, login) => {
      const { context, page } = await newPage();
      const callback = await signIn(page, 'google', login);
      expect(callback.status()).toBe(403);
      await expect(page.getByRole('alert').textContent()).resolves.toContain('verified email address');
      expect((await context.cookies(baseUrl)).find((c) => c.name === 'svc_session')).toBeUndefined();
      expect(await stack.dataSource.query(`SELECT email FROM users WHERE email LIKE 'mallory%'`)).toEqual([]);
      await context.close();
    });

    it("should refuse another flow's code and state in a browser with a flow of its own (login CSRF)", async () => {
      const planted = await callbackUrlOf('google', 'octo@example.com');
      const { context, page } = await newPage();
      await page.goto(`${baseUrl}/`);
      await page.getByRole('button', { name: 'Sign in with Google' }).click();
      await page.locator('input[name="login"]').waitFor();
      const response = await page.goto(planted);
      expect(response!.status()).toBe(403);
      await expect(page.getByRole('alert').textContent()).resolves.toContain('did not confirm this sign-in');
      expect((await context.cookies(baseUrl)).find((c) => c.name === 'svc_session')).toBeUndefined();
      await context.close();
    });
  });
});

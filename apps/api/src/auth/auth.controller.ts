import { applyDecorators, Body, Controller, Get, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { type AppConfig, DomainError, NotFoundError, type SignInProviderId, ValidationFailedError } from '@svc/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiOperation, ServerChecks } from '../common/openapi/openapi.decorators';
import { APP_CONFIG } from '../config/config.module';
import { Public } from './auth.decorators';
import { DevLoginDto } from './dto/dev-login.dto';
import { ME_SCHEMA } from './me-response.schema';
import { toMeResponse } from './me.mapper';
import { flowCookieName, flowCookiePath, readCookie, serializeCookie, SESSION_COOKIE } from './session-cookie';
import { type SignedIn, SessionsService } from './sessions.service';
import { SIGN_IN_FLOW_TTL_SECONDS, type SignInFlow } from './sign-in-provider';
import { SignInProviders } from './sign-in-providers.service';

const START_SCHEMA = {
  type: 'object',
  properties: { authorization_url: { type: 'string', format: 'uri' } },
  required: ['authorization_url'],
  additionalProperties: false,
} as const;
const CALLBACK_PAGE = {
  description: 'Signed in; the page continues to the dashboard',
  schema: { type: 'string' },
  contentType: 'text/html',
} as const;

/** `POST {provider}/start`: the URL that starts a sign-in with the provider. */
const SignInStart = (provider: SignInProviderId, summary: string) =>
  applyDecorators(Post(`${provider}/start`), HttpCode(200), ApiOperation(summary, { 200: START_SCHEMA }));

/** `GET {provider}/callback`: where the provider sends the browser back to complete the sign-in. */
const SignInCallback = (provider: SignInProviderId, summary: string) =>
  applyDecorators(
    Get(`${provider}/callback`),
    ServerChecks({ state: 'the sign-in this browser started (its flow cookie)', code: 'what the provider issued' }),
    ApiOperation(summary, { 200: CALLBACK_PAGE }),
  );

/**
 * Dashboard sign-in and sign-out (decisions.md → Sessions). These routes are public: they are how
 * a browser gets a session. Each sign-in answers like `GET /me`, `csrf_token` included, and sets
 * the `svc_session` cookie (HttpOnly, SameSite=Lax, Secure on https).
 */
@Public()
@Controller('api/v1/auth')
export class AuthController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly sessions: SessionsService,
    private readonly providers: SignInProviders,
  ) {}

  /** Development sign-in by email alone; `404` unless `auth.dev_login` is on. */
  @Post('dev-login')
  @HttpCode(200)
  @ApiOperation('Sign in by email alone (development servers only, auth.dev_login)', { 200: ME_SCHEMA })
  async devLogin(
    @Body() body: DevLoginDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    if (!this.config.auth.dev_login) {
      throw new NotFoundError('Dev login (off on this server)');
    }
    return this.respond(await this.sessions.signIn({ email: body.email, name: body.name }, 'dev'), request, reply);
  }

  /**
   * Ends the cookie's session and clears the cookie; `204` also without a session. With a valid
   * session the request must carry its `X-CSRF-Token` (403 otherwise), like every mutation.
   */
  @Post('logout')
  @HttpCode(204)
  @ApiOperation('Sign out: end the session of the svc_session cookie', { 204: null })
  async logout(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<void> {
    const token = readCookie(request.headers.cookie, SESSION_COOKIE);
    if (token) {
      await this.sessions.signOut(token, request.headers['x-csrf-token']);
    }
    void reply.header('Set-Cookie', serializeCookie(SESSION_COOKIE, '', { maxAge: 0, secure: this.secure(request) }));
  }

  @SignInStart('github', 'Start a GitHub sign-in (OAuth2 authorization code with PKCE): the URL to send the browser to')
  githubStart(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.start('github', request, reply);
  }

  @SignInCallback('github', 'GitHub redirect target: completes the sign-in and continues to the dashboard')
  githubCallback(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.callback('github', request, reply);
  }

  @SignInStart('google', 'Start a Google sign-in (OpenID Connect, code with PKCE): the URL to send the browser to')
  googleStart(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.start('google', request, reply);
  }

  @SignInCallback('google', 'Google redirect target: completes the sign-in and continues to the dashboard')
  googleCallback(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.callback('google', request, reply);
  }

  @SignInStart('oidc', 'Start an OIDC sign-in (authorization code with PKCE): the URL to send the browser to')
  oidcStart(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.start('oidc', request, reply);
  }

  @SignInCallback('oidc', 'OIDC redirect target: completes the sign-in and continues to the dashboard')
  oidcCallback(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.callback('oidc', request, reply);
  }

  /**
   * Starts a sign-in: answers the provider's authorization URL (the dashboard navigates to it)
   * and keeps state, nonce and the PKCE verifier in a short-lived HttpOnly cookie whose path is
   * this provider's, so only its callback sees it.
   */
  private async start(id: SignInProviderId, request: FastifyRequest, reply: FastifyReply) {
    const { url, flow } = await this.providers.get(id).start(this.providers.redirectUri(id));
    const value = Buffer.from(JSON.stringify(flow)).toString('base64url');
    void reply.header(
      'Set-Cookie',
      serializeCookie(flowCookieName(id), value, {
        maxAge: SIGN_IN_FLOW_TTL_SECONDS,
        secure: this.secure(request),
        path: flowCookiePath(id),
      }),
    );
    return { authorization_url: url };
  }

  /**
   * Where the provider sends the browser back: completes the flow, signs the user in, and answers
   * a small page that continues to the dashboard (a page rather than a redirect, so the session
   * cookie is set on a same-site response).
   */
  private async callback(id: SignInProviderId, request: FastifyRequest, reply: FastifyReply) {
    let signedIn: SignedIn;
    try {
      const flow = parseFlow(readCookie(request.headers.cookie, flowCookieName(id)));
      if (!flow) {
        throw new ValidationFailedError({ state: 'no sign-in in progress in this browser; start again' });
      }
      const provider = this.providers.get(id);
      const redirectUri = this.providers.redirectUri(id);
      // The URL the provider redirected to, with the query it added (code, state, or error).
      const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
      const identity = await provider.finish(new URL(`${redirectUri}${query}`), redirectUri, flow);
      signedIn = await this.sessions.signIn(identity, id);
    } catch (err) {
      // A browser lands here from the provider: it gets a page that says what went wrong and
      // leads back to the sign-in, not a JSON envelope. API clients keep the envelope.
      if (err instanceof DomainError && acceptsHtml(request)) {
        void reply.status(err.status);
        void reply.header('Content-Type', 'text/html; charset=utf-8');
        void reply.header('Cache-Control', 'no-store');
        return signInFailedPage(reasonOf(err));
      }
      throw err;
    }
    const secure = this.secure(request);
    void reply.header('Set-Cookie', [
      serializeCookie(flowCookieName(id), '', { maxAge: 0, secure, path: flowCookiePath(id) }),
      this.sessionCookie(signedIn, secure),
    ]);
    void reply.header('Content-Type', 'text/html; charset=utf-8');
    void reply.header('Cache-Control', 'no-store');
    return '<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=/"><title>Signed in</title><p><a href="/">Continue to the dashboard</a></p>';
  }

  private respond(signedIn: SignedIn, request: FastifyRequest, reply: FastifyReply) {
    void reply.header('Set-Cookie', this.sessionCookie(signedIn, this.secure(request)));
    void reply.header('Cache-Control', 'no-store');
    return {
      ...toMeResponse({ user: signedIn.user, key: null, workspaces: signedIn.memberships }),
      csrf_token: signedIn.csrfToken,
    };
  }

  private sessionCookie(signedIn: SignedIn, secure: boolean): string {
    return serializeCookie(SESSION_COOKIE, signedIn.token, { maxAge: signedIn.maxAgeSeconds, secure });
  }

  /** Secure cookies when the server is reached over https (its public URL, or the request itself). */
  private secure(request: FastifyRequest): boolean {
    return this.config.public_url.startsWith('https:') || request.protocol === 'https';
  }
}

function parseFlow(value: string | null): SignInFlow | null {
  if (!value) {
    return null;
  }
  try {
    const flow = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as Partial<SignInFlow> | null;
    return typeof flow?.state === 'string' &&
      typeof flow.verifier === 'string' &&
      (flow.nonce === undefined || typeof flow.nonce === 'string')
      ? { state: flow.state, verifier: flow.verifier, ...(flow.nonce === undefined ? {} : { nonce: flow.nonce }) }
      : null;
  } catch {
    return null;
  }
}

/** The error's message, or the field messages when it is a validation failure. */
function reasonOf(err: DomainError): string {
  const fields = Object.values(err.body.fields ?? {});
  return fields.length > 0 ? fields.join('; ') : err.message;
}

function acceptsHtml(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').includes('text/html');
}

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The sign-in failure page: the reason, and a way back to the dashboard's sign-in. */
function signInFailedPage(reason: string): string {
  return (
    '<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width">' +
    '<title>Sign-in failed</title><main style="font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem">' +
    `<h1>Sign-in failed</h1><p role="alert">${escapeHtml(reason)}</p>` +
    '<p><a href="/">Back to sign-in</a></p></main></html>'
  );
}

import { Logger } from '@nestjs/common';
import { type AppConfig, ForbiddenError, isLoopbackHttpUrl, UnavailableError } from '@svc/common';
import * as oidc from 'openid-client';
import type { SignInIdentity } from './sessions.service';
import type { SignInFlow, SignInProvider } from './sign-in-provider';

type GitHubSettings = NonNullable<AppConfig['auth']['github']>;

interface GitHubEmail {
  email: string;
  primary: boolean;
  verified: boolean;
}

/**
 * GitHub sign-in (decisions.md → Sessions): OAuth2 authorization code flow with state and PKCE
 * (S256) against an OAuth app, through `openid-client` with GitHub's endpoints given rather than
 * discovered (GitHub is not an OpenID provider). The access token then reads `GET /user` (name)
 * and `GET /user/emails`: the account's primary email, only when GitHub marks it verified, is
 * who signed in. The token is used for these two requests and dropped; it is never stored.
 */
export class GitHubSignIn implements SignInProvider {
  readonly id = 'github';
  private readonly logger = new Logger('GitHub sign-in');
  private readonly configuration: oidc.Configuration;

  constructor(private readonly settings: GitHubSettings) {
    this.configuration = new oidc.Configuration(
      {
        issuer: settings.url,
        authorization_endpoint: `${settings.url}/login/oauth/authorize`,
        token_endpoint: `${settings.url}/login/oauth/access_token`,
      },
      settings.client_id,
      settings.client_secret,
    );
    if (isLoopbackHttpUrl(settings.url) || isLoopbackHttpUrl(settings.api_url)) {
      oidc.allowInsecureRequests(this.configuration);
    }
  }

  async start(redirectUri: string): Promise<{ url: string; flow: SignInFlow }> {
    const flow = { state: oidc.randomState(), verifier: oidc.randomPKCECodeVerifier() };
    const url = oidc.buildAuthorizationUrl(this.configuration, {
      redirect_uri: redirectUri,
      scope: this.settings.scopes,
      code_challenge: await oidc.calculatePKCECodeChallenge(flow.verifier),
      code_challenge_method: 'S256',
      state: flow.state,
    });
    return { url: url.href, flow };
  }

  async finish(callbackUrl: URL, _redirectUri: string, flow: SignInFlow): Promise<SignInIdentity> {
    let accessToken: string;
    try {
      const tokens = await oidc.authorizationCodeGrant(this.configuration, callbackUrl, {
        pkceCodeVerifier: flow.verifier,
        expectedState: flow.state,
      });
      accessToken = tokens.access_token;
    } catch (err) {
      this.logger.warn(`sign-in refused: ${(err as Error).message}`);
      throw new ForbiddenError('GitHub did not confirm this sign-in; start again');
    }
    const user = (await this.read<{ login?: unknown; name?: unknown } | null>(accessToken, '/user')) ?? {};
    const emails = await this.read<GitHubEmail[]>(accessToken, '/user/emails');
    const primary = Array.isArray(emails) ? emails.find((e) => e?.primary === true) : undefined;
    if (!primary || primary.verified !== true || typeof primary.email !== 'string') {
      throw new ForbiddenError('GitHub did not give a verified primary email address; verify it on GitHub');
    }
    const name = typeof user.name === 'string' && user.name ? user.name : user.login;
    return { email: primary.email, name: typeof name === 'string' ? name : undefined };
  }

  /** A GET of GitHub's REST API with the user's token; anything but a 200 ends the sign-in. */
  private async read<T>(accessToken: string, path: string): Promise<T> {
    let response: Response;
    try {
      response = await oidc.fetchProtectedResource(
        this.configuration,
        accessToken,
        new URL(`${this.settings.api_url}${path}`),
        'GET',
        undefined,
        new Headers({ accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' }),
      );
    } catch (err) {
      this.logger.warn(`GET ${path} failed: ${(err as Error).message}`);
      // A WWW-Authenticate challenge is GitHub refusing the token; anything else, not reaching it.
      throw err instanceof oidc.WWWAuthenticateChallengeError
        ? new ForbiddenError('GitHub refused the sign-in token; start again')
        : new UnavailableError('GitHub is unreachable; retry');
    }
    if (response.status !== 200) {
      this.logger.warn(`GET ${path} answered ${response.status}`);
      throw new ForbiddenError(
        `GitHub refused to share the account's ${path === '/user' ? 'profile' : 'email addresses'}`,
      );
    }
    try {
      return (await response.json()) as T;
    } catch {
      throw new UnavailableError('GitHub answered something other than JSON; retry');
    }
  }
}

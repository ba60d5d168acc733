import { Logger } from '@nestjs/common';
import { DomainError, ForbiddenError, isLoopbackHttpUrl, UnavailableError } from '@svc/common';
import * as oidc from 'openid-client';
import type { SignInIdentity } from './sessions.service';
import type { SignInFlow, SignInProvider } from './sign-in-provider';

export interface OidcSettings {
  issuer: string;
  client_id: string;
  client_secret: string | null;
  scopes: string;
}

/**
 * OpenID Connect sign-in (decisions.md → Sessions), for the generic `oidc` provider and for
 * Google: authorization code flow with PKCE (S256), state and nonce, through `openid-client`. The
 * provider's metadata is discovered on first use and kept; a failed discovery is retried on the
 * next sign-in. Plain-http issuers are accepted only for loopback addresses (a provider on the
 * developer's machine, as in the tests).
 *
 * `emailVerified`: `required` (Google) accepts an email only with `email_verified: true`;
 * `unless-false` (generic OIDC, whose providers do not all send the claim) refuses only `false`.
 */
export class OidcSignIn implements SignInProvider {
  private readonly logger: Logger;
  private configuration?: Promise<oidc.Configuration>;

  constructor(
    readonly id: 'oidc' | 'google',
    private readonly settings: OidcSettings,
    private readonly emailVerified: 'required' | 'unless-false',
  ) {
    this.logger = new Logger(id === 'oidc' ? 'OIDC' : 'Google sign-in');
  }

  async start(redirectUri: string): Promise<{ url: string; flow: SignInFlow }> {
    const configuration = await this.discover();
    const flow = { state: oidc.randomState(), nonce: oidc.randomNonce(), verifier: oidc.randomPKCECodeVerifier() };
    const url = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: redirectUri,
      scope: this.settings.scopes,
      code_challenge: await oidc.calculatePKCECodeChallenge(flow.verifier),
      code_challenge_method: 'S256',
      state: flow.state,
      nonce: flow.nonce,
    });
    return { url: url.href, flow };
  }

  /**
   * Checks state, exchanges the code with the PKCE verifier, validates the ID token (issuer,
   * audience, nonce, signature) and returns who signed in. The email is what identifies the user
   * here, so one the provider does not vouch for is refused.
   */
  async finish(callbackUrl: URL, _redirectUri: string, flow: SignInFlow): Promise<SignInIdentity> {
    const configuration = await this.discover();
    let claims: oidc.IDToken | undefined;
    try {
      const tokens = await oidc.authorizationCodeGrant(configuration, callbackUrl, {
        pkceCodeVerifier: flow.verifier,
        expectedState: flow.state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
      claims = tokens.claims();
    } catch (err) {
      this.logger.warn(`sign-in refused: ${(err as Error).message}`);
      throw new ForbiddenError('The identity provider did not confirm this sign-in; start again');
    }
    const email = typeof claims?.email === 'string' ? claims.email : null;
    const verified =
      this.emailVerified === 'required' ? claims?.email_verified === true : claims?.email_verified !== false;
    if (!email || !verified) {
      throw new ForbiddenError('The identity provider did not give a verified email address');
    }
    return { email, name: typeof claims?.name === 'string' ? claims.name : undefined };
  }

  private discover(): Promise<oidc.Configuration> {
    const { issuer, client_id, client_secret } = this.settings;
    this.configuration ??= oidc
      .discovery(
        new URL(issuer),
        client_id,
        client_secret ?? undefined,
        client_secret ? undefined : oidc.None(),
        isLoopbackHttpUrl(issuer) ? { execute: [oidc.allowInsecureRequests] } : undefined,
      )
      .catch((err: unknown) => {
        this.configuration = undefined;
        this.logger.warn(`discovery of ${issuer} failed: ${(err as Error).message}`);
        throw err instanceof DomainError ? err : new UnavailableError('The identity provider is unreachable; retry');
      });
    return this.configuration;
  }
}

import { Inject, Injectable, Logger } from '@nestjs/common';
import { type AppConfig, DomainError, ForbiddenError, NotFoundError, UnavailableError } from '@svc/common';
import * as oidc from 'openid-client';
import { APP_CONFIG } from '../config/config.module';
import type { SignInIdentity } from './sessions.service';

/** What the browser keeps (in an HttpOnly cookie) between the redirect and the callback. */
export interface OidcFlow {
  state: string;
  nonce: string;
  verifier: string;
}

export const OIDC_FLOW_TTL_SECONDS = 600;

/**
 * Generic OpenID Connect sign-in (decisions.md → Sessions): authorization code flow with PKCE
 * (S256), state and nonce, through `openid-client`. The provider's metadata is discovered on first
 * use and kept; a failed discovery is retried on the next sign-in. Plain-http issuers are accepted
 * only for loopback addresses (a provider on the developer's machine, as in the tests).
 */
@Injectable()
export class OidcService {
  private readonly logger = new Logger('OIDC');
  private configuration?: Promise<oidc.Configuration>;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  get enabled(): boolean {
    return this.config.auth.oidc !== null;
  }

  /** The provider's authorization URL for a new flow, and the flow to keep in the browser. */
  async start(): Promise<{ url: string; flow: OidcFlow }> {
    const configuration = await this.discover();
    const flow: OidcFlow = {
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      verifier: oidc.randomPKCECodeVerifier(),
    };
    const url = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: this.redirectUri(),
      scope: this.config.auth.oidc!.scopes,
      code_challenge: await oidc.calculatePKCECodeChallenge(flow.verifier),
      code_challenge_method: 'S256',
      state: flow.state,
      nonce: flow.nonce,
    });
    return { url: url.href, flow };
  }

  /**
   * Completes a flow: checks state, exchanges the code with the PKCE verifier, validates the ID
   * token (issuer, audience, nonce, signature) and returns who signed in. A provider that says the
   * email is unverified is refused: the email is what identifies the user here.
   */
  async finish(callbackUrl: URL, flow: OidcFlow): Promise<SignInIdentity> {
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
    if (!email || claims?.email_verified === false) {
      throw new ForbiddenError('The identity provider did not give a verified email address');
    }
    return { email, name: typeof claims?.name === 'string' ? claims.name : undefined };
  }

  redirectUri(): string {
    return `${this.config.public_url.replace(/\/+$/, '')}/api/v1/auth/oidc/callback`;
  }

  private discover(): Promise<oidc.Configuration> {
    const settings = this.config.auth.oidc;
    if (!settings) {
      throw new NotFoundError('OIDC sign-in (not configured on this server)');
    }
    this.configuration ??= oidc
      .discovery(
        new URL(settings.issuer),
        settings.client_id,
        settings.client_secret ?? undefined,
        settings.client_secret ? undefined : oidc.None(),
        isLoopbackHttp(settings.issuer) ? { execute: [oidc.allowInsecureRequests] } : undefined,
      )
      .catch((err: unknown) => {
        this.configuration = undefined;
        this.logger.warn(`discovery of ${settings.issuer} failed: ${(err as Error).message}`);
        throw err instanceof DomainError ? err : new UnavailableError('The identity provider is unreachable; retry');
      });
    return this.configuration;
  }
}

function isLoopbackHttp(issuer: string): boolean {
  const url = new URL(issuer);
  return url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
}

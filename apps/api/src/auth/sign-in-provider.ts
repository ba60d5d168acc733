import type { SignInProviderId } from '@svc/common';
import type { SignInIdentity } from './sessions.service';

/** What the browser keeps (in an HttpOnly cookie) between the redirect and the callback. */
export interface SignInFlow {
  state: string;
  /** OpenID Connect providers only (GitHub's OAuth2 has no ID token to bind it to). */
  nonce?: string;
  /** The PKCE (S256) code verifier. */
  verifier: string;
}

export const SIGN_IN_FLOW_TTL_SECONDS = 600;

/**
 * One way to sign in through a third party (decisions.md → Sessions): `start` gives the URL to
 * send the browser to and the flow to keep; `finish` completes the flow from the callback URL
 * the browser came back with and says who signed in, with a verified email (refused otherwise).
 */
export interface SignInProvider {
  readonly id: SignInProviderId;
  start(redirectUri: string): Promise<{ url: string; flow: SignInFlow }>;
  finish(callbackUrl: URL, redirectUri: string, flow: SignInFlow): Promise<SignInIdentity>;
}

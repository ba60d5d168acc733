import { Inject, Injectable } from '@nestjs/common';
import { type AppConfig, NotFoundError, type SignInProviderId } from '@svc/common';
import { APP_CONFIG } from '../config/config.module';
import { GitHubSignIn } from './github-sign-in';
import { OidcSignIn } from './oidc-sign-in';
import type { SignInProvider } from './sign-in-provider';

const NAMES: Record<SignInProviderId, string> = { github: 'GitHub', google: 'Google', oidc: 'OIDC' };

/** The sign-in providers configured on this server (`auth.github`, `auth.google`, `auth.oidc`). */
@Injectable()
export class SignInProviders {
  private readonly providers = new Map<SignInProviderId, SignInProvider>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    const { github, google, oidc } = config.auth;
    if (github) {
      this.providers.set('github', new GitHubSignIn(github));
    }
    if (google) {
      // Google always sends email_verified; an address it does not vouch for is refused.
      this.providers.set('google', new OidcSignIn('google', google, 'required'));
    }
    if (oidc) {
      this.providers.set('oidc', new OidcSignIn('oidc', oidc, 'unless-false'));
    }
  }

  /** The provider, or `404` when it is not configured here. */
  get(id: SignInProviderId): SignInProvider {
    const provider = this.providers.get(id);
    if (!provider) {
      throw new NotFoundError(`${NAMES[id]} sign-in (not configured on this server)`);
    }
    return provider;
  }

  /** Where the provider sends the browser back: `<public_url>/api/v1/auth/<provider>/callback`. */
  redirectUri(id: SignInProviderId): string {
    return `${this.config.public_url.replace(/\/+$/, '')}/api/v1/auth/${id}/callback`;
  }
}

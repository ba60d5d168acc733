import { useState } from 'preact/hooks';
import { api, ApiError, type Features } from '../api';

/** The sign-in button's words for each provider `/api/v1/features` may list. */
const PROVIDER_NAMES: Record<string, string> = { github: 'GitHub', google: 'Google', oidc: 'single sign-on' };

/**
 * Sign-in: a button per provider `/api/v1/features` lists (GitHub, Google, generic OIDC, in that
 * order), and the email-only dev login when it is on.
 */
export function LoginPage({ features, onSignedIn }: { features: Features | null; onSignedIn: () => void }) {
  const [email, setEmail] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const failed = new URLSearchParams(location.search).get('login_error');

  async function devLogin(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api('POST', '/api/v1/auth/dev-login', { email });
      onSignedIn();
    } catch (err) {
      setError(err instanceof ApiError ? (err.body.fields?.email ?? err.message) : 'Sign-in failed');
    } finally {
      setBusy(false);
    }
  }

  async function providerLogin(provider: string) {
    setError(null);
    try {
      const { authorization_url } = await api<{ authorization_url: string }>(
        'POST',
        `/api/v1/auth/${encodeURIComponent(provider)}/start`,
      );
      location.assign(authorization_url);
    } catch (err) {
      setError(err instanceof Error ? err.message : 'Sign-in failed');
    }
  }

  const providers = features?.auth.providers ?? [];
  return (
    <main class="login" id="main">
      <h1>Sign in</h1>
      {failed && (
        <p role="alert" class="error">
          {failed}
        </p>
      )}
      {providers.map((provider) => (
        <button key={provider} type="button" class="primary" onClick={() => void providerLogin(provider)}>
          Sign in with {PROVIDER_NAMES[provider] ?? provider}
        </button>
      ))}
      {features?.auth.dev_login && (
        <form onSubmit={(e) => void devLogin(e)} aria-describedby="dev-login-note">
          <p id="dev-login-note" class="note">
            Development sign-in: any email address, no password. Off on production servers.
          </p>
          <label for="dev-email">Email</label>
          <input
            id="dev-email"
            type="email"
            required
            autoComplete="email"
            value={email}
            onInput={(e) => setEmail((e.target as HTMLInputElement).value)}
          />
          <button type="submit" class="primary" disabled={busy}>
            Sign in
          </button>
        </form>
      )}
      {features && providers.length === 0 && !features.auth.dev_login && (
        <p>No sign-in method is configured on this server. Use an API key with the API instead.</p>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </main>
  );
}

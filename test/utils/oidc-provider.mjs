// A real OpenID Connect provider for the sign-in tests (npm oidc-provider, ESM-only, hence a
// child process): `node oidc-provider.mjs PORT CLIENT_ID CLIENT_SECRET REDIRECT_URI`. Its
// development interactions accept any login; the login becomes the account's email unless it
// starts with `unverified:`, which yields `email_verified: false`, or `unstated:`, which leaves
// `email_verified` out of the ID token. Prints `ready` when listening.
import Provider from 'oidc-provider';

const [port, clientId, clientSecret, redirectUri] = process.argv.slice(2);
const issuer = `http://127.0.0.1:${port}`;

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: clientId,
      client_secret: clientSecret,
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code'],
      response_types: ['code'],
    },
  ],
  cookies: { keys: ['svc-oidc-test-cookie-key'] },
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
  // Claims in the ID token itself, so the relying party needs no userinfo call.
  conformIdTokenClaims: false,
  features: { devInteractions: { enabled: true } },
  pkce: { required: () => true },
  async findAccount(_ctx, id) {
    const [, prefix = '', email] = /^(unverified:|unstated:)?(.*)$/.exec(id);
    return {
      accountId: id,
      async claims() {
        const verified = prefix === 'unstated:' ? {} : { email_verified: prefix !== 'unverified:' };
        return { sub: id, email, ...verified, name: 'Olive Provider' };
      },
    };
  },
});

const server = provider.listen(Number(port), '127.0.0.1', () => console.log('ready'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));

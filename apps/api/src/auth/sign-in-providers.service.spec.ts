import { kitConfig } from '../../../../test/kit';
import { SignInProviders } from './sign-in-providers.service';

/** SignInProviders: only configured providers exist (404 naming the others), and the callback URL. */
describe('SignInProviders', () => {
  it('should answer 404 for a provider this server does not configure', () => {
    const providers = new SignInProviders(kitConfig());
    expect(() => providers.get('github')).toThrow(
      expect.objectContaining({
        status: 404,
        body: { code: 'not_found', message: 'GitHub sign-in (not configured on this server) not found' },
      }),
    );
    expect(() => providers.get('oidc')).toThrow(expect.objectContaining({ status: 404 }));
  });

  it('should hold the configured providers, each under its own id', () => {
    const providers = new SignInProviders(
      kitConfig({
        auth: {
          github: { client_id: 'gh-id', client_secret: 'gh-secret' },
          oidc: { issuer: 'https://login.example.com', client_id: 'oidc-id' },
        },
      }),
    );
    expect(providers.get('github').id).toBe('github');
    expect(providers.get('oidc').id).toBe('oidc');
    expect(() => providers.get('google')).toThrow(expect.objectContaining({ status: 404 }));
  });

  it('should send the browser back to <public_url>/api/v1/auth/<provider>/callback, one slash between', () => {
    const providers = new SignInProviders(kitConfig({ public_url: 'https://jobs.example.com//' }));
    expect(providers.redirectUri('google')).toBe('https://jobs.example.com/api/v1/auth/google/callback');
  });
});

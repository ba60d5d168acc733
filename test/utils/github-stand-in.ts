import Fastify, { type FastifyInstance } from 'fastify';
import { createHash, randomBytes } from 'node:crypto';

/**
 * A stand-in for GitHub's OAuth2 web flow and the two REST calls sign-in makes, on 127.0.0.1, for
 * the sign-in tests: `GET /login/oauth/authorize` shows a page where any listed account can be
 * chosen, `POST /login/oauth/access_token` exchanges a code the way GitHub does (client secret in
 * the body, PKCE S256 checked, errors as a 200 JSON `error` object), and `GET <api>/user` and
 * `GET <api>/user/emails` answer for the token's account (the API under `/api/v3`, like GitHub
 * Enterprise Server, so the separate API base URL is exercised).
 */
export interface GitHubAccount {
  login: string;
  name: string | null;
  emails: Array<{ email: string; primary: boolean; verified: boolean }>;
}

export interface GitHubStandIn {
  url: string;
  apiUrl: string;
  /** Each token exchange: what it carried and what it answered. */
  tokenRequests: Array<{ body: Record<string, string>; answered: Record<string, unknown> }>;
  /** Each REST call: the path and its request headers. */
  apiRequests: Array<{ path: string; headers: Record<string, unknown> }>;
  close(): Promise<void>;
}

interface Grant {
  login: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  used: boolean;
}

export async function startGitHubStandIn(options: {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  accounts: GitHubAccount[];
}): Promise<GitHubStandIn> {
  const app: FastifyInstance = Fastify();
  const grants = new Map<string, Grant>();
  const tokens = new Map<string, string>();
  const tokenRequests: GitHubStandIn['tokenRequests'] = [];
  const apiRequests: GitHubStandIn['apiRequests'] = [];
  const account = (login: string) => options.accounts.find((a) => a.login === login);

  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) =>
    done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );

  /** The authorization request as GitHub checks it; the problem, or null. */
  const problemOf = (q: Record<string, string | undefined>): string | null => {
    if (q.client_id !== options.clientId) {
      return 'unknown client_id';
    }
    if (!q.redirect_uri || !options.redirectUris.includes(q.redirect_uri)) {
      return 'redirect_uri not registered';
    }
    if (!q.state || !q.code_challenge || q.code_challenge_method !== 'S256') {
      return 'state and an S256 code_challenge are required here';
    }
    return null;
  };

  app.get('/login/oauth/authorize', async (request, reply) => {
    const q = request.query as Record<string, string | undefined>;
    const problem = problemOf(q);
    if (problem) {
      return reply.status(400).type('text/plain').send(problem);
    }
    const hidden = ['client_id', 'redirect_uri', 'state', 'code_challenge']
      .map((name) => `<input type="hidden" name="${name}" value="${escape(q[name]!)}">`)
      .join('');
    return reply
      .type('text/html')
      .send(
        `<!doctype html><title>Authorize</title><form method="post" action="/login/oauth/authorize">${hidden}` +
          '<label>Login <input name="login"></label><button type="submit">Authorize</button></form>',
      );
  });

  app.post('/login/oauth/authorize', async (request, reply) => {
    const form = request.body as Record<string, string>;
    const problem = problemOf({ ...form, code_challenge_method: 'S256' });
    if (problem || !account(form.login)) {
      return reply
        .status(400)
        .type('text/plain')
        .send(problem ?? 'no such account');
    }
    const code = randomBytes(10).toString('hex');
    grants.set(code, {
      login: form.login,
      clientId: form.client_id,
      redirectUri: form.redirect_uri,
      codeChallenge: form.code_challenge,
      used: false,
    });
    const target = new URL(form.redirect_uri);
    target.searchParams.set('code', code);
    target.searchParams.set('state', form.state);
    return reply.redirect(target.href, 302);
  });

  app.post('/login/oauth/access_token', async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, string>;
    const grant = grants.get(body.code);
    let answered: Record<string, unknown>;
    if (body.client_id !== options.clientId || body.client_secret !== options.clientSecret) {
      answered = { error: 'incorrect_client_credentials' };
    } else if (!grant || grant.used || grant.clientId !== body.client_id) {
      answered = { error: 'bad_verification_code' };
    } else if (body.redirect_uri !== grant.redirectUri) {
      answered = { error: 'redirect_uri_mismatch' };
    } else if (
      !body.code_verifier ||
      createHash('sha256').update(body.code_verifier).digest('base64url') !== grant.codeChallenge
    ) {
      answered = { error: 'invalid_grant', error_description: 'code_verifier does not match' };
    } else {
      grant.used = true;
      const token = `gho_${randomBytes(16).toString('hex')}`;
      tokens.set(token, grant.login);
      answered = { access_token: token, token_type: 'bearer', scope: 'read:user,user:email' };
    }
    tokenRequests.push({ body, answered });
    // GitHub answers JSON only when asked to (Accept), and errors with 200 too.
    if (!(request.headers.accept ?? '').includes('application/json')) {
      return reply
        .type('application/x-www-form-urlencoded')
        .send(new URLSearchParams(answered as Record<string, string>).toString());
    }
    return reply.send(answered);
  });

  const who = (authorization: string | undefined): GitHubAccount | undefined => {
    const [scheme, token] = (authorization ?? '').split(' ');
    return /^(bearer|token)$/i.test(scheme) && token ? account(tokens.get(token) ?? '') : undefined;
  };
  for (const path of ['/api/v3/user', '/api/v3/user/emails']) {
    app.get(path, async (request, reply) => {
      apiRequests.push({ path, headers: { ...request.headers } });
      if (!request.headers['user-agent']) {
        return reply.status(403).send({
          message: 'Request forbidden by administrative rules. Please make sure your request has a User-Agent header',
        });
      }
      const signedIn = who(request.headers.authorization);
      if (!signedIn) {
        return reply.status(401).send({ message: 'Bad credentials' });
      }
      return path.endsWith('/emails')
        ? signedIn.emails.map((e) => ({ ...e, visibility: e.primary ? 'private' : null }))
        : { login: signedIn.login, id: 1000 + options.accounts.indexOf(signedIn), name: signedIn.name, email: null };
    });
  }

  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { url, apiUrl: `${url}/api/v3`, tokenRequests, apiRequests, close: () => app.close() };
}

const escape = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

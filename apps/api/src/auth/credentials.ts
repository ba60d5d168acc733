import { readCookie, SESSION_COOKIE } from './session-cookie';

/** The credential a request presents: an API key, or the dashboard's session cookie. */
export interface PresentedCredential {
  kind: 'key' | 'session';
  /** The key or the cookie's session token as sent; never store or log it. */
  token: string;
}

/** `Authorization: Bearer <token>` → the token, else null. */
export function bearerToken(header: string | string[] | undefined): string | null {
  const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match ? match[1] : null;
}

/**
 * Which credential a request authenticates with, read one way for the guard (which hands it to
 * the idempotent replay's seal) and the rate limit's bucket: `Authorization: Bearer <key>` wins,
 * else the `svc_session` cookie.
 */
export function presentedCredential(headers: {
  authorization?: string | string[];
  cookie?: string;
}): PresentedCredential | null {
  const key = bearerToken(headers.authorization);
  if (key) {
    return { kind: 'key', token: key };
  }
  const session = readCookie(headers.cookie, SESSION_COOKIE);
  return session ? { kind: 'session', token: session } : null;
}

import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ForbiddenError, type SignInProviderId } from '@svc/common';

/** The session cookie (decisions.md → Sessions). */
export const SESSION_COOKIE = 'svc_session';
/**
 * Holds a sign-in flow's state, nonce and PKCE verifier between the redirect and the callback:
 * one cookie per provider (`svc_github_flow`, `svc_google_flow`, `svc_oidc_flow`), sent only to
 * that provider's routes, so a flow started with one provider cannot complete at another.
 */
export const flowCookieName = (provider: SignInProviderId): string => `svc_${provider}_flow`;
export const flowCookiePath = (provider: SignInProviderId): string => `/api/v1/auth/${provider}`;

/** 32 random bytes, base64url: the cookie value. Only its hash is stored. */
export function generateSessionToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Hex SHA-256 of the token as presented: the sessions table's key. */
export function hashSessionToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * The session's CSRF token: an HMAC of the session token, so it needs no storage and only a
 * holder of the cookie's value (the server, never a cross-site page) can compute it. Handed out
 * by `GET /me` and the sign-in responses; cookie-authenticated mutations send it as
 * `X-CSRF-Token` (double submit without a second cookie).
 */
export function csrfTokenFor(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('svc csrf v1').digest('base64url');
}

/** Constant-time comparison of the sent `X-CSRF-Token` with the expected one. */
export function csrfMatches(sent: string | string[] | undefined, expected: string): boolean {
  if (typeof sent !== 'string') {
    return false;
  }
  const a = Buffer.from(sent);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The CSRF rule, in one place: a request that changes data with the session cookie must send the
 * session's token as `X-CSRF-Token`, else `403`. Applied by `ApiKeyGuard` to every cookie
 * mutation and by sign-out (a public route, so the guard does not see it).
 */
export function requireCsrfToken(sent: string | string[] | undefined, expected: string): void {
  if (!csrfMatches(sent, expected)) {
    throw new ForbiddenError('Missing or wrong X-CSRF-Token: send the csrf_token of GET /api/v1/me');
  }
}

/** The value of cookie `name` in a `Cookie` header, or null. */
export function readCookie(header: string | undefined, name: string): string | null {
  if (!header) {
    return null;
  }
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      return value === '' ? null : value;
    }
  }
  return null;
}

export interface CookieOptions {
  /** Seconds; 0 deletes the cookie. */
  maxAge: number;
  secure: boolean;
  path?: string;
}

/** A `Set-Cookie` value: always HttpOnly and SameSite=Lax; Secure when served over https. */
export function serializeCookie(name: string, value: string, options: CookieOptions): string {
  return [
    `${name}=${value}`,
    `Path=${options.path ?? '/'}`,
    `Max-Age=${Math.max(0, Math.floor(options.maxAge))}`,
    'HttpOnly',
    'SameSite=Lax',
    ...(options.secure ? ['Secure'] : []),
  ].join('; ');
}

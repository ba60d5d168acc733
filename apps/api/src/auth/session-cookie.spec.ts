import { scopesOfRole } from './scopes';
import { csrfMatches, csrfTokenFor, hashSessionToken, readCookie, serializeCookie } from './session-cookie';

describe('session cookie helpers', () => {
  it('should read one cookie out of a Cookie header', () => {
    expect(readCookie('a=1; svc_session=tok.en-_; b=2', 'svc_session')).toBe('tok.en-_');
    expect(readCookie('xsvc_session=1', 'svc_session')).toBeNull();
    expect(readCookie('svc_session=', 'svc_session')).toBeNull();
    expect(readCookie(undefined, 'svc_session')).toBeNull();
  });

  it('should always set HttpOnly and SameSite=Lax, and Secure only on https', () => {
    expect(serializeCookie('svc_session', 'v', { maxAge: 60, secure: false })).toBe(
      'svc_session=v; Path=/; Max-Age=60; HttpOnly; SameSite=Lax',
    );
    expect(serializeCookie('svc_session', '', { maxAge: 0, secure: true, path: '/x' })).toBe(
      'svc_session=; Path=/x; Max-Age=0; HttpOnly; SameSite=Lax; Secure',
    );
  });

  it('should derive a CSRF token per session and compare it exactly', () => {
    const csrf = csrfTokenFor('token-a');
    expect(csrf).not.toBe(csrfTokenFor('token-b'));
    expect(csrf).not.toContain('token-a');
    expect(csrfMatches(csrf, csrf)).toBe(true);
    expect(csrfMatches(csrf.slice(1), csrf)).toBe(false);
    expect(csrfMatches(undefined, csrf)).toBe(false);
    expect(csrfMatches([csrf], csrf)).toBe(false);
    expect(hashSessionToken('token-a')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('should map membership roles onto the key scope model', () => {
    expect(scopesOfRole('owner')).toEqual(['*']);
    expect(scopesOfRole('admin')).toEqual(['*']);
    expect(scopesOfRole('member')).toEqual(['jobs:write', 'runs:read']);
  });
});

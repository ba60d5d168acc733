/**
 * Signed links that confirm an email channel's address (spec: Alert channel verification;
 * decisions.md → Alert channels: signed, 24 h). A token names the channel and the address it was
 * mailed to and expires; it is HMAC-SHA256-signed under a key derived from the server's secrets
 * key, so no token table is needed and a token for an address the channel no longer has confirms
 * nothing. Pure: the clock and the key are parameters.
 */
import { parseEncryptionKey } from '@svc/common/secrets-crypto';
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

export const VERIFICATION_TOKEN_TTL_MS = 24 * 3_600_000;
const VERSION = 'v1';

export interface VerificationClaims {
  channelId: string;
  address: string;
}

export type VerificationResult =
  | ({ ok: true; expiresAtMs: number } & VerificationClaims)
  | { ok: false; reason: 'malformed' | 'bad_signature' | 'expired' };

/** The token key: HKDF-SHA256 of the 32-byte secrets key, for this purpose only. */
export function verificationKey(secretsKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', secretsKey, Buffer.alloc(0), 'svc alert channel verification v1', 32));
}

function mac(key: Buffer, payload: string): Buffer {
  return createHmac('sha256', key).update(`${VERSION}.${payload}`, 'utf8').digest();
}

/** `v1.<base64url claims>.<base64url signature>`, valid for 24 h from `nowMs`. */
export function signVerificationToken(key: Buffer, claims: VerificationClaims, nowMs: number): string {
  const payload = Buffer.from(
    JSON.stringify({
      c: claims.channelId,
      a: claims.address,
      e: Math.floor((nowMs + VERIFICATION_TOKEN_TTL_MS) / 1000),
    }),
    'utf8',
  ).toString('base64url');
  return `${VERSION}.${payload}.${mac(key, payload).toString('base64url')}`;
}

/** Checks the signature (constant time) and then the expiry; never throws. */
export function verifyVerificationToken(key: Buffer, token: string, nowMs: number): VerificationResult {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== VERSION || !/^[A-Za-z0-9_-]+$/.test(parts[1] + parts[2])) {
    return { ok: false, reason: 'malformed' };
  }
  const expected = mac(key, parts[1]);
  const given = Buffer.from(parts[2], 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, reason: 'bad_signature' };
  }
  let claims: { c?: unknown; a?: unknown; e?: unknown };
  try {
    claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as typeof claims;
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (typeof claims.c !== 'string' || typeof claims.a !== 'string' || typeof claims.e !== 'number') {
    return { ok: false, reason: 'malformed' };
  }
  if (claims.e * 1000 <= nowMs) {
    return { ok: false, reason: 'expired' };
  }
  return { ok: true, channelId: claims.c, address: claims.a, expiresAtMs: claims.e * 1000 };
}

/** The link a confirmation mail carries. */
export function verificationLink(publicUrl: string, token: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/api/v1/alert-channels/verify?token=${encodeURIComponent(token)}`;
}

/** Subject and text of a confirmation mail. */
export function verificationMail(
  serviceName: string,
  channelName: string,
  link: string,
): { subject: string; text: string; html: string } {
  const text = [
    `Someone added this address as the alert channel "${channelName}" of ${serviceName}.`,
    '',
    'Confirm it to receive alerts (failed runs, SLA breaches, disabled and recovered jobs):',
    link,
    '',
    'The link works for 24 hours. Until the address is confirmed it receives nothing but this mail;',
    'if you did not expect it, ignore it.',
  ].join('\n');
  const esc = (s: string) =>
    s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
  const html = [
    `<p>Someone added this address as the alert channel “${esc(channelName)}” of ${esc(serviceName)}.</p>`,
    `<p><a href="${esc(link)}">Confirm this address</a> to receive alerts (failed runs, SLA breaches, disabled and recovered jobs).</p>`,
    '<p style="color:#666">The link works for 24 hours. Until the address is confirmed it receives nothing but this mail; if you did not expect it, ignore it.</p>',
  ].join('\n');
  return { subject: `[${serviceName}] Confirm alert emails for "${channelName}"`, text, html };
}

/** The token key of a server: derived from `secrets.encryption_key` (the processes refuse to start without it). */
export function verificationKeyFromConfig(config: { secrets: { encryption_key: string | null } }): Buffer {
  const key = config.secrets.encryption_key ? parseEncryptionKey(config.secrets.encryption_key) : null;
  if (!key) {
    throw new Error('secrets.encryption_key is needed to sign alert channel verification links');
  }
  return verificationKey(key);
}

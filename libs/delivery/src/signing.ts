/**
 * Standard Webhooks signing (spec: Events → Signature; style rule 15).
 *
 * Pure bytes-in, header-out: the caller supplies the message id, the timestamp and the exact
 * body bytes that will be sent. Nothing here reads the clock; verification is the receiver's job
 * (our tests verify with the `standardwebhooks` package).
 */
import { createHmac, randomBytes } from 'node:crypto';

/** Prefix of every signing secret the service issues (spec: Job.signing_secret). */
export const SIGNING_SECRET_PREFIX = 'whsec_';

/** Scheme label of the signatures we emit (spec: Versioning 4). */
export const SIGNATURE_VERSION = 'v1';

/** Header names of the Standard Webhooks scheme (lower case, as sent on the wire). */
export const WEBHOOK_ID_HEADER = 'webhook-id';
export const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';

/**
 * A new signing secret: `whsec_` + base64 of 32 random bytes (256-bit HMAC key).
 * Uses the OS CSPRNG; never call it from workflow code.
 */
export function generateSigningSecret(): string {
  return SIGNING_SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** True when `secret` has the `whsec_` prefix and a non-empty base64 key after it. */
export function isValidSigningSecret(secret: string): boolean {
  if (!secret.startsWith(SIGNING_SECRET_PREFIX)) {
    return false;
  }
  const b64 = secret.slice(SIGNING_SECRET_PREFIX.length);
  return b64.length > 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(b64) && Buffer.from(b64, 'base64').length > 0;
}

/**
 * The HMAC key of a secret: the base64-decoded part after `whsec_` (spec: Signature 2).
 * A secret without the prefix is decoded whole, as the `standardwebhooks` package does.
 * @throws Error when the secret decodes to no bytes.
 */
export function signingKeyFromSecret(secret: string): Buffer {
  const b64 = secret.startsWith(SIGNING_SECRET_PREFIX) ? secret.slice(SIGNING_SECRET_PREFIX.length) : secret;
  const key = Buffer.from(b64, 'base64');
  if (key.length === 0) {
    throw new Error('signing secret decodes to an empty key');
  }
  return key;
}

export interface SignWebhookInput {
  /** `webhook-id` header value (our run id), signed as is. */
  msgId: string;
  /** `webhook-timestamp` header value: whole Unix seconds of this attempt. */
  timestampSec: number;
  /** The raw request body exactly as sent (a string is encoded as UTF-8). */
  body: string | Uint8Array;
  /**
   * Every secret that currently signs (one normally, two during the 24 h rotation overlap,
   * spec: Signature 5). Order is kept in the header.
   */
  secrets: readonly string[];
}

/**
 * The `webhook-signature` header value: `v1,<base64 HMAC-SHA256>` per secret, space-separated.
 * Signed content is `<msgId>.<timestampSec>.<raw body>` (spec: Signature 1).
 * @throws Error when no secret is given, or the timestamp is not a non-negative integer.
 */
export function signWebhook(input: SignWebhookInput): string {
  const { msgId, timestampSec, body, secrets } = input;
  if (secrets.length === 0) {
    throw new Error('signWebhook needs at least one secret');
  }
  if (!Number.isSafeInteger(timestampSec) || timestampSec < 0) {
    throw new Error('signWebhook: timestampSec must be whole Unix seconds');
  }
  const prefix = Buffer.from(`${msgId}.${timestampSec}.`, 'utf8');
  const bodyBytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return secrets
    .map((secret) => {
      const mac = createHmac('sha256', signingKeyFromSecret(secret));
      mac.update(prefix);
      mac.update(bodyBytes);
      return `${SIGNATURE_VERSION},${mac.digest('base64')}`;
    })
    .join(' ');
}

/** How long a replaced secret keeps signing after `rotate-signing-secret` (spec: Limits → Signing secret overlap). */
export const SIGNING_SECRET_OVERLAP_MS = 24 * 3_600_000;

/**
 * Replaced secrets still inside their overlap that are kept at most (rotating again within 24 h
 * keeps the earlier ones signing until their own expiry). Bounds the header at 1 + 4 signatures.
 */
export const MAX_RETIRED_SIGNING_SECRETS = 4;

/** A job's stored signing secret; a replaced one carries `expires_at` (RFC 3339). */
export interface SigningSecretEntry {
  secret: string;
  /** null for the current secret. */
  expires_at: string | null;
}

function signsAt(entry: SigningSecretEntry, nowMs: number): boolean {
  return entry.expires_at === null || Date.parse(entry.expires_at) > nowMs;
}

/**
 * The secrets that sign a request sent at `nowMs`, newest first: the current one, plus every
 * replaced one whose `expires_at` is still after `nowMs` (spec: Signature 5). Pure; the caller
 * passes the clock.
 */
export function activeSigningSecrets(entries: readonly SigningSecretEntry[], nowMs: number): string[] {
  return entries.filter((entry) => signsAt(entry, nowMs)).map((entry) => entry.secret);
}

/**
 * The stored list after a rotation at `nowMs`: `newSecret` becomes current, the secret it replaces
 * signs until `nowMs + 24 h`, earlier replaced secrets keep their own expiry, and expired ones
 * are dropped (at most `MAX_RETIRED_SIGNING_SECRETS` replaced ones, newest kept).
 */
export function rotateSigningSecrets(
  entries: readonly SigningSecretEntry[],
  newSecret: string,
  nowMs: number,
): SigningSecretEntry[] {
  const expiresAt = new Date(nowMs + SIGNING_SECRET_OVERLAP_MS).toISOString();
  const retired = entries
    .filter((entry) => signsAt(entry, nowMs))
    .map((entry) => ({ secret: entry.secret, expires_at: entry.expires_at ?? expiresAt }))
    .sort((a, b) => Date.parse(b.expires_at) - Date.parse(a.expires_at))
    .slice(0, MAX_RETIRED_SIGNING_SECRETS);
  return [{ secret: newSecret, expires_at: null }, ...retired];
}

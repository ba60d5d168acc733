import { ConflictError } from '@svc/common';
import type { JsonValue } from '@svc/persistence';
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'sealed.v1.';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Seals a one-time secret (a new API key) inside an idempotency record so that only the caller
 * who created it can replay it: AES-256-GCM under a key derived (HKDF-SHA256) from the caller's
 * own credential, which the server never stores. The database therefore never holds a usable
 * key, not even for the 24 h replay window (spec → Authentication 2: "only a hash is stored").
 * `context` (workspace and Idempotency-Key) is bound as associated data.
 */
export function sealToCaller(secret: string, credential: string, context: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', deriveKey(credential, context), iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return VERSION + Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
}

/**
 * Opens what `sealToCaller` sealed. Another credential (say, another key of the same workspace
 * replaying the same Idempotency-Key) cannot open it: `409 conflict`, and nothing is revealed.
 */
export function openForCaller(sealed: string, credential: string, context: string): string {
  try {
    if (!sealed.startsWith(VERSION)) {
      throw new Error('unknown seal');
    }
    const raw = Buffer.from(sealed.slice(VERSION.length), 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', deriveKey(credential, context), raw.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    throw new ConflictError(
      'This Idempotency-Key created a one-time secret that only the credential which created it can replay',
    );
  }
}

/**
 * The replay codec of a create whose response carries one one-time secret in `field` (a new API
 * key, an alert channel's or a job's signing secret): the record keeps the response with that
 * field sealed to the caller's credential, and a replay opens it for the same caller only.
 * `context` is the workspace and the Idempotency-Key.
 */
export function sealedFieldReplay<T extends object>(
  field: keyof T & string,
  credential: string,
  context: string,
): { store(result: T): JsonValue; replay(stored: JsonValue): T } {
  return {
    store: (created) => {
      const secret = (created as Record<string, unknown>)[field];
      return (typeof secret === 'string'
        ? { ...created, [field]: sealToCaller(secret, credential, context) }
        : created) as unknown as JsonValue;
    },
    replay: (stored) => {
      const record = stored as unknown as Record<string, unknown>;
      const sealed = record[field];
      return (
        typeof sealed === 'string' ? { ...record, [field]: openForCaller(sealed, credential, context) } : record
      ) as T;
    },
  };
}

/** The credential each request authenticated with, for sealing; kept off the request's own fields. */
const callerCredentials = new WeakMap<object, string>();

/**
 * Called by ApiKeyGuard once it has authenticated `request`: its API key as sent, or its session
 * token, from which a one-time secret's seal key is derived. Never stored or logged.
 */
export function rememberCallerCredential(request: object, credential: string): void {
  callerCredentials.set(request, credential);
}

/** The credential `request` authenticated with; '' when it did not (a public route). */
export function callerCredentialOf(request: object): string {
  return callerCredentials.get(request) ?? '';
}

function deriveKey(credential: string, context: string): Buffer {
  return Buffer.from(hkdfSync('sha256', credential, 'svc idempotent replay', context, 32));
}

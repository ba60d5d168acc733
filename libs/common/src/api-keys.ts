import { createHash, randomBytes } from 'node:crypto';

/**
 * API keys (decisions.md → API key format): `sjs_` + 8 characters (together the displayed
 * `prefix`) + 32 more characters, all base62 from crypto random bytes. 40 base62 characters
 * carry ~238 bits; only the SHA-256 hex digest is stored (style.md rule 3).
 */
export const API_KEY_LITERAL = 'sjs_';
const PREFIX_CHARS = 8;
const SECRET_CHARS = 32;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const API_KEY_PATTERN = /^sjs_[0-9A-Za-z]{40}$/;

export interface GeneratedApiKey {
  /** The full key; shown once, never stored. */
  key: string;
  /** `sjs_` + the first 8 characters; stored and shown in listings. */
  prefix: string;
  /** Hex SHA-256 of `key`. */
  hash: string;
}

export function generateApiKey(): GeneratedApiKey {
  const body = randomBase62(PREFIX_CHARS + SECRET_CHARS);
  const key = API_KEY_LITERAL + body;
  return { key, prefix: key.slice(0, API_KEY_LITERAL.length + PREFIX_CHARS), hash: hashApiKey(key) };
}

/** Hex SHA-256 of the key as presented (no normalization). */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** True when `value` has the shape of a key (cheap pre-check before a lookup). */
export function looksLikeApiKey(value: string): boolean {
  return API_KEY_PATTERN.test(value);
}

/** Uniform base62 characters by rejection sampling (bytes >= 248 are discarded: no modulo bias). */
function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte >= 248) {
        continue;
      }
      out += BASE62[byte % 62];
      if (out.length === length) {
        break;
      }
    }
  }
  return out;
}

/**
 * `temporal.codec` (docs/operations.md → Payload encryption and the codec server): opt-in
 * encryption of every payload the service hands to Temporal, and the codec server's CORS origins.
 * On when `keys` names at least one key; off (null) otherwise.
 *
 * - `keys`: key id → 32-byte key (base64 or 64 hex digits). YAML: a map. Environment
 *   `TEMPORAL_CODEC_KEYS`: `id=key,id=key` (also `id:key`); `TEMPORAL_CODEC_KEYS_FILE` names a file
 *   holding that text (one `id=key` per line also works).
 * - `encrypt_key_id`: the key new payloads are encrypted under; may be left out with one key.
 *   Every other key still decrypts (rotation).
 * - `cors_origins`: browser origins allowed to call `/codec/*` (the Temporal Web UI); default the
 *   origin of `temporal.ui_url`.
 *
 * Messages name the setting and the key id, never a key.
 */
export interface CodecConfig {
  keys: Record<string, string>;
  encrypt_key_id: string;
  cors_origins: string[];
}

const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;
// 32 bytes: 64 hex digits, or 43 base64 characters (standard or URL-safe) and optional padding.
const KEY_TEXT = /^(?:[0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=?|[A-Za-z0-9_-]{43}=?)$/;

/** `id=key,id=key` (or `id:key`, or one per line) → map; null when the text is not that shape. */
export function parseCodecKeyList(text: string): Record<string, string> | null {
  const keys: Record<string, string> = {};
  for (const item of text.split(/[,\n]/)) {
    const entry = item.trim();
    if (entry === '') {
      continue;
    }
    const match = /^([^=:\s]+)\s*[=:]\s*(\S+)$/.exec(entry);
    if (!match) {
      return null;
    }
    keys[match[1]] = match[2];
  }
  return keys;
}

/** The origin (`scheme://host[:port]`) of an http(s) URL, or null. */
export function originOf(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : null;
  } catch {
    return null;
  }
}

/**
 * Reads `temporal.codec` from the raw config (`get` reads a dotted path). Pushes one line per bad
 * setting onto `problems`.
 */
export function readCodecConfig(
  get: (path: string) => unknown,
  uiUrl: string | null,
  problems: string[],
): CodecConfig | null {
  const rawKeys = get('temporal.codec.keys');
  if (rawKeys === undefined || rawKeys === null || rawKeys === '') {
    if (get('temporal.codec.encrypt_key_id') !== undefined) {
      problems.push('temporal.codec.encrypt_key_id: set, but temporal.codec.keys (TEMPORAL_CODEC_KEYS) is not');
    }
    return null;
  }
  let keys: Record<string, string> | null;
  if (typeof rawKeys === 'string') {
    keys = parseCodecKeyList(rawKeys);
  } else if (typeof rawKeys === 'object' && !Array.isArray(rawKeys)) {
    keys = {};
    for (const [id, value] of Object.entries(rawKeys as Record<string, unknown>)) {
      keys[id] = typeof value === 'string' ? value.trim() : '';
    }
  } else {
    keys = null;
  }
  if (!keys || Object.keys(keys).length === 0) {
    problems.push(
      'temporal.codec.keys: expected key id → 32-byte key (base64 or hex), e.g. TEMPORAL_CODEC_KEYS=k1=<base64>',
    );
    return null;
  }
  let valid = true;
  for (const [id, key] of Object.entries(keys)) {
    if (!KEY_ID.test(id)) {
      problems.push(`temporal.codec.keys: key id "${id.slice(0, 64)}" must be 1-64 characters of A-Z a-z 0-9 . _ -`);
      valid = false;
    } else if (!KEY_TEXT.test(key) || !decodesTo32Bytes(key)) {
      // Never echo the value: it is (nearly) a key.
      problems.push(
        `temporal.codec.keys.${id}: expected 32 bytes as base64 or 64 hex digits (openssl rand -base64 32)`,
      );
      valid = false;
    }
  }
  const ids = Object.keys(keys);
  const named = get('temporal.codec.encrypt_key_id');
  let encryptKeyId: string;
  if (named === undefined || named === null || named === '') {
    if (ids.length > 1) {
      problems.push('temporal.codec.encrypt_key_id: required when temporal.codec.keys has more than one key');
      valid = false;
    }
    encryptKeyId = ids[0];
  } else if (typeof named !== 'string' || !ids.includes(named)) {
    problems.push(`temporal.codec.encrypt_key_id: expected one of the ids of temporal.codec.keys (${ids.join(', ')})`);
    valid = false;
    encryptKeyId = ids[0];
  } else {
    encryptKeyId = named;
  }
  const corsOrigins = readOrigins(get('temporal.codec.cors_origins'), uiUrl, problems);
  return valid ? { keys, encrypt_key_id: encryptKeyId, cors_origins: corsOrigins } : null;
}

function decodesTo32Bytes(key: string): boolean {
  if (/^[0-9a-fA-F]{64}$/.test(key)) {
    return true;
  }
  const standard = key.replace(/-/g, '+').replace(/_/g, '/').replace(/=$/, '');
  const bytes = Buffer.from(standard, 'base64');
  return bytes.length === 32 && bytes.toString('base64').replace(/=$/, '') === standard;
}

function readOrigins(value: unknown, uiUrl: string | null, problems: string[]): string[] {
  if (value === undefined || value === null || value === '') {
    const origin = uiUrl ? originOf(uiUrl) : null;
    return origin ? [origin] : [];
  }
  const list = typeof value === 'string' ? value.split(',').map((x) => x.trim()) : value;
  if (!Array.isArray(list)) {
    problems.push('temporal.codec.cors_origins: expected a list of origins such as https://temporal.example.com');
    return [];
  }
  const origins: string[] = [];
  for (const item of list) {
    // An origin is exactly scheme://host[:port]: no path, no wildcard (credentials are allowed).
    const origin = typeof item === 'string' && isBareOrigin(item) ? originOf(item) : null;
    if (!origin) {
      problems.push(
        `temporal.codec.cors_origins: "${String(item).slice(0, 200)}" is not an origin (scheme://host[:port], no path or wildcard)`,
      );
      continue;
    }
    origins.push(origin);
  }
  return origins;
}

function isBareOrigin(text: string): boolean {
  try {
    const url = new URL(text);
    return url.pathname === '/' && !url.search && !url.hash && !url.username && !text.includes('*');
  } catch {
    return false;
  }
}

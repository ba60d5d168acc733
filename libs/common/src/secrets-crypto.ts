import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { KEY_BYTES, parseKeyText } from './key-text';

/**
 * Encryption at rest of workspace secrets (decisions.md → Secrets): AES-256-GCM under one 32-byte
 * key from configuration (`secrets.encryption_key`), a random 12-byte IV per value, the 16-byte
 * authentication tag stored with the ciphertext.
 *
 * Stored blob: `0x01 | iv (12) | tag (16) | ciphertext`. The leading byte is the format version, so
 * a later format (for example one naming a key id, for key rotation) can be told apart.
 *
 * The workspace id and the secret name are bound in as additional authenticated data: a value
 * copied into another row (another name, another workspace) fails to decrypt instead of leaking.
 *
 * Kept out of `@svc/common`'s index (import `@svc/common/secrets-crypto`): it needs `node:crypto`,
 * and the index is also bundled into workflow code.
 */

const FORMAT_V1 = 0x01;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + IV_BYTES + TAG_BYTES;

/** Which row a value belongs to; bound into the ciphertext as additional authenticated data. */
export interface SecretContext {
  workspaceId: string;
  name: string;
}

/** The configured key is missing or malformed. The message never contains the key. */
export class SecretsKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretsKeyError';
  }
}

/**
 * A stored value could not be decrypted: tampered, truncated, moved to another row, or encrypted
 * under another key. The message names the secret, never a value.
 */
export class SecretDecryptionError extends Error {
  constructor(readonly secretName: string) {
    super(`secret "${secretName}" cannot be decrypted with the configured secrets.encryption_key`);
    this.name = 'SecretDecryptionError';
  }
}

/**
 * Parses `secrets.encryption_key`: exactly 32 bytes written as 64 hex digits or as base64
 * (standard or URL-safe alphabet, padding optional). Surrounding whitespace (a trailing newline
 * of a key file) is ignored. Returns null when the text is not such a key.
 */
export function parseEncryptionKey(text: string): Buffer | null {
  // One alphabet or the other, not both mixed.
  return parseKeyText(text, [/^[A-Za-z0-9+/]{43}=?$/, /^[A-Za-z0-9_-]{43}=?$/]);
}

/** A new random key, base64 (what `scripts/start.sh` writes into the data folder). */
export function generateEncryptionKey(): string {
  return randomBytes(KEY_BYTES).toString('base64');
}

function aad(context: SecretContext): Buffer {
  return Buffer.from(`svc-secret\u0000${context.workspaceId}\u0000${context.name}`, 'utf8');
}

/**
 * Encrypts and decrypts secret values under one key. The key lives in a private field, so
 * logging or inspecting the cipher never prints it.
 */
export class SecretsCipher {
  readonly #key: Buffer;

  private constructor(key: Buffer) {
    this.#key = key;
  }

  /** @throws SecretsKeyError when `text` is not 32 bytes in hex or base64. */
  static fromKey(text: string): SecretsCipher {
    const key = parseEncryptionKey(text);
    if (!key) {
      throw new SecretsKeyError(
        'secrets.encryption_key must be 32 bytes written as 64 hex digits or as base64 (e.g. the output of `openssl rand -base64 32`)',
      );
    }
    return new SecretsCipher(key);
  }

  /** A fresh IV per call: encrypting the same value twice gives different blobs. */
  encrypt(plaintext: string, context: SecretContext): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(aad(context));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.from([FORMAT_V1]), iv, cipher.getAuthTag(), ciphertext]);
  }

  /** @throws SecretDecryptionError when the blob is not a value of this row under this key. */
  decrypt(blob: Buffer, context: SecretContext): string {
    if (blob.length < HEADER_BYTES || blob[0] !== FORMAT_V1) {
      throw new SecretDecryptionError(context.name);
    }
    try {
      const iv = blob.subarray(1, 1 + IV_BYTES);
      const tag = blob.subarray(1 + IV_BYTES, HEADER_BYTES);
      const decipher = createDecipheriv('aes-256-gcm', this.#key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(aad(context));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(blob.subarray(HEADER_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretDecryptionError(context.name);
    }
  }
}

/**
 * The cipher of a process from its configuration. The API (and the worker, which decrypts at send
 * time) call this at start-up, so a missing or malformed key stops the process with this message
 * instead of failing later on the first secret.
 * @throws SecretsKeyError
 */
export function secretsCipherFromConfig(config: { secrets: { encryption_key: string | null } }): SecretsCipher {
  const key = config.secrets.encryption_key;
  if (key === null || key.trim() === '') {
    throw new SecretsKeyError(
      'secrets.encryption_key is not set. Workspace secrets are encrypted at rest under it: set ' +
        'SECRETS_ENCRYPTION_KEY (or SECRETS_ENCRYPTION_KEY_FILE, a file holding it) to 32 random bytes in base64 ' +
        'or hex, e.g. `openssl rand -base64 32`, and keep it: values encrypted under a lost key cannot be read. ' +
        '`npm start` generates one into the data folder.',
    );
  }
  return SecretsCipher.fromKey(key);
}

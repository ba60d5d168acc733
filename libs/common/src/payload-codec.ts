import { ApplicationFailure, type Payload, type PayloadCodec } from '@temporalio/common';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { KEY_BYTES, parseKeyText } from './key-text';

/**
 * Encryption at rest of what the service hands to Temporal (docs/operations.md →
 * Payload encryption and the codec server): a Temporal `PayloadCodec` that encrypts every payload
 * (workflow and activity inputs and results, memos, signal and update arguments, query answers and,
 * with the failure converter of `temporal-data-converter.ts`, failure messages and stacks) with
 * AES-256-GCM before it leaves the process, and decrypts it on the way back.
 *
 * Encrypted payload:
 * - metadata `encoding: binary/encrypted` and `encryption-key-id: <id>`;
 * - data `iv (12) | ciphertext | tag (16)`; the plaintext is the original payload (metadata and
 *   data) serialized by `serializePayload`; the key id is bound in as additional authenticated
 *   data, so a payload relabelled with another key id fails instead of decrypting.
 *
 * Keys rotate: `decode` accepts every configured key (looked up by the id in the metadata), and
 * `encode` uses the one current key. Payloads without the encrypted encoding pass through `decode`
 * unchanged, so switching the codec on for a running deployment keeps its plain histories readable.
 *
 * Kept out of `@svc/common`'s index (import `@svc/common/payload-codec`): it needs `node:crypto`,
 * and the index is also bundled into workflow code. Keys live in a private field, so logging or
 * inspecting a codec never prints them; no error message contains key material.
 */

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const ENCODING_KEY = 'encoding';
export const KEY_ID_KEY = 'encryption-key-id';
/** `ApplicationFailure.type` of a payload this process cannot decrypt (unknown key, tampered, malformed). */
export const PAYLOAD_DECRYPTION_FAILURE = 'PayloadDecryptionFailure';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const SERIALIZED_V1 = 0x01;
const KEY_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

/** A key id: 1 to 64 characters of `A-Z a-z 0-9 . _ -` (it is stored in every payload's metadata). */
export function isCodecKeyId(id: string): boolean {
  return KEY_ID_PATTERN.test(id);
}

/**
 * Parses one codec key: exactly 32 bytes written as base64 (standard or URL-safe alphabet,
 * padding optional) or as 64 hex digits. Surrounding whitespace is ignored. Null when the text is
 * not such a key.
 */
export function parseCodecKey(text: string): Buffer | null {
  return parseKeyText(text, [/^[A-Za-z0-9+/_-]{43}=?$/]);
}

/** A new random codec key, base64 (what `openssl rand -base64 32` prints). */
export function generateCodecKey(): string {
  return randomBytes(KEY_BYTES).toString('base64');
}

/** The codec's keys: id → key text (base64 or hex), and the id of the key that encrypts. */
export interface CodecKeys {
  keys: Record<string, string>;
  encryptKeyId: string;
}

/** A payload that cannot be decrypted here. The message names the key id, never key material. */
function decryptionFailure(message: string): ApplicationFailure {
  // Retryable: during a key roll-out another worker (with the key) may take the task.
  return ApplicationFailure.create({ type: PAYLOAD_DECRYPTION_FAILURE, message, nonRetryable: false });
}

/** True when `error` is the codec's own "cannot decrypt this payload" failure. */
export function isPayloadDecryptionFailure(error: unknown): error is ApplicationFailure {
  return error instanceof ApplicationFailure && error.type === PAYLOAD_DECRYPTION_FAILURE;
}

function text(bytes: Uint8Array | null | undefined): string {
  return bytes ? Buffer.from(bytes).toString('utf8') : '';
}

/**
 * A payload as bytes: `0x01 | u16 n | n × (u16 key length | key | u32 value length | value) | data`.
 * Our own small format (no protobuf dependency); only this codec reads it.
 */
export function serializePayload(payload: Payload): Buffer {
  const entries = Object.entries(payload.metadata ?? {});
  const parts: Buffer[] = [];
  const head = Buffer.alloc(3);
  head.writeUInt8(SERIALIZED_V1, 0);
  head.writeUInt16BE(entries.length, 1);
  parts.push(head);
  for (const [key, value] of entries) {
    const keyBytes = Buffer.from(key, 'utf8');
    const valueBytes = Buffer.from(value ?? new Uint8Array());
    const lengths = Buffer.alloc(2);
    lengths.writeUInt16BE(keyBytes.length, 0);
    const valueLength = Buffer.alloc(4);
    valueLength.writeUInt32BE(valueBytes.length, 0);
    parts.push(lengths, keyBytes, valueLength, valueBytes);
  }
  parts.push(Buffer.from(payload.data ?? new Uint8Array()));
  return Buffer.concat(parts);
}

/** The inverse of `serializePayload`; null when `bytes` is not in that format. */
export function deserializePayload(bytes: Buffer): Payload | null {
  if (bytes.length < 3 || bytes[0] !== SERIALIZED_V1) {
    return null;
  }
  const count = bytes.readUInt16BE(1);
  let offset = 3;
  const entries: Array<[string, Uint8Array]> = [];
  for (let i = 0; i < count; i++) {
    if (offset + 2 > bytes.length) {
      return null;
    }
    const keyLength = bytes.readUInt16BE(offset);
    offset += 2;
    if (offset + keyLength + 4 > bytes.length) {
      return null;
    }
    const key = bytes.subarray(offset, offset + keyLength).toString('utf8');
    offset += keyLength;
    const valueLength = bytes.readUInt32BE(offset);
    offset += 4;
    if (offset + valueLength > bytes.length) {
      return null;
    }
    entries.push([key, new Uint8Array(bytes.subarray(offset, offset + valueLength))]);
    offset += valueLength;
  }
  // Object.fromEntries defines own properties: a name such as `__proto__` stays a name.
  return { metadata: Object.fromEntries(entries), data: new Uint8Array(bytes.subarray(offset)) };
}

function aad(keyId: string): Buffer {
  return Buffer.from(`svc-payload-v1\u0000${keyId}`, 'utf8');
}

/** The AES-256-GCM payload codec (see the file comment). */
export class AesGcmPayloadCodec implements PayloadCodec {
  readonly #keys: ReadonlyMap<string, Buffer>;
  readonly #encryptKeyId: string;

  private constructor(keys: Map<string, Buffer>, encryptKeyId: string) {
    this.#keys = keys;
    this.#encryptKeyId = encryptKeyId;
  }

  /**
   * @throws Error naming the bad key id (never its value) when a key id or key is malformed, or
   * when `encryptKeyId` is not one of the keys.
   */
  static create({ keys, encryptKeyId }: CodecKeys): AesGcmPayloadCodec {
    const parsed = new Map<string, Buffer>();
    for (const [id, value] of Object.entries(keys)) {
      if (!isCodecKeyId(id)) {
        throw new Error(`payload codec key id "${id}": expected 1-64 characters of A-Z a-z 0-9 . _ -`);
      }
      const key = typeof value === 'string' ? parseCodecKey(value) : null;
      if (!key) {
        throw new Error(`payload codec key "${id}": expected 32 bytes as base64 or 64 hex digits`);
      }
      parsed.set(id, key);
    }
    if (!parsed.has(encryptKeyId)) {
      throw new Error(`payload codec encrypt key id "${encryptKeyId}" is not one of the configured keys`);
    }
    return new AesGcmPayloadCodec(parsed, encryptKeyId);
  }

  /** The id new payloads are encrypted under. */
  get encryptKeyId(): string {
    return this.#encryptKeyId;
  }

  /** The ids this codec can decrypt. */
  get keyIds(): string[] {
    return [...this.#keys.keys()];
  }

  encode(payloads: Payload[]): Promise<Payload[]> {
    return Promise.resolve(payloads.map((payload) => this.encryptOne(payload)));
  }

  /**
   * Decrypts encrypted payloads and passes every other one through unchanged.
   * @throws ApplicationFailure (type `PayloadDecryptionFailure`) for an unknown key id, a tampered
   * or malformed payload; the message names the key id.
   */
  decode(payloads: Payload[]): Promise<Payload[]> {
    try {
      return Promise.resolve(payloads.map((payload) => this.decryptOne(payload)));
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  private encryptOne(payload: Payload): Payload {
    const key = this.#keys.get(this.#encryptKeyId)!;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(aad(this.#encryptKeyId));
    const ciphertext = Buffer.concat([cipher.update(serializePayload(payload)), cipher.final()]);
    return {
      metadata: {
        [ENCODING_KEY]: Buffer.from(ENCRYPTED_ENCODING, 'utf8'),
        [KEY_ID_KEY]: Buffer.from(this.#encryptKeyId, 'utf8'),
      },
      data: Buffer.concat([iv, ciphertext, cipher.getAuthTag()]),
    };
  }

  private decryptOne(payload: Payload): Payload {
    if (text(payload.metadata?.[ENCODING_KEY]) !== ENCRYPTED_ENCODING) {
      return payload;
    }
    const keyId = text(payload.metadata?.[KEY_ID_KEY]);
    if (!keyId) {
      throw decryptionFailure(`encrypted payload without ${KEY_ID_KEY} metadata`);
    }
    // The id is quoted only when it is one we could have written, so the message stays one clean line.
    const shown = isCodecKeyId(keyId) ? `"${keyId}"` : '(malformed)';
    const key = this.#keys.get(keyId);
    if (!key) {
      throw decryptionFailure(
        `payload encrypted with unknown key id ${shown}: add that key to temporal.codec.keys ` +
          `(known: ${this.keyIds.join(', ')})`,
      );
    }
    const data = Buffer.from(payload.data ?? new Uint8Array());
    if (data.length < IV_BYTES + TAG_BYTES) {
      throw decryptionFailure(`encrypted payload with key id ${shown} is truncated`);
    }
    let plain: Buffer;
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
      decipher.setAAD(aad(keyId));
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
    } catch {
      throw decryptionFailure(
        `encrypted payload with key id ${shown} failed authentication (tampered, or another key under that id)`,
      );
    }
    const inner = deserializePayload(plain);
    if (!inner) {
      throw decryptionFailure(`encrypted payload with key id ${shown} holds no payload`);
    }
    return inner;
  }
}

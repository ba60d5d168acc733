import { createDecipheriv, randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import {
  generateEncryptionKey,
  parseEncryptionKey,
  SecretDecryptionError,
  SecretsCipher,
  secretsCipherFromConfig,
  SecretsKeyError,
} from './secrets-crypto';

const KEY_HEX = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';
const KEY_B64 = Buffer.from(KEY_HEX, 'hex').toString('base64');
const ROW = { workspaceId: 'ws_01ARZ3NDEKTSV4RRFFQ69G5FAV', name: 'API_TOKEN' };

describe('parseEncryptionKey', () => {
  it('should accept 32 bytes as 64 hex digits, base64 and base64url, with or without padding', () => {
    const bytes = Buffer.from(KEY_HEX, 'hex');
    expect(parseEncryptionKey(KEY_HEX)).toEqual(bytes);
    expect(parseEncryptionKey(KEY_HEX.toUpperCase())).toEqual(bytes);
    expect(parseEncryptionKey(KEY_B64)).toEqual(bytes);
    expect(parseEncryptionKey(KEY_B64.replace(/=$/, ''))).toEqual(bytes);
    expect(parseEncryptionKey(bytes.toString('base64url'))).toEqual(bytes);
  });

  it('should ignore surrounding whitespace (a key file ending in a newline)', () => {
    expect(parseEncryptionKey(`  ${KEY_B64}\n`)).toEqual(Buffer.from(KEY_HEX, 'hex'));
  });

  it.each([
    ['empty', ''],
    ['too short (16 bytes)', randomBytes(16).toString('base64')],
    ['too long (48 bytes)', randomBytes(48).toString('base64')],
    ['63 hex digits', KEY_HEX.slice(1)],
    ['not base64', '!'.repeat(44)],
    ['nonzero spare bits in the last character', `${KEY_B64.slice(0, 42)}9=`],
    ['a passphrase', 'correct horse battery staple'],
  ])('should refuse %s', (_, text) => {
    expect(parseEncryptionKey(text)).toBeNull();
  });

  it('should parse what generateEncryptionKey writes', () => {
    const key = generateEncryptionKey();
    expect(parseEncryptionKey(key)?.length).toBe(32);
    expect(generateEncryptionKey()).not.toBe(key);
  });
});

describe('SecretsCipher', () => {
  const cipher = SecretsCipher.fromKey(KEY_B64);

  it('should round-trip values, including empty, multi-line and non-ASCII ones', () => {
    for (const value of ['s3cr3t', '', 'line 1\nline 2', 'pässwörd 🔑', 'x'.repeat(8192)]) {
      expect(cipher.decrypt(cipher.encrypt(value, ROW), ROW)).toBe(value);
    }
  });

  it('should store version byte, a 12-byte IV, the 16-byte tag, then AES-256-GCM ciphertext', () => {
    const blob = cipher.encrypt('hello', ROW);
    expect(blob[0]).toBe(1);
    expect(blob.length).toBe(1 + 12 + 16 + 5);
    // Decrypt with node:crypto directly: the layout and the AAD are what the docs say.
    const decipher = createDecipheriv('aes-256-gcm', Buffer.from(KEY_HEX, 'hex'), blob.subarray(1, 13));
    decipher.setAAD(Buffer.from(`svc-secret\u0000${ROW.workspaceId}\u0000${ROW.name}`));
    decipher.setAuthTag(blob.subarray(13, 29));
    expect(Buffer.concat([decipher.update(blob.subarray(29)), decipher.final()]).toString()).toBe('hello');
  });

  it('should use a fresh IV per value, so equal values give different ciphertexts', () => {
    const a = cipher.encrypt('same', ROW);
    const b = cipher.encrypt('same', ROW);
    expect(a.subarray(1, 13).equals(b.subarray(1, 13))).toBe(false);
    expect(a.equals(b)).toBe(false);
    expect(a.includes(Buffer.from('same'))).toBe(false);
  });

  it('should refuse a tampered ciphertext, tag, IV or version byte', () => {
    const blob = cipher.encrypt('value', ROW);
    for (const index of [0, 1, 13, blob.length - 1]) {
      const tampered = Buffer.from(blob);
      tampered[index] ^= 0x01;
      expect(() => cipher.decrypt(tampered, ROW)).toThrow(SecretDecryptionError);
    }
    expect(() => cipher.decrypt(blob.subarray(0, 20), ROW)).toThrow(SecretDecryptionError);
    expect(() => cipher.decrypt(Buffer.alloc(0), ROW)).toThrow(SecretDecryptionError);
  });

  it('should refuse a value moved to another name or another workspace', () => {
    const blob = cipher.encrypt('value', ROW);
    expect(() => cipher.decrypt(blob, { ...ROW, name: 'OTHER' })).toThrow(SecretDecryptionError);
    expect(() => cipher.decrypt(blob, { ...ROW, workspaceId: 'ws_01BX5ZZKBKACTAV9WEVGEMMVRZ' })).toThrow(
      SecretDecryptionError,
    );
  });

  it('should refuse a value encrypted under another key, naming the secret and not the value', () => {
    const blob = SecretsCipher.fromKey(generateEncryptionKey()).encrypt('top-secret-value', ROW);
    let error: unknown;
    try {
      cipher.decrypt(blob, ROW);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(SecretDecryptionError);
    expect((error as SecretDecryptionError).secretName).toBe('API_TOKEN');
    expect((error as Error).message).toContain('API_TOKEN');
    expect((error as Error).message).not.toContain('top-secret-value');
  });

  it('should never show the key when inspected or serialized', () => {
    const shown = `${inspect(cipher, { showHidden: true, depth: 5 })} ${JSON.stringify(cipher)}`;
    expect(shown).not.toContain(KEY_B64);
    expect(shown).not.toContain(KEY_HEX);
    expect(shown).not.toMatch(/00 01 02 03/);
  });

  it('should refuse a malformed key without echoing it', () => {
    expect(() => SecretsCipher.fromKey('hunter2')).toThrow(SecretsKeyError);
    expect(() => SecretsCipher.fromKey('hunter2')).not.toThrow(/hunter2/);
  });
});

describe('secretsCipherFromConfig', () => {
  it('should build the cipher from secrets.encryption_key', () => {
    const cipher = secretsCipherFromConfig({ secrets: { encryption_key: KEY_HEX } });
    const blob = SecretsCipher.fromKey(KEY_B64).encrypt('v', ROW);
    expect(cipher.decrypt(blob, ROW)).toBe('v');
  });

  it('should fail with a message that says how to set a key when none is configured', () => {
    for (const key of [null, '', '  ']) {
      expect(() => secretsCipherFromConfig({ secrets: { encryption_key: key } })).toThrow(
        /secrets\.encryption_key is not set[\s\S]*SECRETS_ENCRYPTION_KEY[\s\S]*openssl rand -base64 32/,
      );
    }
  });
});

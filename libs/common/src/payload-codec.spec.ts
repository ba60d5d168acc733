import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { inspect } from 'node:util';
import {
  AesGcmPayloadCodec,
  deserializePayload,
  ENCRYPTED_ENCODING,
  generateCodecKey,
  isPayloadDecryptionFailure,
  parseCodecKey,
  PAYLOAD_DECRYPTION_FAILURE,
  serializePayload,
} from './payload-codec';

const KEY_1 = Buffer.from('payload codec test key number 1!').toString('base64');
const KEY_2 = Buffer.from('payload codec test key number 2!').toString('base64');
const SECRET_TEXT = 'nightly-billing https://hooks.example.com/secret-path team:payments';

function payloadOf(value: unknown): Payload {
  return defaultPayloadConverter.toPayload(value);
}
function valueOf(payload: Payload): unknown {
  return defaultPayloadConverter.fromPayload(payload);
}
function meta(payload: Payload, key: string): string {
  return Buffer.from(payload.metadata![key]!).toString('utf8');
}
function bytesOf(payloads: Payload[]): string {
  return payloads
    .map(
      (p) =>
        Object.values(p.metadata ?? {})
          .map((v) => Buffer.from(v!).toString('latin1'))
          .join('') + Buffer.from(p.data ?? new Uint8Array()).toString('latin1'),
    )
    .join('');
}

describe('AesGcmPayloadCodec', () => {
  const codec = AesGcmPayloadCodec.create({ keys: { k1: KEY_1 }, encryptKeyId: 'k1' });

  it('should round-trip payloads (JSON, binary, null, empty) through encode and decode', async () => {
    const values = [{ name: SECRET_TEXT, n: 1 }, 'text', null, [], new Uint8Array([0, 1, 2, 255])];
    const plain = values.map(payloadOf);
    plain.push({ metadata: {}, data: new Uint8Array() });
    const encoded = await codec.encode(plain);
    const decoded = await codec.decode(encoded);
    expect(decoded.map((p) => ({ metadata: p.metadata, data: Buffer.from(p.data ?? []) }))).toEqual(
      plain.map((p) => ({ metadata: p.metadata, data: Buffer.from(p.data ?? []) })),
    );
    expect(valueOf(decoded[0])).toEqual(values[0]);
  });

  it('should name the encoding and the key id in the metadata and hide the value', async () => {
    const [encoded] = await codec.encode([payloadOf({ name: SECRET_TEXT })]);
    expect(meta(encoded, 'encoding')).toBe(ENCRYPTED_ENCODING);
    expect(meta(encoded, 'encryption-key-id')).toBe('k1');
    expect(Object.keys(encoded.metadata!).sort()).toEqual(['encoding', 'encryption-key-id']);
    const raw = bytesOf([encoded]);
    for (const word of ['nightly-billing', 'hooks.example.com', 'payments', 'json/plain']) {
      expect(raw).not.toContain(word);
    }
  });

  it('should encrypt the same value differently each time (a fresh IV per payload)', async () => {
    const [a, b] = await codec.encode([payloadOf('same'), payloadOf('same')]);
    expect(Buffer.from(a.data!).equals(Buffer.from(b.data!))).toBe(false);
  });

  it('should pass payloads without the encrypted encoding through decode unchanged', async () => {
    const plain = [payloadOf({ name: SECRET_TEXT }), { metadata: { encoding: Buffer.from('binary/null') } }];
    const decoded = await codec.decode(plain);
    expect(decoded[0]).toBe(plain[0]);
    expect(decoded[1]).toBe(plain[1]);
  });

  describe('key rotation', () => {
    const old = AesGcmPayloadCodec.create({ keys: { k1: KEY_1 }, encryptKeyId: 'k1' });
    const rotated = AesGcmPayloadCodec.create({ keys: { k1: KEY_1, k2: KEY_2 }, encryptKeyId: 'k2' });

    it('should decrypt payloads of the old key and encrypt new ones under the current key', async () => {
      const [byOld] = await old.encode([payloadOf('before the rotation')]);
      expect(valueOf((await rotated.decode([byOld]))[0])).toBe('before the rotation');
      const [byNew] = await rotated.encode([payloadOf('after')]);
      expect(meta(byNew, 'encryption-key-id')).toBe('k2');
      expect(valueOf((await rotated.decode([byNew]))[0])).toBe('after');
    });

    it('should refuse a payload of a key it does not have with a failure naming the key id', async () => {
      const [byNew] = await rotated.encode([payloadOf('after')]);
      const error = await old.decode([byNew]).then(
        () => null,
        (err: unknown) => err,
      );
      expect(isPayloadDecryptionFailure(error)).toBe(true);
      expect(error).toMatchObject({ type: PAYLOAD_DECRYPTION_FAILURE, nonRetryable: false });
      expect((error as Error).message).toBe(
        'payload encrypted with unknown key id "k2": add that key to temporal.codec.keys (known: k1)',
      );
      expect((error as Error).message).not.toContain(KEY_1);
      expect((error as Error).message).not.toContain(KEY_2);
    });
  });

  describe('tampering', () => {
    async function failureOf(payload: Payload): Promise<string> {
      const error = await codec.decode([payload]).then(
        () => null,
        (err: unknown) => err,
      );
      expect(isPayloadDecryptionFailure(error)).toBe(true);
      return (error as Error).message;
    }

    it('should refuse a payload whose ciphertext was changed', async () => {
      const [encoded] = await codec.encode([payloadOf({ amount: 100 })]);
      const data = Buffer.from(encoded.data!);
      data[20] ^= 0x01;
      expect(await failureOf({ ...encoded, data })).toMatch(/key id "k1" failed authentication/);
    });

    it('should refuse a payload relabelled with another key id (the id is authenticated)', async () => {
      const both = AesGcmPayloadCodec.create({ keys: { k1: KEY_1, k2: KEY_1 }, encryptKeyId: 'k1' });
      const [encoded] = await both.encode([payloadOf('x')]);
      const relabelled = { ...encoded, metadata: { ...encoded.metadata, 'encryption-key-id': Buffer.from('k2') } };
      await expect(both.decode([relabelled])).rejects.toThrow(/key id "k2" failed authentication/);
    });

    it('should refuse truncated data and a missing key id', async () => {
      const [encoded] = await codec.encode([payloadOf('x')]);
      expect(await failureOf({ ...encoded, data: Buffer.from(encoded.data!).subarray(0, 10) })).toMatch(/truncated/);
      expect(await failureOf({ metadata: { encoding: Buffer.from(ENCRYPTED_ENCODING) }, data: encoded.data })).toMatch(
        /without encryption-key-id/,
      );
    });

    it('should not quote a malformed key id in the message', async () => {
      const message = await failureOf({
        metadata: { encoding: Buffer.from(ENCRYPTED_ENCODING), 'encryption-key-id': Buffer.from('bad\nid') },
        data: new Uint8Array(40),
      });
      expect(message).toBe(
        'payload encrypted with unknown key id (malformed): add that key to temporal.codec.keys (known: k1)',
      );
    });
  });

  it('should never show its keys when inspected or serialized', () => {
    const shown = `${inspect(codec, { showHidden: true, depth: 5 })}${JSON.stringify(codec)}`;
    expect(shown).not.toContain(KEY_1);
    expect(shown).not.toContain(Buffer.from(KEY_1, 'base64').toString('hex'));
  });

  describe('create', () => {
    it('should refuse a malformed key naming its id, not its value', () => {
      expect(() => AesGcmPayloadCodec.create({ keys: { k1: 'c2hvcnQ=' }, encryptKeyId: 'k1' })).toThrow(
        'payload codec key "k1": expected 32 bytes as base64 or 64 hex digits',
      );
    });

    it('should refuse an encrypt key id that is not among the keys', () => {
      expect(() => AesGcmPayloadCodec.create({ keys: { k1: KEY_1 }, encryptKeyId: 'k9' })).toThrow(
        'payload codec encrypt key id "k9" is not one of the configured keys',
      );
    });
  });
});

describe('parseCodecKey', () => {
  it('should accept 32 bytes as base64, base64url and hex, and refuse anything else', () => {
    const key = generateCodecKey();
    const bytes = Buffer.from(key, 'base64');
    expect(bytes).toHaveLength(32);
    expect(parseCodecKey(key)).toEqual(bytes);
    expect(parseCodecKey(bytes.toString('base64url'))).toEqual(bytes);
    expect(parseCodecKey(bytes.toString('hex'))).toEqual(bytes);
    expect(parseCodecKey(Buffer.alloc(16).toString('base64'))).toBeNull();
    expect(parseCodecKey('correct horse battery staple')).toBeNull();
  });
});

describe('serializePayload', () => {
  it('should round-trip metadata and data, and refuse bytes of another format', () => {
    const payload = { metadata: { encoding: Buffer.from('json/plain'), é: new Uint8Array() }, data: Buffer.from('{}') };
    const back = deserializePayload(serializePayload(payload))!;
    expect(Object.keys(back.metadata!)).toEqual(['encoding', 'é']);
    expect(Buffer.from(back.data!).toString()).toBe('{}');
    expect(deserializePayload(Buffer.from('{}'))).toBeNull();
    const odd = deserializePayload(serializePayload({ metadata: JSON.parse('{"__proto__":"AQ=="}') as never }))!;
    expect(Object.keys(odd.metadata!)).toEqual(['__proto__']);
    expect(deserializePayload(Buffer.from([1, 0, 1, 0, 9]))).toBeNull();
  });
});

import { createHash } from 'node:crypto';
import { generateApiKey, hashApiKey, looksLikeApiKey } from './api-keys';

describe('generateApiKey', () => {
  it('should produce sjs_ + 40 base62 characters with the first 12 as prefix', () => {
    const { key, prefix } = generateApiKey();
    expect(key).toMatch(/^sjs_[0-9A-Za-z]{40}$/);
    expect(prefix).toMatch(/^sjs_[0-9A-Za-z]{8}$/);
    expect(key.startsWith(prefix)).toBe(true);
    expect(looksLikeApiKey(key)).toBe(true);
  });

  it('should return the hex SHA-256 of the key as hash', () => {
    const { key, hash } = generateApiKey();
    expect(hash).toBe(createHash('sha256').update(key).digest('hex'));
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('should never repeat a key', () => {
    const keys = new Set(Array.from({ length: 2000 }, () => generateApiKey().key));
    expect(keys.size).toBe(2000);
  });

  it('should use the whole base62 alphabet', () => {
    const seen = new Set(Array.from({ length: 500 }, () => generateApiKey().key.slice(4)).join(''));
    expect(seen.size).toBe(62);
  });
});

describe('hashApiKey', () => {
  it('should match a known SHA-256 vector', () => {
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('looksLikeApiKey', () => {
  it('should reject other shapes', () => {
    expect(looksLikeApiKey('sjs_short')).toBe(false);
    expect(looksLikeApiKey(`xyz_${'a'.repeat(40)}`)).toBe(false);
    expect(looksLikeApiKey(`sjs_${'a'.repeat(39)}-`)).toBe(false);
  });
});

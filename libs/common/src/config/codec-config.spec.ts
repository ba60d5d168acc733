import { buildConfig } from './config';
import { withCodecKeysFile } from './load-config';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const KEY_1 = Buffer.from('payload codec test key number 1!').toString('base64');
const KEY_2_HEX = Buffer.from('payload codec test key number 2!').toString('hex');

function problemsOf(file: Record<string, unknown>, env: Record<string, string> = {}): string {
  try {
    buildConfig(file, env);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected an invalid configuration');
}

describe('temporal.codec', () => {
  it('should be off unless keys are set', () => {
    expect(buildConfig({}, {}).temporal.codec).toBeNull();
  });

  it('should read keys from the environment, the only key encrypting, CORS for the Temporal UI origin', () => {
    const config = buildConfig(
      {},
      { TEMPORAL_CODEC_KEYS: `k1=${KEY_1}`, TEMPORAL_UI_URL: 'https://ui.example.com/ns' },
    );
    expect(config.temporal.codec).toEqual({
      keys: { k1: KEY_1 },
      encrypt_key_id: 'k1',
      cors_origins: ['https://ui.example.com'],
    });
  });

  it('should read several keys (YAML map or id:key list) with the encrypting one named', () => {
    const fromYaml = buildConfig(
      { temporal: { codec: { keys: { k1: KEY_1, k2: KEY_2_HEX }, encrypt_key_id: 'k2' } } },
      {},
    );
    expect(fromYaml.temporal.codec).toMatchObject({ keys: { k1: KEY_1, k2: KEY_2_HEX }, encrypt_key_id: 'k2' });
    const fromEnv = buildConfig(
      {},
      {
        TEMPORAL_CODEC_KEYS: `k1:${KEY_1}, k2:${KEY_2_HEX}`,
        TEMPORAL_CODEC_ENCRYPT_KEY_ID: 'k2',
        TEMPORAL_CODEC_CORS_ORIGINS: 'https://a.example.com,http://127.0.0.1:8233/',
      },
    );
    expect(fromEnv.temporal.codec).toEqual({
      keys: { k1: KEY_1, k2: KEY_2_HEX },
      encrypt_key_id: 'k2',
      cors_origins: ['https://a.example.com', 'http://127.0.0.1:8233'],
    });
  });

  it('should refuse a bad key, naming the setting and the id but never the value', () => {
    const message = problemsOf({}, { TEMPORAL_CODEC_KEYS: 'k1=dG9vIHNob3J0IGtleQ==' });
    expect(message).toContain('temporal.codec.keys.k1: expected 32 bytes as base64 or 64 hex digits');
    expect(message).not.toContain('dG9vIHNob3J0IGtleQ');
  });

  it.each([
    ['a list that is not id=key', { TEMPORAL_CODEC_KEYS: KEY_1 }, 'temporal.codec.keys: expected key id'],
    ['a bad key id', { TEMPORAL_CODEC_KEYS: `k 1=${KEY_1}` }, 'temporal.codec.keys: expected key id'],
    [
      'two keys and no encrypt key id',
      { TEMPORAL_CODEC_KEYS: `k1=${KEY_1},k2=${KEY_2_HEX}` },
      'temporal.codec.encrypt_key_id: required when temporal.codec.keys has more than one key',
    ],
    [
      'an encrypt key id that is not a key',
      { TEMPORAL_CODEC_KEYS: `k1=${KEY_1}`, TEMPORAL_CODEC_ENCRYPT_KEY_ID: 'k9' },
      'temporal.codec.encrypt_key_id: expected one of the ids of temporal.codec.keys (k1)',
    ],
    [
      'an encrypt key id without keys',
      { TEMPORAL_CODEC_ENCRYPT_KEY_ID: 'k1' },
      'temporal.codec.encrypt_key_id: set, but temporal.codec.keys (TEMPORAL_CODEC_KEYS) is not',
    ],
    [
      'a CORS origin with a wildcard',
      { TEMPORAL_CODEC_KEYS: `k1=${KEY_1}`, TEMPORAL_CODEC_CORS_ORIGINS: '*' },
      'temporal.codec.cors_origins: "*" is not an origin',
    ],
    [
      'a CORS origin with a path',
      { TEMPORAL_CODEC_KEYS: `k1=${KEY_1}`, TEMPORAL_CODEC_CORS_ORIGINS: 'https://ui.example.com/x' },
      'temporal.codec.cors_origins: "https://ui.example.com/x" is not an origin',
    ],
  ])('should refuse %s, naming the setting', (_, env, expected) => {
    expect(problemsOf({}, env)).toContain(expected);
  });

  it('should refuse a YAML key id whose id is invalid', () => {
    expect(problemsOf({ temporal: { codec: { keys: { 'bad id': KEY_1 } } } })).toContain(
      'temporal.codec.keys: key id "bad id" must be 1-64 characters',
    );
  });
});

describe('TEMPORAL_CODEC_KEYS_FILE', () => {
  const dir = mkdtempSync(join(tmpdir(), 'codec-keys-'));

  it('should read the keys from the file, one per line', () => {
    const file = join(dir, 'keys');
    writeFileSync(file, `k1=${KEY_1}\nk2=${KEY_2_HEX}\n`);
    const env = withCodecKeysFile({ TEMPORAL_CODEC_KEYS_FILE: file, TEMPORAL_CODEC_ENCRYPT_KEY_ID: 'k2' });
    expect(buildConfig({}, env).temporal.codec).toMatchObject({ keys: { k1: KEY_1, k2: KEY_2_HEX } });
  });

  it('should let TEMPORAL_CODEC_KEYS win over the file', () => {
    expect(withCodecKeysFile({ TEMPORAL_CODEC_KEYS_FILE: '/nonexistent', TEMPORAL_CODEC_KEYS: 'x' })).toMatchObject({
      TEMPORAL_CODEC_KEYS: 'x',
    });
  });

  it('should name the variable and the path of a file it cannot read', () => {
    expect(() => withCodecKeysFile({ TEMPORAL_CODEC_KEYS_FILE: join(dir, 'missing') })).toThrow(
      `TEMPORAL_CODEC_KEYS_FILE: cannot read ${join(dir, 'missing')} (ENOENT)`,
    );
  });
});

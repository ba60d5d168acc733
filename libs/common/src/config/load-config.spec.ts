import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, resetConfigForTests } from './load-config';

describe('loadConfig', () => {
  const saved = { ...process.env };
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-config-'));
    delete process.env.SECRETS_ENCRYPTION_KEY;
    delete process.env.SECRETS_ENCRYPTION_KEY_FILE;
    delete process.env.SVC_CONFIG;
    resetConfigForTests();
  });

  afterEach(() => {
    process.env = { ...saved };
    rmSync(dir, { recursive: true, force: true });
    resetConfigForTests();
  });

  it('should read the secrets key from SECRETS_ENCRYPTION_KEY_FILE, ignoring a trailing newline', () => {
    const key = Buffer.alloc(32, 3).toString('base64');
    writeFileSync(join(dir, 'secrets.key'), `${key}\n`);
    process.env.SECRETS_ENCRYPTION_KEY_FILE = join(dir, 'secrets.key');
    expect(loadConfig().secrets.encryption_key).toBe(key);
  });

  it('should prefer SECRETS_ENCRYPTION_KEY over the file', () => {
    const key = 'cd'.repeat(32);
    process.env.SECRETS_ENCRYPTION_KEY = key;
    process.env.SECRETS_ENCRYPTION_KEY_FILE = join(dir, 'missing.key');
    expect(loadConfig().secrets.encryption_key).toBe(key);
  });

  it('should fail clearly when the key file cannot be read', () => {
    process.env.SECRETS_ENCRYPTION_KEY_FILE = join(dir, 'missing.key');
    expect(() => loadConfig()).toThrow(/SECRETS_ENCRYPTION_KEY_FILE: cannot read .*missing\.key/);
  });
});

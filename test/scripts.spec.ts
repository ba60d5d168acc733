import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * The test command's manners (issue #26): `--help` prints usage at once and runs nothing, and a
 * system-wide install is announced before it starts and can be refused (SVC_NO_SYSTEM_INSTALL).
 * Every program the scripts could run is replaced by a stub that records its call.
 */
const ROOT = resolve(__dirname, '..');
const STUBBED = ['npm', 'npx', 'node', 'python3', 'temporal', 'apt-get', 'sudo', 'docker', 'pip', 'curl', 'wget'];
/** The plain tools the scripts use on these paths, from the machine (found on its PATH). */
const TOOLS = ['dirname', 'id', 'tail', 'cat'];

describe('scripts/test.sh and scripts/lib.sh', () => {
  let stubs: string;
  let calls: string;

  beforeEach(() => {
    stubs = mkdtempSync(join(tmpdir(), 'svc-stubs-'));
    calls = join(stubs, 'calls');
    writeFileSync(calls, '');
    for (const name of STUBBED) {
      // `docker compose` is "missing" (exit 127); the rest succeed. docker-compose is not there at all.
      writeFileSync(
        join(stubs, name),
        `#!/bin/bash\necho "${name} $*" >>"${calls}"\nexit ${name === 'docker' ? 127 : 0}\n`,
      );
      chmodSync(join(stubs, name), 0o755);
    }
    for (const tool of TOOLS) {
      const found = spawnSync('/bin/bash', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim();
      symlinkSync(found, join(stubs, tool));
    }
  });

  afterEach(() => rmSync(stubs, { recursive: true, force: true }));

  /** bash with only the stubs and a few plain tools on PATH (nothing installed by the machine). */
  function bash(args: string[], env: Record<string, string> = {}) {
    const result = spawnSync('/bin/bash', args, {
      cwd: ROOT,
      env: { PATH: stubs, HOME: stubs, ...env },
      encoding: 'utf8',
      timeout: 20_000,
    });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr, calls: readFileSync(calls, 'utf8') };
  }

  it.each(['--help', '-h'])('should print the usage for %s and run nothing else', (flag) => {
    const result = bash(['scripts/test.sh', flag]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: bash scripts\/test\.sh \[jest arguments…\]/);
    expect(result.stdout).toContain('SVC_NO_SYSTEM_INSTALL=1 installs none of them');
    expect(result.stderr).toBe('');
    expect(result.calls).toBe('');
  });

  it('should say what it installs system-wide, and why, before installing it', () => {
    const log = join(stubs, 'install.log');
    const result = bash(['-c', `source scripts/lib.sh && ensure_compose_cli "${log}"`]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      "[svc] installing Debian's docker-compose system-wide (apt-get install) for the compose file check " +
        '(test/compose.int-spec.ts); SVC_NO_SYSTEM_INSTALL=1 skips this\n',
    );
    expect(result.calls).toMatch(/apt-get update -qq\n.*apt-get install -y -qq docker-compose\n$/);
  });

  it('should install nothing system-wide under SVC_NO_SYSTEM_INSTALL, and say so', () => {
    const log = join(stubs, 'install.log');
    const result = bash(['-c', `source scripts/lib.sh && ensure_compose_cli "${log}"`], { SVC_NO_SYSTEM_INSTALL: '1' });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      "[svc] not installing Debian's docker-compose for the compose file check (test/compose.int-spec.ts): " +
        'SVC_NO_SYSTEM_INSTALL is set\n[svc] without docker-compose the compose check is skipped\n',
    );
    expect(result.calls).not.toMatch(/apt-get|sudo/);
  });
});

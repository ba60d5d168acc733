import { execFileSync, spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

/** Which compose front end this machine has: the Docker CLI plugin, or Debian's docker-compose. */
function composeCommand(): string[] | null {
  if (spawnSync('docker', ['compose', 'version']).status === 0) {
    return ['docker', 'compose'];
  }
  if (spawnSync('docker-compose', ['version']).status === 0) {
    return ['docker-compose'];
  }
  return null;
}

const compose = composeCommand();
const root = resolve(__dirname, '..');

/** The users' docker-compose.yml stays valid (issue #2); no engine is needed for `config`. */
(compose ? describe : describe.skip)('docker-compose.yml', () => {
  it('should be accepted by `compose config -q`', () => {
    const [cmd, ...args] = compose!;
    expect(() =>
      execFileSync(cmd, [...args, '-f', 'docker-compose.yml', 'config', '-q'], { cwd: root, stdio: 'pipe' }),
    ).not.toThrow();
  });

  it('should define postgres, temporal, temporal-ui, api and worker', () => {
    const [cmd, ...args] = compose!;
    const services = execFileSync(cmd, [...args, '-f', 'docker-compose.yml', 'config', '--services'], { cwd: root })
      .toString()
      .split('\n');
    expect(services).toEqual(expect.arrayContaining(['postgres', 'temporal', 'temporal-ui', 'api', 'worker']));
  });

  it('should show how the API and the worker scale out (deploy.replicas, a host port range for the API)', () => {
    const [cmd, ...args] = compose!;
    const config = execFileSync(cmd, [...args, '-f', 'docker-compose.yml', 'config'], { cwd: root }).toString();
    const service = (name: string) => config.split(/\n {2}(?=\S)/).find((block) => block.startsWith(`${name}:`)) ?? '';
    expect(service('api')).toMatch(/deploy:\s+replicas: 1/);
    expect(service('worker')).toMatch(/deploy:\s+replicas: 1/);
    expect(service('api')).toMatch(/published: 3000-3003|3000-3003:3000/);
  });
});

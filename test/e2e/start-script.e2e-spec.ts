import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createTestDatabase } from '../utils/database';
import { freePort } from '../utils/processes';
import { TEST_SECRETS_ENCRYPTION_KEY, temporalAddress } from '../utils/stack';

/**
 * Start-up failures of the run command (issue #26): a taken port, any of the six, stops
 * `scripts/start.sh` before anything starts, naming the port and the variable that moves it; a
 * worker that exits before it polls stops it with the worker's reason and no banner; the worker
 * itself names a taken metrics port and its variable. Restarts over the data folder of a stack killed
 * with SIGKILL (PostgreSQL mid-recovery, Temporal's SQLite unclean) come up every time (issue 48).
 */
const ROOT = resolve(__dirname, '../..');

jest.setTimeout(120_000);

interface Outcome {
  code: number | null;
  output: string;
}

/** Runs a command to its end (bounded), with stdout and stderr together. */
function runToEnd(command: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs = 90_000): Promise<Outcome> {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const timer = setTimeout(() => child.kill('SIGINT'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      done({ code, output });
    });
  });
}

/** Holds a port as "something else" would, on the address start.sh checks. */
async function occupy(port: number, host = '127.0.0.1'): Promise<Server> {
  const server = createServer();
  await new Promise<void>((listening) => server.listen(port, host, () => listening()));
  return server;
}

/** The environment of a start.sh of the test's own: nothing of the test run's Temporal or database. */
function baseEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'TEMPORAL_PROFILE', 'TEMPORAL_CONFIG_FILE', 'SVC_CONFIG']) {
    delete env[name];
  }
  return { ...env, ...extra };
}

const PORT_VARIABLES = [
  'PORT',
  'METRICS_WORKER_PORT',
  'METRICS_TEMPORAL_SDK_PORT',
  'SVC_TEMPORAL_PORT',
  'SVC_TEMPORAL_UI_PORT',
  'SVC_PG_PORT',
] as const;

describe('scripts/start.sh start-up checks', () => {
  const dirs: string[] = [];
  const dataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-start-'));
    dirs.push(dir);
    return join(dir, 'data');
  };

  afterAll(() => {
    for (const dir of dirs) {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each(PORT_VARIABLES)('should stop before starting anything when the port of %s is taken', async (variable) => {
    const ports: Record<string, string> = {};
    for (const name of PORT_VARIABLES) {
      ports[name] = String(await freePort());
    }
    const taken = await occupy(Number(ports[variable]));
    const data = dataDir();
    try {
      const result = await runToEnd('bash', ['scripts/start.sh'], baseEnv({ ...ports, SVC_DATA_DIR: data }));
      expect(result.code).toBe(1);
      expect(result.output).toContain(`port ${ports[variable]} on 127.0.0.1 (`);
      expect(result.output).toContain(`move it with ${variable}=<another port>`);
      expect(result.output).toContain('not started: 1 port(s) taken');
      // Exactly the taken one is reported, and nothing was built, started or written.
      expect(result.output.match(/is already in use/g)).toHaveLength(1);
      expect(result.output).not.toMatch(/building|starting/);
      expect(existsSync(data)).toBe(false);
    } finally {
      taken.close();
    }
  });

  it('should exit non-zero with the worker’s reason, and print no banner, when the worker exits before it polls', async () => {
    const db = await createTestDatabase();
    const data = dataDir();
    try {
      const result = await runToEnd(
        'bash',
        ['scripts/start.sh'],
        baseEnv({
          SVC_SKIP_BUILD: '1',
          SVC_DATA_DIR: data,
          DATABASE_URL: db.url,
          TEMPORAL_ADDRESS: temporalAddress(),
          // A namespace the server does not have: the worker stops at once with one line; the API runs.
          TEMPORAL_NAMESPACE: 'no-such-namespace',
          TEMPORAL_TASK_QUEUE: `svc-start-${process.pid}`,
          SECRETS_ENCRYPTION_KEY: TEST_SECRETS_ENCRYPTION_KEY,
          PORT: String(await freePort()),
          METRICS_WORKER_PORT: '0',
          METRICS_TEMPORAL_SDK_PORT: '0',
        }),
      );
      expect(result.code).toBe(1);
      expect(result.output).toMatch(
        /\[svc\] the worker exited \(code 1\) before it was ready: Temporal at [^:]+:\d+: namespace no-such-namespace does not exist/,
      );
      expect(result.output).toContain(`[svc] its log: ${data}/logs/worker.log`);
      expect(result.output).not.toContain('Scheduled job service is running');
      expect(result.output).toContain('[svc] stopped');
    } finally {
      await db.drop();
    }
  });
});

describe('the API and the worker on a taken port', () => {
  it.each([
    ['METRICS_WORKER_PORT', 'worker', "The worker's metrics", 'metrics.worker_port', '; 0 turns it off'],
    [
      'METRICS_TEMPORAL_SDK_PORT',
      'worker',
      "The Temporal SDK's worker metrics",
      'metrics.temporal_sdk_port',
      '; 0 turns it off',
    ],
    ['PORT', 'api', 'The API', 'http.port', ''],
  ])('should exit naming the port and %s (%s)', async (variable, app, what, key, off) => {
    const db = await createTestDatabase();
    const port = await freePort();
    const taken = await occupy(port);
    try {
      const result = await runToEnd(process.execPath, [`dist/apps/${app}/src/main.js`], {
        ...baseEnv({}),
        DATABASE_URL: db.url,
        TEMPORAL_ADDRESS: temporalAddress(),
        TEMPORAL_TASK_QUEUE: `svc-ports-${process.pid}`,
        SECRETS_ENCRYPTION_KEY: TEST_SECRETS_ENCRYPTION_KEY,
        METRICS_WORKER_PORT: '0',
        METRICS_TEMPORAL_SDK_PORT: '0',
        PORT: '0',
        [variable]: String(port),
      });
      expect(result.code).toBe(1);
      const fatal = result.output
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { level: string; msg: string })
        .find((line) => line.level === 'fatal');
      expect(fatal?.msg).toBe(
        `${what} cannot listen on 127.0.0.1:${port}: the port is already in use. Stop what listens there, ` +
          `or move it with ${variable}=<another port> (${key} in SVC_CONFIG${off})`,
      );
    } finally {
      taken.close();
      await db.drop();
    }
  });
});

/** Rounds of kill -9 and restart; ten per the issue (about 20 s each here), fewer with SVC_RESTART_ROUNDS. */
const RESTART_ROUNDS = Number(process.env.SVC_RESTART_ROUNDS ?? 10);
const BANNER = 'Scheduled job service is running';

/**
 * Starts `scripts/start.sh` in its own process group, resolves once it prints its banner (or
 * exits, or 150 s pass), and leaves it running: `kill` SIGKILLs the whole group (bash, the API, the
 * worker, the embedded PostgreSQL with its backends, the Temporal dev server) at once.
 */
async function startUntilBanner(env: NodeJS.ProcessEnv) {
  const child = spawn('bash', ['scripts/start.sh'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  let exited = false;
  const ended = new Promise<void>((done) => child.once('exit', () => ((exited = true), done())));
  const up = await new Promise<boolean>((settle) => {
    const timer = setTimeout(() => settle(false), 150_000);
    const seen = (c: Buffer) => {
      output += c.toString();
      if (output.includes(BANNER)) {
        clearTimeout(timer);
        settle(true);
      }
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', seen);
    void ended.then(() => (clearTimeout(timer), settle(false)));
  });
  return {
    up,
    output: () => output,
    kill: async () => {
      if (!exited) {
        process.kill(-child.pid!, 'SIGKILL');
      }
      await ended;
    },
  };
}

/** Resolves once nothing accepts connections on `port` (a killed process's socket closes as it exits). */
async function untilClosed(port: number, timeoutMs = 30_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((done) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), done(true)));
      socket.once('error', () => done(false));
    });
    if (!open) {
      return true;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

describe('scripts/start.sh over the data folder of a killed stack', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-restart-'));
  // As root, the embedded PostgreSQL runs as the `postgres` user, who must reach its data folder.
  chmodSync(dir, 0o755);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(
    `should come up ${RESTART_ROUNDS} times in a row, each after the one before was killed with SIGKILL, keeping its data`,
    async () => {
      const ports: Record<string, string> = { METRICS_WORKER_PORT: '0', METRICS_TEMPORAL_SDK_PORT: '0' };
      for (const name of ['PORT', 'SVC_TEMPORAL_PORT', 'SVC_TEMPORAL_UI_PORT', 'SVC_PG_PORT']) {
        ports[name] = String(await freePort());
      }
      const data = join(dir, 'data');
      const env = baseEnv({ ...ports, SVC_SKIP_BUILD: '1', SVC_DATA_DIR: data });
      const api = `http://127.0.0.1:${ports.PORT}/api/v1`;
      for (let round = 1; round <= RESTART_ROUNDS; round++) {
        const stack = await startUntilBanner(env);
        try {
          expect({ round, up: stack.up, output: stack.up ? '' : stack.output() }).toEqual({
            round,
            up: true,
            output: '',
          });
          // A write to PostgreSQL and Temporal each round; every earlier round's job survived the kills.
          const headers = {
            authorization: `Bearer ${readFileSync(join(data, 'api-key'), 'utf8')}`,
            'content-type': 'application/json',
          };
          const created = await fetch(`${api}/jobs`, {
            method: 'POST',
            headers,
            body: JSON.stringify({
              name: `round ${round}`,
              schedule: { expr: 'every 1 hour' },
              sink: { kind: 'webhook', config: { url: 'https://example.com/hook' } },
            }),
          });
          expect(created.status).toBe(201);
          const listed = (await (await fetch(`${api}/jobs?limit=100`, { headers })).json()) as { data: unknown[] };
          expect({ round, jobs: listed.data.length }).toEqual({ round, jobs: round });
        } finally {
          await stack.kill();
        }
        // Every process of the killed group is gone: nothing listens on its ports any more.
        for (const name of ['PORT', 'SVC_TEMPORAL_PORT', 'SVC_TEMPORAL_UI_PORT', 'SVC_PG_PORT']) {
          expect({ round, [name]: await untilClosed(Number(ports[name])) }).toEqual({ round, [name]: true });
        }
      }
    },
    RESTART_ROUNDS * 160_000,
  );
});

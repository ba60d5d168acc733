import {
  type AppConfig,
  describeTemporalConnection,
  temporalConnectOptions,
  temporalFailureContext,
} from '@svc/common';
import { isPolled, POLLER_STALE_MS } from '@svc/common/task-queue-pollers';
import { classifyTemporalConnectionError } from '@svc/common/temporal-connection-error';
import { payloadCodecFromConfig } from '@svc/common/temporal-data-converter';
import { SINK_IDENTITY_ATTRIBUTES } from '@svc/delivery';
import { createDataSource, MIGRATIONS_TABLE } from '@svc/persistence';
import { alertsTaskQueue, runsTaskQueue, SEARCH_ATTRIBUTES } from '@svc/workflow-contract/definitions';
import { Connection } from '@temporalio/client';
import { msToTs, tsToMs } from '@temporalio/common/lib/time';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';

/**
 * `svc doctor` (docs/operations.md → svc doctor): checks a deployment from the outside, one
 * result per check with the fix when it fails, in an order where a later check that needs an
 * earlier one's dependency is skipped, naming it, when that one failed.
 */
export type CheckStatus = 'ok' | 'fail' | 'skip';

export interface CheckResult {
  check: string;
  status: CheckStatus;
  /** What was found: for a failure, its cause in one line. */
  message: string;
  /** What to do about a failure; null otherwise. */
  fix: string | null;
}

export interface DoctorTargets {
  /** The API's `/api/v1` URL: `/readyz` and `/metrics` are asked at its origin. */
  apiUrl: string;
}

const CALL_TIMEOUT_MS = 5_000;
/** The clocks may differ by this much (plus half the round trip that measured them). */
const CLOCK_TOLERANCE_MS = 1_000;
/** Retention passes run hourly (the run purge first 3 minutes after start): rows may outlive their cutoff by this. */
const RETENTION_GRACE_MS = 2 * 3_600_000;
const TASK_QUEUE_TYPE_WORKFLOW = 1;
const INDEXED_VALUE_TYPE_KEYWORD = 2;
const TEMPORAL_FIX = 'see docs/operations.md → Connecting to Temporal; `svc temporal check` repeats this one check';

const ok = (check: string, message: string): CheckResult => ({ check, status: 'ok', message, fix: null });
const fail = (check: string, message: string, fix: string): CheckResult => ({ check, status: 'fail', message, fix });
const skip = (check: string, message: string): CheckResult => ({ check, status: 'skip', message, fix: null });

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) =>
      setTimeout(() => reject(new Error(`${what}: no answer within ${ms / 1000} s`)), ms).unref(),
    ),
  ]);
}

function errorText(err: unknown): string {
  const e = err as { code?: string; message?: string; errors?: unknown[] };
  // node-postgres reports a refused dual-stack connection as an AggregateError with no message.
  const text = e.message || (e.errors?.[0] as Error | undefined)?.message || e.code || String(err);
  return text.replace(/\s+/g, ' ').trim();
}

/** Runs every check against the deployment `config` describes; resolves to one result per check. */
export async function runDoctor(config: AppConfig, targets: DoctorTargets): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const temporal = new TemporalChecks(config);
  try {
    const reachable = await temporal.reachable();
    results.push(reachable);
    const namespace = reachable.status === 'ok' ? await temporal.namespace() : skip('namespace', 'needs Temporal');
    results.push(namespace);
    const inNamespace = namespace.status === 'ok';
    const needsNamespace = (check: string) => skip(check, `needs the namespace ${config.temporal.namespace}`);
    results.push(inNamespace ? await temporal.searchAttributes() : needsNamespace('search attributes'));
    results.push(inNamespace ? await temporal.codec() : needsNamespace('payload codec'));
    results.push(inNamespace ? await temporal.pollers() : needsNamespace('worker polling'));
    const database = await openDatabase(config);
    try {
      results.push(database.result);
      results.push(inNamespace ? await temporal.clocks(database.dataSource) : needsNamespace('clocks'));
      results.push(
        database.dataSource ? await retention(config, database.dataSource) : skip('retention', 'needs PostgreSQL'),
      );
    } finally {
      await database.dataSource?.destroy().catch(() => undefined);
    }
  } finally {
    await temporal.close();
  }
  results.push(await readyz(targets.apiUrl));
  results.push(...(await metrics(config, targets.apiUrl)));
  return results;
}

/** The Temporal checks over one connection built as the API and the worker build theirs. */
class TemporalChecks {
  private readonly connection: Connection;
  private readonly namespaceName: string;

  constructor(private readonly config: AppConfig) {
    // Without the retry interceptor: a call's own error carries the TLS or gRPC cause.
    this.connection = Connection.lazy({ ...temporalConnectOptions(config.temporal), interceptors: [] });
    this.namespaceName = config.temporal.namespace;
  }

  close(): Promise<void> {
    return this.connection.close().catch(() => undefined);
  }

  private call<T>(fn: () => Promise<T>): Promise<T> {
    return withTimeout(
      this.connection.withDeadline(Date.now() + CALL_TIMEOUT_MS, fn),
      CALL_TIMEOUT_MS + 2_000,
      `Temporal at ${this.config.temporal.address}`,
    );
  }

  private cause(err: unknown): string {
    return classifyTemporalConnectionError(err, temporalFailureContext(this.config.temporal, new Date())).message;
  }

  async reachable(): Promise<CheckResult> {
    try {
      const info = await this.call(() => this.connection.workflowService.getSystemInfo({}));
      const version = info.serverVersion ? ` (server ${info.serverVersion})` : '';
      return ok('temporal', `Temporal at ${describeTemporalConnection(this.config.temporal)} answers${version}`);
    } catch (err) {
      return fail('temporal', this.cause(err), TEMPORAL_FIX);
    }
  }

  async namespace(): Promise<CheckResult> {
    try {
      await this.call(() => this.connection.workflowService.describeNamespace({ namespace: this.namespaceName }));
      return ok('namespace', `namespace ${this.namespaceName} exists`);
    } catch (err) {
      return fail(
        'namespace',
        this.cause(err),
        `create it (temporal operator namespace create -n ${this.namespaceName}) or set TEMPORAL_NAMESPACE to the service's namespace`,
      );
    }
  }

  async searchAttributes(): Promise<CheckResult> {
    const wanted = [...new Set<string>([...Object.values(SEARCH_ATTRIBUTES), ...SINK_IDENTITY_ATTRIBUTES])].sort();
    try {
      const response = await this.call(() =>
        this.connection.operatorService.listSearchAttributes({ namespace: this.namespaceName }),
      );
      const registered = response.customAttributes ?? {};
      const missing = wanted.filter((name) => registered[name] === undefined);
      const mistyped = wanted.filter(
        (name) => registered[name] !== undefined && Number(registered[name]) !== INDEXED_VALUE_TYPE_KEYWORD,
      );
      if (missing.length === 0 && mistyped.length === 0) {
        return ok('search attributes', `${wanted.join(', ')} registered as Keyword`);
      }
      const problems = [
        ...(missing.length > 0 ? [`not registered: ${missing.join(', ')}`] : []),
        ...(mistyped.length > 0 ? [`not of type Keyword: ${mistyped.join(', ')}`] : []),
      ];
      const create = [...missing, ...mistyped].map((name) => `--name ${name} --type Keyword`).join(' ');
      return fail(
        'search attributes',
        `namespace ${this.namespaceName}: ${problems.join('; ')} (run workflows that carry them cannot start)`,
        `temporal operator search-attribute create --namespace ${this.namespaceName} ${create}`,
      );
    } catch (err) {
      return fail('search attributes', this.cause(err), TEMPORAL_FIX);
    }
  }

  /**
   * With `temporal.codec` on: the keys make a codec that decrypts what it encrypts, and the input
   * of the newest workflow in the namespace (a real payload, written by whichever process started
   * it) decodes with them.
   */
  async codec(): Promise<CheckResult> {
    let codec: ReturnType<typeof payloadCodecFromConfig>;
    try {
      codec = payloadCodecFromConfig(this.config);
    } catch (err) {
      return fail('payload codec', errorText(err).replace(/\s*Invalid configuration:\s*/, ''), 'fix temporal.codec');
    }
    if (!codec) {
      return skip('payload codec', 'payload encryption is off (temporal.codec.keys / TEMPORAL_CODEC_KEYS unset)');
    }
    const keyFix =
      'give the service every key id its payloads were encrypted under (TEMPORAL_CODEC_KEYS), see docs/operations.md → Payload encryption';
    try {
      const sample = { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from('"svc doctor"') };
      const [roundTrip] = await codec.decode(await codec.encode([sample]));
      if (Buffer.from(roundTrip.data ?? []).toString() !== '"svc doctor"') {
        return fail('payload codec', 'a sample encrypted with the keys does not decrypt to itself', keyFix);
      }
      const newest = await this.call(() =>
        this.connection.workflowService.listWorkflowExecutions({ namespace: this.namespaceName, pageSize: 1 }),
      );
      const execution = newest.executions?.[0]?.execution;
      if (!execution) {
        return ok(
          'payload codec',
          `keys ${codec.keyIds.join(', ')} decrypt a sample (no workflow in the namespace to read)`,
        );
      }
      const history = await this.call(() =>
        this.connection.workflowService.getWorkflowExecutionHistory({
          namespace: this.namespaceName,
          execution,
          maximumPageSize: 1,
        }),
      );
      const payloads = history.history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads ?? [];
      try {
        await codec.decode(payloads);
      } catch (err) {
        return fail(
          'payload codec',
          `the input of workflow ${execution.workflowId} does not decrypt: ${errorText(err)}`,
          keyFix,
        );
      }
      return ok(
        'payload codec',
        `keys ${codec.keyIds.join(', ')} decrypt the input of workflow ${execution.workflowId}`,
      );
    } catch (err) {
      return fail('payload codec', this.cause(err), TEMPORAL_FIX);
    }
  }

  /** A worker polls each of the service's task queues (jobs, runs, alerts), as seen by Temporal. */
  async pollers(): Promise<CheckResult> {
    const base = this.config.temporal.task_queue;
    const idle: string[] = [];
    try {
      for (const queue of [base, runsTaskQueue(base), alertsTaskQueue(base)]) {
        const response = await this.call(() =>
          this.connection.workflowService.describeTaskQueue({
            namespace: this.namespaceName,
            taskQueue: { name: queue },
            taskQueueType: TASK_QUEUE_TYPE_WORKFLOW,
          }),
        );
        if (!isPolled(response.pollers)) {
          idle.push(queue);
        }
      }
    } catch (err) {
      return fail('worker polling', this.cause(err), TEMPORAL_FIX);
    }
    if (idle.length > 0) {
      return fail(
        'worker polling',
        `no worker polled ${idle.join(', ')} in the last ${POLLER_STALE_MS / 1000} s: nothing runs the jobs`,
        `start the worker (node dist/apps/worker/src/main.js) with TEMPORAL_TASK_QUEUE=${base} and namespace ${this.namespaceName}; its log says why it stopped`,
      );
    }
    return ok('worker polling', `a worker polls ${base} (jobs, runs, alerts)`);
  }

  /**
   * This machine's and PostgreSQL's clocks against Temporal's: Temporal's is read as the start
   * time it gives a probe workflow (terminated at once; it never runs), the others around it.
   */
  async clocks(dataSource: DataSource | null): Promise<CheckResult> {
    const fix =
      'synchronize the clocks (NTP: chrony, systemd-timesyncd) of the hosts of Temporal, PostgreSQL and the service';
    const workflowId = `svc-doctor-clock-${randomUUID()}`;
    try {
      const before = Date.now();
      await this.call(() =>
        this.connection.workflowService.startWorkflowExecution({
          namespace: this.namespaceName,
          workflowId,
          workflowType: { name: 'svcDoctorClockProbe' },
          taskQueue: { name: 'svc-doctor-clock-probe' },
          workflowExecutionTimeout: msToTs('1 minute'),
          requestId: randomUUID(),
          identity: 'svc doctor',
        }),
      );
      const after = Date.now();
      const described = await this.call(() =>
        this.connection.workflowService.describeWorkflowExecution({
          namespace: this.namespaceName,
          execution: { workflowId },
        }),
      );
      await this.call(() =>
        this.connection.workflowService.terminateWorkflowExecution({
          namespace: this.namespaceName,
          workflowExecution: { workflowId },
          reason: 'svc doctor clock probe',
          identity: 'svc doctor',
        }),
      ).catch(() => undefined); // it times out by itself within a minute
      const temporalNow = tsToMs(described.workflowExecutionInfo?.startTime);
      const slack = (after - before) / 2 + CLOCK_TOLERANCE_MS;
      const local = temporalNow - (before + after) / 2; // > 0: this machine is behind
      const skews = [`this machine ${describeSkew(local)}`];
      let worst = Math.abs(local);
      if (dataSource) {
        const pgBefore = Date.now();
        const [{ now }] = (await dataSource.query('SELECT clock_timestamp() AS now')) as [{ now: Date }];
        const pgAfter = Date.now();
        const database = local - (now.getTime() - (pgBefore + pgAfter) / 2);
        skews.push(`PostgreSQL ${describeSkew(database)}`);
        worst = Math.max(worst, Math.abs(database) - (pgAfter - pgBefore) / 2);
      }
      const line = `against Temporal's clock: ${skews.join(', ')}`;
      return worst <= slack ? ok('clocks', line) : fail('clocks', `${line}: more than ${CLOCK_TOLERANCE_MS} ms`, fix);
    } catch (err) {
      return fail('clocks', `could not read Temporal's clock: ${this.cause(err)}`, TEMPORAL_FIX);
    }
  }
}

function describeSkew(behindMs: number): string {
  const ms = Math.round(Math.abs(behindMs));
  return ms === 0 ? 'in step' : `${ms} ms ${behindMs > 0 ? 'behind' : 'ahead'}`;
}

/** PostgreSQL reachable and migrated; the open data source serves the checks after it. */
async function openDatabase(config: AppConfig): Promise<{ result: CheckResult; dataSource: DataSource | null }> {
  const url = new URL(config.database.url);
  const where = `PostgreSQL at ${url.hostname}:${url.port || 5432}${url.pathname}`;
  const dataSource = createDataSource(config.database.url, { poolSize: 1, applicationName: 'svc-doctor' });
  try {
    await withTimeout(dataSource.initialize(), CALL_TIMEOUT_MS, where);
  } catch (err) {
    void dataSource.destroy().catch(() => undefined);
    return {
      result: fail(
        'postgres',
        `${where} is unreachable: ${errorText(err)}`,
        'start PostgreSQL, or set DATABASE_URL to where it runs (docs/operations.md → PostgreSQL)',
      ),
      dataSource: null,
    };
  }
  try {
    const applied = new Set(
      ((await dataSource.query(`SELECT name FROM ${MIGRATIONS_TABLE}`).catch(() => [])) as Array<{ name: string }>).map(
        (row) => row.name,
      ),
    );
    const pending = dataSource.migrations.map((m) => m.name ?? m.constructor.name).filter((name) => !applied.has(name));
    if (pending.length > 0) {
      return {
        result: fail(
          'postgres',
          `${where}: ${pending.length} migration(s) pending, first ${pending[0]}`,
          'run svc migrate (the API and the worker of this release expect the schema it makes)',
        ),
        dataSource,
      };
    }
    return { result: ok('postgres', `${where} answers; schema current (${applied.size} migrations)`), dataSource };
  } catch (err) {
    return { result: fail('postgres', `${where}: ${errorText(err)}`, 'see the PostgreSQL log'), dataSource };
  }
}

/**
 * The API's hourly retention passes (runs, audit log, alert events) leave nothing much older than
 * its retention: a row past its cutoff by more than two hours means they are not running. (They
 * record no last-run time; what they leave behind is the evidence.)
 */
async function retention(config: AppConfig, dataSource: DataSource): Promise<CheckResult> {
  const now = Date.now();
  const runRetention = Math.max(
    config.runs.retention_ms,
    ...Object.values(config.plans).map((plan) => plan.run_retention_ms ?? 0),
  );
  const tables = [
    {
      what: 'finished runs',
      sql: `SELECT 1 FROM runs WHERE status IN ('succeeded','failed','skipped','cancelled') AND finished_at < $1 LIMIT 1`,
      cutoff: now - runRetention - RETENTION_GRACE_MS,
    },
    {
      what: 'audit entries',
      sql: 'SELECT 1 FROM audit_log WHERE created_at < $1 LIMIT 1',
      cutoff: now - config.audit.retention_ms - RETENTION_GRACE_MS,
    },
    {
      what: 'alert events',
      sql: 'SELECT 1 FROM alert_events WHERE created_at < $1 LIMIT 1',
      cutoff: now - config.alerts.retention_ms - RETENTION_GRACE_MS,
    },
  ];
  try {
    const overdue: string[] = [];
    for (const table of tables) {
      if (((await dataSource.query(table.sql, [new Date(table.cutoff)])) as unknown[]).length > 0) {
        overdue.push(table.what);
      }
    }
    if (overdue.length > 0) {
      return fail(
        'retention',
        `${overdue.join(', ')} older than their retention (plus ${RETENTION_GRACE_MS / 3_600_000} h) are still stored: the retention passes are not running`,
        "keep an API process running (they run hourly in every one); its log names a failing pass ('purge failed')",
      );
    }
    return ok('retention', 'nothing is kept past its retention: runs, audit log and alert events are purged');
  } catch (err) {
    return fail('retention', `could not read what retention left: ${errorText(err)}`, 'see the PostgreSQL log');
  }
}

async function httpGet(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
  return { status: response.status, body: await response.text() };
}

async function readyz(apiUrl: string): Promise<CheckResult> {
  const url = `${new URL(apiUrl).origin}/readyz`;
  const fix = 'start the API (node dist/apps/api/src/main.js), or pass --api-url (SVC_API_URL) where it listens';
  try {
    const { status, body } = await httpGet(url);
    if (status === 200) {
      return ok('readyz', `${url}: ready`);
    }
    const breakdown = JSON.parse(body) as Record<string, unknown>;
    const failing = Object.entries(breakdown)
      .filter(
        ([key, value]) =>
          value === false ||
          (key === 'dispatcher' && value !== 'active') ||
          (key === 'writer_backpressure' && value === true),
      )
      .map(([key, value]) => `${key}: ${String(value)}`);
    const cause = typeof breakdown.temporal_error === 'string' ? `; ${breakdown.temporal_error}` : '';
    return fail(
      'readyz',
      `${url} answers ${status}: ${failing.join(', ')}${cause}`,
      'the failing checks above name the dependency',
    );
  } catch (err) {
    return fail('readyz', `${url}: ${errorText(err)}`, fix);
  }
}

/** Where this machine reaches what listens on the configured HOST (a wildcard means loopback too). */
function reachableHost(config: AppConfig): string {
  const host = ['0.0.0.0', '::', ''].includes(config.http.host) ? '127.0.0.1' : config.http.host;
  return host.includes(':') ? `[${host}]` : host;
}

/** The API of this configuration (HOST, PORT), for when no --api-url is given. */
export function configuredApiUrl(config: AppConfig): string {
  return `http://${reachableHost(config)}:${config.http.port}/api/v1`;
}

/** The API's `/metrics` (when `metrics.enabled`), the worker's and the Temporal SDK's (when their port is set). */
async function metrics(config: AppConfig, apiUrl: string): Promise<CheckResult[]> {
  const host = reachableHost(config);
  const headers: Record<string, string> = config.metrics.token
    ? { authorization: `Bearer ${config.metrics.token}` }
    : {};
  const targets = [
    {
      check: 'metrics: API',
      url: config.metrics.enabled ? `${new URL(apiUrl).origin}/metrics` : null,
      off: 'metrics.enabled is false',
    },
    {
      check: 'metrics: worker',
      url: config.metrics.worker_port > 0 ? `http://${host}:${config.metrics.worker_port}/metrics` : null,
      off: 'metrics.worker_port is 0',
    },
    {
      check: 'metrics: Temporal SDK',
      url: config.metrics.temporal_sdk_port > 0 ? `http://${host}:${config.metrics.temporal_sdk_port}/metrics` : null,
      off: 'metrics.temporal_sdk_port is 0',
    },
  ];
  return Promise.all(
    targets.map(async ({ check, url, off }) => {
      if (!url) {
        return skip(check, `off (${off})`);
      }
      try {
        const { status, body } = await httpGet(url, headers);
        if (status === 200 && /^# (HELP|TYPE) /m.test(body)) {
          return ok(check, `${url} serves metrics`);
        }
        const why =
          status === 401 || status === 403
            ? 'set METRICS_TOKEN to the token /metrics requires, or run svc doctor from a loopback peer'
            : 'see the process log';
        return fail(check, `${url} answers ${status}`, why);
      } catch (err) {
        return fail(check, `${url}: ${errorText(err)}`, 'start the process that serves it, or fix its port setting');
      }
    }),
  );
}

/** One line per check, then a summary; `[FAIL]` lines carry their fix. */
export function formatDoctor(results: CheckResult[]): string {
  const width = Math.max(...results.map((r) => r.check.length));
  const lines = results.map((r) => {
    const mark = { ok: '[ok]  ', fail: '[FAIL]', skip: '[skip]' }[r.status];
    return `${mark} ${r.check.padEnd(width)}  ${r.message}${r.fix ? ` — fix: ${r.fix}` : ''}`;
  });
  const failed = results.filter((r) => r.status === 'fail').length;
  lines.push(
    failed === 0
      ? `all ${results.length - countSkipped(results)} checks pass`
      : `${failed} of ${results.length} checks failed`,
  );
  return `${lines.join('\n')}\n`;
}

function countSkipped(results: CheckResult[]): number {
  return results.filter((r) => r.status === 'skip').length;
}

export function doctorPassed(results: CheckResult[]): boolean {
  return results.every((r) => r.status !== 'fail');
}

import { createDataSource } from '@svc/persistence';
import { Client as TemporalClient, Connection } from '@temporalio/client';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { bootstrap } from '../../apps/cli/src/commands/bootstrap';
import { occurrenceEvidence, type OccurrenceEvidence } from './crash-diagnosis';
import {
  type Child,
  freePort,
  PrivatePostgres,
  ReadyzMonitor,
  type ReadyzObservation,
  type ServiceEnv,
  startApi,
  startWorker,
  TemporalDevServer,
} from './processes';
import { type ReceivedRequest, scheduledAtOf, sleep, waitFor, WebhookReceiver } from './receiver';
import { apiClient } from './stack';

/**
 * The crash scenario of issue #21, shared by `test/e2e/crash-faults.e2e-spec.ts` (CI size) and
 * `bench/crash-soak.ts` (the operator's size): jobs firing to a loopback receiver while the
 * worker, the API, the Temporal dev server and PostgreSQL are killed on a plan, then an account
 * of what happened read from PostgreSQL, the API and the receiver. Private processes only, all
 * on 127.0.0.1 (docs/operations.md → Faults).
 */

export type Part = 'api' | 'temporal' | 'postgres';

/** A worker SIGKILL `atMs` after the faults begin: down for `downMs`, then `workers` of them. */
export interface WorkerKill {
  atMs: number;
  downMs: number;
  workers: 1 | 2;
  /** The API is killed with it and started again with it. */
  withApi?: boolean;
}

/** An outage of another part `atMs` after the faults begin, for `downMs`. */
export interface Outage {
  part: Part;
  atMs: number;
  downMs: number;
}

export interface FaultPlan {
  workerKills: WorkerKill[];
  outages: Outage[];
  /** A worker SIGKILL (restarted at once) this often on top, until `untilMs`. */
  extraWorkerKillEveryMs?: number;
  /** When the jobs meant to be deleted mid-faults are deleted. */
  deleteAtMs?: number;
  /** The faults phase lasts at least this long (jobs keep firing after the last fault). */
  untilMs: number;
}

/**
 * Jobs with one daily occurrence inside the faults (issue 48's incident): quartz `s m h * * ?` in
 * UTC, relative to the instant the faults begin (on a whole second, once the jobs exist). `spread`
 * of them evenly through the `untilMs` window, `burst` more all at `burstAtMs`. Misfire policies
 * cycle `fire_once`, `skip`, `fire_all`.
 */
export interface OccurrenceJobs {
  spread: number;
  burst: number;
  burstAtMs: number;
  /**
   * Jobs created while the faults run (`atMs` after they begin, e.g. inside the Temporal outage),
   * `count` of them, each with its one occurrence `dueInMs` after its create (issue 48: a job whose
   * workflow hears of it late plans from its commit, so this occurrence is due under it).
   */
  createdDuringFaults?: { atMs: number; count: number; dueInMs: number };
}

export type MisfirePolicy = 'fire_once' | 'skip' | 'fire_all';

/** A job of `OccurrenceJobs`: its one occurrence in the window (epoch ms). */
export interface OccurrenceJob {
  id: string;
  at: number;
  policy: MisfirePolicy;
  burst: boolean;
}

/**
 * What became of the occurrence jobs' occurrences: each must be delivered once under its one
 * run's id, or (`skip` only, when it was missed) recorded as a `skipped` run with
 * `skip_reason: misfire` and not delivered.
 */
export interface OccurrenceAccount {
  due: number;
  delivered: number;
  misfireSkipped: number;
  /** Delivered more than once under the same `webhook-id` (at-least-once; counted, not wrong). */
  resends: number;
  /** Everything else: no run, two runs, a run that did not succeed, a foreign or missing delivery. */
  wrong: Array<{ job: string; at: string; policy: MisfirePolicy; runs: RunRow[]; webhookIds: string[] }>;
}

/** Run workflows in Temporal against run rows in PostgreSQL (the run mirror). */
export interface Reconciliation {
  runWorkflows: number;
  runRows: number;
  /** Run workflows whose id has no row. */
  workflowsWithoutRow: string[];
  /** Rows `running`/`deferred` whose workflow is not running. */
  openRowsWithoutWorkflow: string[];
  /** Workflows still running whose row is terminal. */
  runningWorkflowsOfClosedRows: string[];
}

export interface ScenarioOptions {
  /** Jobs that fire to the end; job i runs `every periodsMs[i % n] / 1000 seconds`. */
  jobs: number;
  /** Jobs with one occurrence inside the faults (the incident's daily jobs and burst). */
  occurrenceJobs?: OccurrenceJobs;
  /** More jobs, deleted at `plan.deleteAtMs`. */
  deletedMidFaults: number;
  periodsMs: number[];
  plan: FaultPlan;
  log?: (line: string) => void;
}

export interface Job {
  id: string;
  periodMs: number;
}

export interface RunRow {
  id: string;
  job_id: string;
  scheduled_at: Date;
  status: string;
  trigger: string;
  skip_reason: string | null;
  last_error: string | null;
  created_at: Date;
  attempts_count: number;
}

export interface ApiRun {
  id: string;
  scheduled_at: string;
  trigger: string;
}

export interface FaultEvent {
  at: number;
  what: string;
}

export interface LostOccurrence {
  job: string;
  at: string;
  runs: RunRow[];
  deliveries: number;
}

export interface ForeignDelivery {
  occurrence: string;
  webhookIds: string[];
  runIds: string[];
}

/** What the scenario leaves behind, counted. */
export interface Account {
  /** Occurrences of the kept jobs from their first delivery to the cut-off. */
  due: number;
  lost: LostOccurrence[];
  /** Runs of the kept jobs up to the cut-off that did not succeed (the receiver always answers 200). */
  notSucceeded: RunRow[];
  /** Runs of the kept jobs by status. */
  statuses: Record<string, number>;
  /** (job, scheduled_at) with more than one `schedule` run, from PostgreSQL. */
  duplicates: Array<{ job_id: string; scheduled_at: Date; count: string }>;
  /** The run rows of those occurrences. */
  duplicateRows: RunRow[];
  /** Occurrences delivered under more than one `webhook-id`, or not under their one run's id. */
  foreign: ForeignDelivery[];
  deliveries: number;
  occurrencesDelivered: number;
  /** Deliveries beyond the first of their occurrence. */
  resends: number;
  runRows: number;
  /** Runs of the jobs deleted mid-faults, and those of them not `succeeded` or `cancelled`. */
  deletedJobRuns: number;
  deletedJobRunsCancelled: number;
  deletedJobRunsBadlyClosed: RunRow[];
}

const RUN_COLUMNS = 'id, job_id, scheduled_at, status, trigger, skip_reason, last_error, created_at, attempts_count';

export class CrashScenario {
  readonly kept: Job[] = [];
  readonly deleted: Job[] = [];
  readonly occurrence: OccurrenceJob[] = [];
  /** When the faults begin, a whole minute, once occurrence jobs were made for it. */
  private faultsAnchor: number | null = null;
  readonly faults: FaultEvent[] = [];
  readyz!: ReadyzMonitor;
  private env!: ServiceEnv;
  private apiPort = 0;
  private metricsPort = 0;
  private api: Child | undefined;
  private workers: Child[] = [];
  private readonly workerLogs: string[] = [];
  private readonly apiLogs: string[] = [];
  /** The workers and the API are killed and started by one fault at a time. */
  private readonly locks = { workers: Promise.resolve(), api: Promise.resolve() };
  private call!: ReturnType<typeof apiClient>;

  private constructor(
    readonly options: ScenarioOptions,
    readonly receiver: WebhookReceiver,
    readonly postgres: PrivatePostgres,
    readonly temporal: TemporalDevServer,
  ) {}

  /** Starts the private processes and the jobs, and waits for a first delivery of each job. */
  static async start(options: ScenarioOptions): Promise<CrashScenario> {
    const receiver = await WebhookReceiver.start();
    const [postgres, temporal] = await Promise.all([PrivatePostgres.start(), TemporalDevServer.start()]);
    const scenario = new CrashScenario(options, receiver, postgres, temporal);
    await scenario.startServices();
    await scenario.createJobs();
    await scenario.createOccurrenceJobs();
    return scenario;
  }

  get metricsUrl(): string {
    return `http://127.0.0.1:${this.metricsPort}/metrics`;
  }

  private log(line: string): void {
    this.options.log?.(line);
  }

  private async startServices(): Promise<void> {
    const dataSource = await createDataSource(this.postgres.url()).initialize();
    await dataSource.runMigrations();
    const boot = await bootstrap(dataSource, { slug: 'acme', plan: 'self_hosted' });
    await dataSource.destroy();
    [this.apiPort, this.metricsPort] = [await freePort(), await freePort()];
    this.env = {
      databaseUrl: this.postgres.url(),
      temporalAddress: this.temporal.address,
      taskQueue: `svc-crash-${process.pid}`,
    };
    [this.api] = await Promise.all([startApi(this.env, this.apiPort), this.startWorkers(1)]);
    const baseUrl = `http://127.0.0.1:${this.apiPort}`;
    this.call = apiClient(baseUrl, boot.apiKey);
    this.readyz = new ReadyzMonitor(baseUrl, 1_000);
  }

  private async createJobs(): Promise<void> {
    const { jobs, deletedMidFaults } = this.options;
    for (let i = 0; i < jobs + deletedMidFaults; i++) {
      (i < jobs ? this.kept : this.deleted).push(await this.createJob(i));
    }
    const all = [...this.kept, ...this.deleted];
    await waitFor(() => all.every((job) => this.receiver.forJob(job.id).length > 0), 90_000, 500);
  }

  private async createJob(i: number): Promise<Job> {
    const { periodsMs } = this.options;
    const periodMs = periodsMs[i % periodsMs.length];
    const created = await this.call('POST', '/api/v1/jobs', {
      name: `crash ${i}`,
      schedule: { expr: `every ${periodMs / 1000} seconds` },
      sink: { kind: 'webhook', config: { url: `${this.receiver.url}/job-${i}` } },
      misfire_policy: 'fire_all',
      overlap_policy: 'allow',
    });
    if (created.status !== 201) {
      throw new Error(`creating job ${i}: ${created.status} ${JSON.stringify(created.body)}`);
    }
    return { id: created.body.id, periodMs };
  }

  /**
   * Makes the occurrence jobs (ten at a time) and the instant the faults begin: far enough ahead
   * that every job exists before its occurrence.
   */
  private async createOccurrenceJobs(): Promise<void> {
    const spec = this.options.occurrenceJobs;
    const total = (spec?.spread ?? 0) + (spec?.burst ?? 0);
    if (!spec || total === 0) {
      return;
    }
    const allowanceMs = 10_000 + total * 150;
    const anchor = Math.ceil((Date.now() + allowanceMs) / 1_000) * 1_000;
    const second = (ms: number) => Math.max(1_000, Math.round(ms / 1_000) * 1_000);
    const { untilMs } = this.options.plan;
    const policies: MisfirePolicy[] = ['fire_once', 'skip', 'fire_all'];
    const planned = Array.from({ length: total }, (_, i) => ({
      i,
      burst: i >= spec.spread,
      at: anchor + second(i < spec.spread ? ((i + 1) * untilMs) / (spec.spread + 1) : spec.burstAtMs),
      policy: policies[i % policies.length],
    }));
    this.log(
      `creating ${total} occurrence jobs (${spec.spread} spread, ${spec.burst} at ${new Date(anchor + second(spec.burstAtMs)).toISOString()}); faults begin at ${new Date(anchor).toISOString()}`,
    );
    for (let next = 0; next < planned.length; next += 10) {
      const made = await Promise.all(
        planned
          .slice(next, next + 10)
          .map(({ i, at, policy, burst }) => this.createOccurrenceJob(i, at, policy, burst)),
      );
      this.occurrence.push(...made);
    }
    if (Date.now() > anchor) {
      this.log(`occurrence jobs made ${Math.round((Date.now() - anchor) / 1000)} s after the faults' start`);
    }
    this.faultsAnchor = anchor;
  }

  /** One job with one daily occurrence at `at` (quartz `s m h * * ?` in UTC). */
  private async createOccurrenceJob(i: number, at: number, policy: MisfirePolicy, burst: boolean) {
    const when = new Date(at);
    const created = await this.call('POST', '/api/v1/jobs', {
      name: `occurrence ${i}`,
      schedule: {
        expr: `${when.getUTCSeconds()} ${when.getUTCMinutes()} ${when.getUTCHours()} * * ?`,
        kind: 'quartz',
        timezone: 'UTC',
      },
      sink: { kind: 'webhook', config: { url: `${this.receiver.url}/occurrence-${i}` } },
      misfire_policy: policy,
    });
    if (created.status !== 201) {
      throw new Error(`creating occurrence job ${i}: ${created.status} ${JSON.stringify(created.body)}`);
    }
    return { id: created.body.id as string, at, policy, burst };
  }

  /**
   * `OccurrenceJobs.createdDuringFaults`: jobs created inside the faults (the API answers once
   * PostgreSQL has the row; their workflows start once Temporal is back), each due soon after.
   */
  private async createDuringFaults(faultsStart: number): Promise<void> {
    const late = this.options.occurrenceJobs?.createdDuringFaults;
    if (!late || late.count === 0) {
      return;
    }
    await this.sleepUntil(faultsStart, late.atMs);
    const first = this.occurrence.length;
    const policies: MisfirePolicy[] = ['fire_once', 'skip', 'fire_all'];
    const made = await Promise.all(
      Array.from({ length: late.count }, (_, k) => {
        const at = Math.ceil((Date.now() + late.dueInMs) / 1_000) * 1_000;
        return this.createOccurrenceJob(first + k, at, policies[k % policies.length], false);
      }),
    );
    this.occurrence.push(...made);
    this.noteFault(
      `created ${made.length} occurrence jobs due at ${made.map((job) => new Date(job.at).toISOString()).join(', ')}`,
    );
  }

  private noteFault(what: string): void {
    this.faults.push({ at: Date.now(), what });
    this.log(what);
  }

  /**
   * Calls `start` again until it succeeds (a part it needs may be down meanwhile: a worker does
   * not start while PostgreSQL is out), for 180 s or two minutes past the plan's longest outage.
   */
  private async startUntilUp<T>(
    name: string,
    start: () => Promise<T>,
    timeoutMs = Math.max(180_000, ...this.options.plan.outages.map((o) => o.downMs + 120_000)),
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        return await start();
      } catch (err) {
        if (Date.now() > deadline) {
          throw new Error(`${name} did not start: ${(err as Error).message.slice(-3_000)}`);
        }
        await sleep(2_000);
      }
    }
  }

  /** Starts `count` workers; the first serves the worker metrics on `metricsUrl`. */
  private async startWorkers(count: number): Promise<void> {
    const started = await Promise.all(
      Array.from({ length: count }, (_, i) => {
        const port = i === 0 ? String(this.metricsPort) : '0';
        // CRASH_SDK_METRICS_PORT: the first worker's SDK metrics (slots, pollers, cache) for a diagnosis
        const sdkPort = i === 0 ? process.env.CRASH_SDK_METRICS_PORT : undefined;
        const extra = {
          ...this.env.extra,
          METRICS_WORKER_PORT: port,
          ...(sdkPort ? { METRICS_TEMPORAL_SDK_PORT: sdkPort } : {}),
        };
        return this.startUntilUp('worker', () => startWorker({ ...this.env, extra }));
      }),
    );
    this.workers.push(...started);
  }

  private async killWorkers(): Promise<void> {
    const dying = this.workers;
    this.workers = [];
    await Promise.all(dying.map((w) => w.kill('SIGKILL')));
    this.workerLogs.push(...dying.map((w) => w.output));
  }

  /** Runs `action` once no other fault of the same processes is in progress. */
  private serialized(what: keyof CrashScenario['locks'], action: () => Promise<void>): Promise<void> {
    const done = this.locks[what].then(action);
    this.locks[what] = done.catch(() => undefined);
    return done;
  }

  private async killApi(): Promise<void> {
    await this.api?.kill('SIGKILL');
    if (this.api) {
      this.apiLogs.push(this.api.output);
    }
    this.api = undefined;
  }

  private async restartApi(): Promise<void> {
    this.api = await this.startUntilUp('api', () => startApi(this.env, this.apiPort));
  }

  private async sleepUntil(faultsStart: number, atMs: number): Promise<void> {
    await sleep(Math.max(0, faultsStart + atMs - Date.now()));
  }

  private async crashWorkers(faultsStart: number): Promise<void> {
    for (const kill of this.options.plan.workerKills) {
      await this.sleepUntil(faultsStart, kill.atMs);
      const withApi = kill.withApi ? (action: () => Promise<void>) => this.serialized('api', action) : run;
      await this.serialized('workers', () =>
        withApi(async () => {
          this.noteFault(`SIGKILL ${this.workers.length} worker(s)${kill.withApi ? ' and the API' : ''}`);
          await Promise.all([this.killWorkers(), kill.withApi ? this.killApi() : undefined]);
          await sleep(kill.downMs);
          await Promise.all([this.startWorkers(kill.workers), kill.withApi ? this.restartApi() : undefined]);
          this.noteFault(`started ${kill.workers} worker(s)${kill.withApi ? ' and the API' : ''}`);
        }),
      );
    }
  }

  /** The extra SIGKILLs: every `extraWorkerKillEveryMs`, restarted at once as one worker. */
  private async crashWorkersOften(faultsStart: number): Promise<void> {
    const { extraWorkerKillEveryMs: every, untilMs } = this.options.plan;
    for (let atMs = every ?? untilMs; atMs < untilMs; atMs += every!) {
      await this.sleepUntil(faultsStart, atMs);
      await this.serialized('workers', async () => {
        this.noteFault(`SIGKILL ${this.workers.length} worker(s) (extra)`);
        await this.killWorkers();
        await this.startWorkers(1);
      });
    }
  }

  private stopPart(part: Part): Promise<void> {
    return { api: () => this.killApi(), temporal: () => this.temporal.kill(), postgres: () => this.postgres.crash() }[
      part
    ]();
  }

  private startPart(part: Part): Promise<void> {
    return {
      api: () => this.restartApi(),
      temporal: () => this.startUntilUp('temporal', () => this.temporal.start()),
      postgres: () => this.startUntilUp('postgres', () => this.postgres.start()),
    }[part]();
  }

  private async outage({ part, atMs, downMs }: Outage, faultsStart: number): Promise<void> {
    await this.sleepUntil(faultsStart, atMs);
    const down = async () => {
      this.noteFault(`SIGKILL ${part}`);
      await this.stopPart(part);
      await sleep(downMs);
      await this.startPart(part);
      this.noteFault(`started ${part}`);
    };
    await (part === 'api' ? this.serialized('api', down) : down());
  }

  /** Deletes a job, retrying while the API or PostgreSQL is down (404: an earlier try went through). */
  async deleteJob(job: Job): Promise<void> {
    await this.retryWrite('DELETE', `/api/v1/jobs/${job.id}`, [204, 404]);
  }

  /**
   * Sends a write until it answers one of `done`, for up to 180 s. Each try is bounded (a request
   * the API never answers is tried again, not waited on for undici's 300 s), and a give-up names
   * the last answers, so a failure says whether the API refused, erred or hung.
   */
  private async retryWrite(method: string, path: string, done: number[]): Promise<void> {
    const answers: string[] = [];
    await waitFor(
      async () => {
        const answer = await this.call(method, path, undefined, {}, AbortSignal.timeout(20_000)).catch(
          (err: unknown) => ({ status: 0, body: String((err as Error)?.cause ?? err) }),
        );
        answers.push(`${new Date().toISOString()} ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
        return done.includes(answer.status);
      },
      180_000,
      1_000,
    ).catch((err: Error) => {
      throw new Error(`${method} ${path}: ${err.message}; last answers:\n${answers.slice(-8).join('\n')}`);
    });
  }

  private async deleteMidFaults(faultsStart: number): Promise<void> {
    const { deleteAtMs } = this.options.plan;
    if (deleteAtMs === undefined || this.deleted.length === 0) {
      return;
    }
    await this.sleepUntil(faultsStart, deleteAtMs);
    await Promise.all(this.deleted.map((job) => this.deleteJob(job)));
    this.noteFault(`deleted ${this.deleted.length} jobs`);
  }

  /** Runs the fault plan; resolves when every part is up again and `untilMs` has passed. */
  async runFaults(): Promise<{ startedAt: number; lastFaultAt: number }> {
    if (this.faultsAnchor !== null) {
      await sleep(Math.max(0, this.faultsAnchor - Date.now()));
    }
    const startedAt = this.faultsAnchor ?? Date.now();
    const { outages } = this.options.plan;
    await Promise.all([
      this.crashWorkers(startedAt),
      this.crashWorkersOften(startedAt),
      ...outages.map((outage) => this.outage(outage, startedAt)),
      this.deleteMidFaults(startedAt),
      this.createDuringFaults(startedAt),
    ]);
    const lastFaultAt = Date.now();
    await this.sleepUntil(startedAt, this.options.plan.untilMs);
    return { startedAt, lastFaultAt };
  }

  /** Waits (bounded, no throw) for `/readyz` to answer 200; returns its last answer. */
  async waitUntilReady(timeoutMs = 120_000): Promise<ReadyzObservation> {
    let last = await this.readyz.probe();
    await waitFor(
      async () => {
        last = await this.readyz.probe();
        return last.status === 200;
      },
      timeoutMs,
      1_000,
    ).catch(() => undefined);
    return last;
  }

  async query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    const client = new Client({ connectionString: this.postgres.url() });
    await client.connect();
    try {
      return (await client.query(sql, params)).rows as T[];
    } finally {
      await client.end();
    }
  }

  runRows(): Promise<RunRow[]> {
    return this.query<RunRow>(`SELECT ${RUN_COLUMNS} FROM runs ORDER BY job_id, scheduled_at`);
  }

  openRuns(): Promise<RunRow[]> {
    return this.query<RunRow>(
      `SELECT ${RUN_COLUMNS} FROM runs WHERE status IN ('running', 'deferred') ORDER BY scheduled_at`,
    );
  }

  duplicateOccurrences(): Promise<Account['duplicates']> {
    return this.query(
      `SELECT job_id, scheduled_at, count(*) FROM runs WHERE trigger = 'schedule'
        GROUP BY 1, 2 HAVING count(*) > 1 ORDER BY 2`,
    );
  }

  /**
   * Waits (bounded, no throw) until each kept job has opened a run for an occurrence due at or
   * after `at` (decisions are in order, so every earlier one is decided by then; delivering them
   * may take longer on a loaded machine, which the caller waits for separately).
   */
  async waitForOccurrencesDecidedPast(at: number): Promise<boolean> {
    return waitFor(
      async () => {
        const rows = await this.runRows().catch(() => []);
        return this.kept.every((job) => rows.some((r) => r.job_id === job.id && r.scheduled_at.getTime() >= at));
      },
      120_000,
      1_000,
    ).catch(() => false);
  }

  /** Waits (bounded, no throw) until the runs of kept jobs due up to `cutoff` are terminal. */
  async waitForRunsUpTo(cutoff: number, timeoutMs = 90_000): Promise<void> {
    const keptIds = new Set(this.kept.map((job) => job.id));
    await waitFor(
      async () => {
        const open = await this.openRuns().catch(() => null);
        return open !== null && !open.some((r) => keptIds.has(r.job_id) && r.scheduled_at.getTime() <= cutoff);
      },
      timeoutMs,
      1_000,
    ).catch(() => undefined);
  }

  /** Pauses a job (in-flight runs finish, no new occurrence), retrying while a part is down. */
  async pauseJob(job: Job): Promise<void> {
    // 409: already paused (an earlier try went through).
    await this.retryWrite('POST', `/api/v1/jobs/${job.id}/pause`, [200, 409]);
  }

  async pauseKeptJobs(): Promise<void> {
    await Promise.all(this.kept.map((job) => this.pauseJob(job)));
  }

  /** Each kept job's latest run (scheduled_at) as read now, for a failure's evidence. */
  async lastRunOfEachJob(): Promise<Array<{ job: string; periodMs: number; lastScheduledAt: string | null }>> {
    const rows = await this.runRows();
    return this.kept.map((job) => {
      const last = Math.max(0, ...rows.filter((r) => r.job_id === job.id).map((r) => r.scheduled_at.getTime()));
      return { job: job.id, periodMs: job.periodMs, lastScheduledAt: last ? new Date(last).toISOString() : null };
    });
  }

  async deleteKeptJobs(): Promise<void> {
    await Promise.all(this.kept.map((job) => this.deleteJob(job)));
  }

  /** Polls until no run is open, up to `timeoutMs`; returns what is still open then. */
  async openRunsAfterWaiting(timeoutMs: number): Promise<RunRow[]> {
    let open: RunRow[] = [];
    await waitFor(
      async () => {
        open = await this.openRuns();
        return open.length === 0;
      },
      timeoutMs,
      2_000,
    ).catch(() => undefined);
    return open;
  }

  /** A job's runs through the API, every page. */
  async runsThroughApi(jobId: string): Promise<ApiRun[]> {
    const all: ApiRun[] = [];
    let cursor: string | null = null;
    do {
      const path = `/api/v1/jobs/${jobId}/runs?limit=200${cursor ? `&cursor=${cursor}` : ''}`;
      const page: { status: number; body: { data: ApiRun[]; next_cursor: string | null } } = await this.call(
        'GET',
        path,
      );
      if (page.status !== 200) {
        throw new Error(`listing runs of ${jobId}: ${page.status}`);
      }
      all.push(...page.body.data);
      cursor = page.body.next_cursor;
    } while (cursor);
    return all;
  }

  /** Jobs whose run list in the API holds two `schedule` runs of one occurrence, with those occurrences. */
  async repeatedInApi(): Promise<Array<{ job: string; at: string[] }>> {
    const repeated: Array<{ job: string; at: string[] }> = [];
    for (const job of [...this.kept, ...this.deleted]) {
      const ticks = repeatedTicks(await this.runsThroughApi(job.id));
      if (ticks.length > 0) {
        repeated.push({ job: job.id, at: ticks });
      }
    }
    return repeated;
  }

  /**
   * Counts what happened: `settled` are the run rows read once runs up to the cut-off were
   * terminal; `cutoff` is an instant, or each kept job's last run (its schedule was paused).
   */
  async account(settled: RunRow[], cutoff: number | 'last run'): Promise<Account> {
    const rows = await this.runRows();
    const delivered = deliveriesByOccurrence(this.receiver.requests);
    const deletedIds = new Set(this.deleted.map((job) => job.id));
    const ofDeleted = rows.filter((r) => deletedIds.has(r.job_id));
    const keptIds = new Set(this.kept.map((job) => job.id));
    const ofKept = settled.filter((r) => keptIds.has(r.job_id));
    const until = (job: Job) =>
      cutoff === 'last run'
        ? Math.max(0, ...ofKept.filter((r) => r.job_id === job.id).map((r) => r.scheduled_at.getTime()))
        : cutoff;
    const duplicates = await this.duplicateOccurrences();
    const duplicated = new Set(duplicates.map((d) => `${d.job_id}@${d.scheduled_at.getTime()}`));
    return {
      duplicates,
      duplicateRows: rows.filter(
        (r) => r.trigger === 'schedule' && duplicated.has(`${r.job_id}@${r.scheduled_at.getTime()}`),
      ),
      due: this.kept.reduce((n, job) => n + this.dueTicks(job, until(job)).length, 0),
      lost: this.kept.flatMap((job) => this.lostOccurrences(job, settled, until(job), delivered)),
      notSucceeded: ofKept.filter((r) => r.status !== 'succeeded' && r.scheduled_at.getTime() <= until(this.jobOf(r))),
      statuses: countBy(ofKept.map((r) => r.status)),
      foreign: foreignWebhookIds(rows, delivered),
      deliveries: this.receiver.requests.length,
      occurrencesDelivered: delivered.size,
      resends: this.receiver.requests.length - delivered.size,
      runRows: rows.length,
      deletedJobRuns: ofDeleted.length,
      deletedJobRunsCancelled: ofDeleted.filter((r) => r.status === 'cancelled').length,
      deletedJobRunsBadlyClosed: ofDeleted.filter((r) => r.status !== 'succeeded' && r.status !== 'cancelled'),
    };
  }

  private jobOf(run: RunRow): Job {
    return this.kept.find((job) => job.id === run.job_id)!;
  }

  /** A kept job's occurrences from its first delivery up to `cutoff`, epoch ms. */
  private dueTicks(job: Job, cutoff: number): number[] {
    const first = Math.min(...this.receiver.forJob(job.id).map(scheduledAtOf));
    const ticks: number[] = [];
    for (let at = first; at <= cutoff; at += job.periodMs) {
      ticks.push(at);
    }
    return ticks;
  }

  /** Due occurrences of a kept job without a succeeded run or without a delivery. */
  private lostOccurrences(
    job: Job,
    rows: RunRow[],
    cutoff: number,
    delivered: Map<string, ReceivedRequest[]>,
  ): LostOccurrence[] {
    const lost: LostOccurrence[] = [];
    for (const at of this.dueTicks(job, cutoff)) {
      const runs = rows.filter((r) => r.job_id === job.id && r.scheduled_at.getTime() === at);
      const deliveries = delivered.get(`${job.id}@${at}`)?.length ?? 0;
      if (deliveries === 0 || !runs.some((r) => r.status === 'succeeded')) {
        lost.push({ job: job.id, at: new Date(at).toISOString(), runs, deliveries });
      }
    }
    return lost;
  }

  /** Waits (bounded, no throw) until every occurrence job's occurrence has a terminal run. */
  async waitForOccurrenceJobs(timeoutMs: number): Promise<void> {
    if (this.occurrence.length === 0) {
      return;
    }
    await waitFor(
      async () => {
        const rows = await this.query<{ job_id: string; scheduled_at: Date }>(
          `SELECT job_id, scheduled_at FROM runs WHERE job_id = ANY($1::text[])
              AND status NOT IN ('running', 'deferred')`,
          [this.occurrence.map((job) => job.id)],
        ).catch(() => null);
        const done = new Set(rows?.map((r) => `${r.job_id}@${r.scheduled_at.getTime()}`));
        return rows !== null && this.occurrence.every((job) => done.has(`${job.id}@${job.at}`));
      },
      timeoutMs,
      2_000,
    ).catch(() => undefined);
  }

  /** What became of each occurrence job's one occurrence (`OccurrenceAccount`). */
  async occurrenceAccount(): Promise<OccurrenceAccount> {
    const rows = await this.query<RunRow>(
      `SELECT ${RUN_COLUMNS} FROM runs WHERE job_id = ANY($1::text[]) ORDER BY job_id, scheduled_at`,
      [this.occurrence.map((job) => job.id)],
    );
    const account: OccurrenceAccount = {
      due: this.occurrence.length,
      delivered: 0,
      misfireSkipped: 0,
      resends: 0,
      wrong: [],
    };
    for (const job of this.occurrence) {
      const runs = rows.filter((r) => r.job_id === job.id && r.scheduled_at.getTime() === job.at);
      const requests = this.receiver.forJob(job.id).filter((r) => scheduledAtOf(r) === job.at);
      const webhookIds = [...new Set(requests.map((r) => r.headers['webhook-id'] as string))];
      const [run] = runs;
      if (runs.length === 1 && run.status === 'succeeded' && webhookIds.length === 1 && webhookIds[0] === run.id) {
        account.delivered += 1;
        account.resends += requests.length - 1;
      } else if (
        runs.length === 1 &&
        job.policy === 'skip' &&
        run.status === 'skipped' &&
        run.skip_reason === 'misfire' &&
        requests.length === 0
      ) {
        account.misfireSkipped += 1;
      } else {
        account.wrong.push({ job: job.id, at: new Date(job.at).toISOString(), policy: job.policy, runs, webhookIds });
      }
    }
    return account;
  }

  /**
   * Evidence for each wrong occurrence (at most `limit`), to diagnose it from the test's output:
   * the job row, its run rows, the job workflow's executions with their history around the
   * instant, and the job's run workflows in Temporal.
   */
  async explainWrong(
    wrong: OccurrenceAccount['wrong'],
    limit = 4,
  ): Promise<Array<{ job: string; at: string; row: unknown; runs: RunRow[] } & OccurrenceEvidence>> {
    return Promise.all(
      wrong.slice(0, limit).map(async ({ job, at, runs }) => {
        const [row] = await this.query(
          `SELECT id, state, version, revision, misfire_policy, overlap_policy, created_at, updated_at
             FROM jobs WHERE id = $1`,
          [job],
        ).catch((err: Error) => [err.message]);
        const evidence = await occurrenceEvidence(this.temporal.address, job, Date.parse(at)).catch((err: Error) => ({
          jobWorkflow: err.message,
          runWorkflows: err.message,
        }));
        return { job, at, row: row ?? null, runs, ...evidence };
      }),
    );
  }

  /**
   * How late the kept jobs' occurrences due between `from` and `to` (epoch ms) reached the
   * receiver: first delivery minus `scheduled_at`, in ms.
   */
  deliveryLag(from: number, to: number): { occurrences: number; p50: number; p99: number; max: number } {
    const keptIds = new Set(this.kept.map((job) => job.id));
    const first = new Map<string, number>();
    for (const request of this.receiver.requests) {
      const jobId = request.headers['svc-job-id'] as string;
      const at = scheduledAtOf(request);
      if (keptIds.has(jobId) && at >= from && at <= to) {
        const key = `${jobId}@${at}`;
        first.set(key, Math.min(first.get(key) ?? Infinity, request.at - at));
      }
    }
    const lags = [...first.values()].sort((a, b) => a - b);
    const pick = (q: number) => (lags.length > 0 ? lags[Math.min(lags.length - 1, Math.floor(q * lags.length))] : 0);
    return { occurrences: lags.length, p50: pick(0.5), p99: pick(0.99), max: lags.at(-1) ?? 0 };
  }

  /** Run workflows in Temporal against the run rows (`Reconciliation`). */
  async reconcile(): Promise<Reconciliation> {
    const connection = await Connection.connect({ address: this.temporal.address });
    const workflows = new Map<string, string>();
    try {
      const client = new TemporalClient({ connection });
      for await (const workflow of client.workflow.list({ query: `WorkflowType = 'runWorkflow'` })) {
        workflows.set(workflow.workflowId, workflow.status.name);
      }
      const rows = await this.query<{ id: string; status: string }>(`SELECT id, status FROM runs`);
      const rowStatus = new Map(rows.map((r) => [r.id, r.status]));
      const open = (status: string | undefined) => status === 'running' || status === 'deferred';
      // A run workflow writes its row's end, then completes: one still running for a closed row
      // counts only if it has not completed 30 s later.
      let stillRunning = [...workflows]
        .filter(([id, status]) => status === 'RUNNING' && rowStatus.has(id) && !open(rowStatus.get(id)))
        .map(([id]) => id);
      for (let waited = 0; stillRunning.length > 0 && waited < 30_000; waited += 2_000) {
        await sleep(2_000);
        const described = await Promise.all(
          stillRunning.map(async (id) => ({
            id,
            status: (await client.workflow.getHandle(id).describe()).status.name,
          })),
        );
        stillRunning = described.filter((d) => d.status === 'RUNNING').map((d) => d.id);
      }
      return {
        runWorkflows: workflows.size,
        runRows: rows.length,
        workflowsWithoutRow: [...workflows.keys()].filter((id) => !rowStatus.has(id)),
        openRowsWithoutWorkflow: rows
          .filter((r) => open(r.status) && workflows.get(r.id) !== 'RUNNING')
          .map((r) => r.id),
        runningWorkflowsOfClosedRows: stillRunning,
      };
    } finally {
      await connection.close();
    }
  }

  async deleteOccurrenceJobs(): Promise<void> {
    for (let next = 0; next < this.occurrence.length; next += 10) {
      await Promise.all(
        this.occurrence.slice(next, next + 10).map((job) => this.deleteJob({ id: job.id, periodMs: 86_400_000 })),
      );
    }
  }

  /** Writes every worker and API process's output to a file and returns its path (a failure's evidence). */
  keepProcessLogs(): string {
    const workers = [...this.workerLogs, ...this.workers.map((w) => w.output)];
    const apis = [...this.apiLogs, ...(this.api ? [this.api.output] : [])];
    const file = join(tmpdir(), `svc-crash-processes-${process.pid}-${Date.now()}.log`);
    writeFileSync(
      file,
      [
        ...workers.map((output, i) => `=== worker process ${i + 1}\n${output}`),
        ...apis.map((output, i) => `=== API process ${i + 1}\n${output}`),
      ].join('\n'),
    );
    return file;
  }

  /** Stops every process this scenario started and removes their data. */
  async stop(): Promise<void> {
    await this.readyz?.stop();
    await Promise.all([this.killApi(), ...this.workers.map((w) => w.kill('SIGKILL'))]);
    await Promise.all([this.temporal.destroy(), this.postgres.destroy()]);
    await this.receiver.stop();
  }
}

/** Occurrences (ISO) that appear more than once among `schedule` runs. */
function repeatedTicks(runs: ApiRun[]): string[] {
  const seen = new Map<number, number>();
  for (const run of runs.filter((r) => r.trigger === 'schedule')) {
    const at = Date.parse(run.scheduled_at);
    seen.set(at, (seen.get(at) ?? 0) + 1);
  }
  return [...seen].filter(([, n]) => n > 1).map(([at]) => new Date(at).toISOString());
}

/** Deliveries grouped by occurrence: `jobId@scheduledAt` → requests. */
function deliveriesByOccurrence(requests: ReceivedRequest[]): Map<string, ReceivedRequest[]> {
  const byOccurrence = new Map<string, ReceivedRequest[]>();
  for (const request of requests) {
    const key = `${request.headers['svc-job-id'] as string}@${scheduledAtOf(request)}`;
    byOccurrence.set(key, [...(byOccurrence.get(key) ?? []), request]);
  }
  return byOccurrence;
}

/** Occurrences whose deliveries carry more than one `webhook-id`, or one that is not its one run's id. */
function foreignWebhookIds(rows: RunRow[], delivered: Map<string, ReceivedRequest[]>): ForeignDelivery[] {
  const runIdsOf = new Map<string, string[]>();
  for (const row of rows.filter((r) => r.trigger === 'schedule')) {
    const key = `${row.job_id}@${row.scheduled_at.getTime()}`;
    runIdsOf.set(key, [...(runIdsOf.get(key) ?? []), row.id]);
  }
  return [...delivered]
    .map(([occurrence, requests]) => ({
      occurrence,
      webhookIds: [...new Set(requests.map((r) => r.headers['webhook-id'] as string))],
      runIds: runIdsOf.get(occurrence) ?? [],
    }))
    .filter(({ webhookIds, runIds }) => webhookIds.length !== 1 || runIds.length !== 1 || runIds[0] !== webhookIds[0]);
}

function countBy(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) {
    counts[value] = (counts[value] ?? 0) + 1;
  }
  return counts;
}

function run(action: () => Promise<void>): Promise<void> {
  return action();
}

import { Client, Connection } from '@temporalio/client';
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { Client as PgClient } from 'pg';
import { promisify } from 'node:util';
import { releaseSignal } from '../fixtures/target-workflows/workflows';
import { type Child, freePort, type ServiceEnv, startApi, startWorker } from './processes';
import { type ReceivedRequest, sleep, waitFor, WebhookReceiver } from './receiver';
import { apiClient, TEST_SECRETS_ENCRYPTION_KEY } from './stack';
import { startTargetWorker } from './target-worker';

const run = promisify(execFile);
const ROOT = resolve(__dirname, '../..');

/** The commit issue 47 started from: the release a live upgrade starts at unless told otherwise. */
export const PREVIOUS_RELEASE = 'ea7f7ec';

/** One job of the scenario and what the new release did with it. */
export interface JobFinding {
  shape: string;
  jobId: string;
  /** What was checked, in words, and what was wrong (empty when all held). */
  checked: string[];
  problems: string[];
}

export interface UpgradeReport {
  from: string;
  jobs: JobFinding[];
  /** Workflow executions scanned for failed workflow tasks, and those that had one. */
  histories: { scanned: number; failedTasks: string[] };
  problems: string[];
}

export interface LiveUpgradeOptions {
  /** The previous release's checkout (built). */
  from: { dir: string; commit: string };
  /** The new release's checkout (built); this one by default. */
  toDir?: string;
  temporalAddress: string;
  /** A server's maintenance database URL: the scenario creates its own database there and drops it. */
  adminUrl: string;
  /** The prefix of the scenario's database name (the test run's, so that its teardown finds it). */
  databasePrefix?: string;
  log?: (line: string) => void;
}

interface Run {
  id: string;
  status: string;
  scheduled_at: string;
  trigger: string;
  attempts: number;
  next_attempt_at: string | null;
  skip_reason?: string;
}

const INTERVAL = 'every 2 seconds';
/** Years away: a job that never fires by itself while the scenario runs. */
const NEVER = '0 0 0 1 1 ? 2031';

/** A Quartz expression that fires once, at `at` (UTC, whole seconds). */
function quartzAt(at: Date): string {
  return `${at.getUTCSeconds()} ${at.getUTCMinutes()} ${at.getUTCHours()} ${at.getUTCDate()} ${at.getUTCMonth() + 1} ? ${at.getUTCFullYear()}`;
}

function secondsFromNow(seconds: number): Date {
  return new Date(Math.ceil((Date.now() + seconds * 1000) / 1000) * 1000);
}

/**
 * A live upgrade (docs/operations.md → Upgrading): the previous release's API and worker (its own
 * `dist/`, its own migrations) run jobs of every shape on a loopback receiver; they are stopped
 * (SIGTERM, as a deployment does) while work is in flight; the new release migrates and starts on
 * the same Temporal namespace and database; then each job is checked.
 */
export async function runLiveUpgrade(options: LiveUpgradeOptions): Promise<UpgradeReport> {
  const log = options.log ?? (() => undefined);
  const toDir = options.toDir ?? ROOT;
  const databaseName = `${options.databasePrefix ?? 'svc_upgrade_'}${Date.now()}_${process.pid}`;
  const admin = new PgClient({ connectionString: options.adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${databaseName}"`);
  await admin.end();
  const databaseUrl = Object.assign(new URL(options.adminUrl), { pathname: `/${databaseName}` }).toString();
  const taskQueue = `svc-upgrade-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const env = (root: string): ServiceEnv => ({
    databaseUrl,
    temporalAddress: options.temporalAddress,
    taskQueue,
    root,
    // Idle jobs park after 2 minutes (the least allowed) whatever their number.
    extra: { WORKER_PARK_IDLE_AFTER: '2m', WORKER_PARK_ABOVE_JOBS: '0' },
  });
  const cli = (root: string, args: string[]) =>
    run(process.execPath, [join(root, 'dist/apps/cli/src/main.js'), ...args], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: databaseUrl, SECRETS_ENCRYPTION_KEY: TEST_SECRETS_ENCRYPTION_KEY },
    });

  const receiver = await WebhookReceiver.start();
  const target = await startTargetWorker();
  const connection = await Connection.connect({ address: options.temporalAddress });
  const temporal = new Client({ connection });
  const children: Child[] = [];
  let releaseHeld!: () => void;
  const held = new Promise<void>((resolve) => (releaseHeld = resolve));
  let healed = false;
  receiver.respondWith((request) => {
    if (request.url.startsWith('/held')) {
      return { status: 200, until: held };
    }
    return request.url.startsWith('/flaky') && !healed ? { status: 500, body: 'not yet' } : { status: 200 };
  });

  try {
    // ---- the previous release -------------------------------------------------------------
    log(`previous release ${options.from.commit}: migrating, bootstrapping, starting`);
    await cli(options.from.dir, ['migrate']);
    const boot = JSON.parse(
      (await cli(options.from.dir, ['bootstrap', '--workspace', 'upgrade', '--json'])).stdout,
    ) as {
      api_key: string;
    };
    const apiPort = await freePort();
    const [oldApi, oldWorker] = await Promise.all([
      startApi(env(options.from.dir), apiPort),
      startWorker(env(options.from.dir)),
    ]);
    children.push(oldApi, oldWorker);
    const api = apiClient(`http://127.0.0.1:${apiPort}`, boot.api_key);
    const create = async (body: Record<string, unknown>): Promise<string> => {
      const created = await api('POST', '/api/v1/jobs', body);
      if (created.status !== 201) {
        throw new Error(`job not created (${created.status}): ${JSON.stringify(created.body)}`);
      }
      return created.body.id as string;
    };
    const runsOf = async (jobId: string): Promise<Run[]> =>
      ((await api('GET', `/api/v1/jobs/${jobId}/runs?limit=200`)).body.data as Run[]) ?? [];
    const webhook = (path: string) => ({ kind: 'webhook', config: { url: `${receiver.url}${path}` } });

    const interval = await create({ name: 'interval', schedule: { expr: INTERVAL }, sink: webhook('/interval') });
    const daily = await create({
      name: 'daily, parked',
      schedule: { expr: 'every day at 3am' },
      sink: webhook('/daily'),
    });
    const queued = await create({
      name: 'queue overlap',
      schedule: { expr: INTERVAL },
      overlap_policy: 'queue',
      timeout: '60s',
      sink: webhook('/held'),
    });
    const paused = await create({ name: 'paused', schedule: { expr: INTERVAL }, sink: webhook('/paused') });
    const waiting = await create({
      name: 'temporal_workflow, waiting for completion',
      schedule: { expr: NEVER },
      // Under the shutdown grace: the old worker's attempt ends by its timeout and is retried.
      timeout: '15s',
      retry: { max_attempts: 20, backoff: 'fixed', initial_interval: '2s', jitter: 0 },
      sink: {
        kind: 'temporal_workflow',
        config: { workflow_type: 'blocks', task_queue: target.taskQueue, wait: 'completed' },
      },
    });

    log('waiting for: the daily job parked, a queued run behind a held one, the paused job to have run');
    const parkedQueue = `${taskQueue}-parked`;
    await waitFor(async () => (await temporal.workflow.getHandle(daily).describe()).taskQueue === parkedQueue, 60_000);
    const queuedRun = await waitFor(async () => {
      const runs = await runsOf(queued);
      return runs.find((r) => r.status === 'deferred' && r.attempts === 0) ?? null;
    }, 30_000);
    await waitFor(async () => (await runsOf(paused)).some((r) => r.status === 'succeeded'), 30_000);
    expectStatus(await api('POST', `/api/v1/jobs/${paused}/pause`), 200, 'pause');
    const waitingRunId = (await api('POST', `/api/v1/jobs/${waiting}/trigger`)).body.run_id as string;
    const targetWorkflowId = await waitFor(async () => {
      const body = (await api('GET', `/api/v1/runs/${waitingRunId}`)).body as {
        started_workflow: { workflow_id: string } | null;
      };
      return body.started_workflow?.workflow_id ?? null;
    }, 30_000);
    // Last, so that its retry falls due after the old worker stopped polling.
    const backoffAt = secondsFromNow(4);
    const backoff = await create({
      name: 'retry backoff',
      schedule: { expr: quartzAt(backoffAt) },
      retry: { max_attempts: 3, backoff: 'fixed', initial_interval: '8s', jitter: 0 },
      sink: webhook('/flaky'),
    });
    const backoffRun = await waitFor(async () => {
      const runs = await runsOf(backoff);
      return runs.find((r) => r.status === 'deferred' && r.attempts === 1) ?? null;
    }, 30_000);
    const pausedRuns = (await runsOf(paused)).length;

    // ---- the upgrade ------------------------------------------------------------------------
    log('stopping the previous release (SIGTERM)');
    const stoppedAt = Date.now();
    oldWorker.process.kill('SIGTERM');
    await waitFor(() => oldWorker.output.includes('stopped polling'), 15_000);
    // The held request is answered now: its attempt finishes on the old worker, as in a deployment.
    releaseHeld();
    await Promise.all([oldWorker.exited, oldApi.kill('SIGTERM')]);
    const pausedRunsAtStop = (await countRuns(databaseUrl, paused)) ?? pausedRuns;

    log('new release: migrating and starting on the same Temporal and database');
    // Before the new worker polls: the retry it makes first must succeed (the old one is gone).
    healed = true;
    await cli(toDir, ['migrate']);
    const [newApi, newWorker] = await Promise.all([startApi(env(toDir), apiPort), startWorker(env(toDir))]);
    children.push(newApi, newWorker);
    const upgradedAt = Date.now();
    // The team workflow the attempt waits on ends now; the attempt retried by the new release sees it.
    await target.client.workflow.getHandle(targetWorkflowId).signal(releaseSignal);

    // ---- what the new release did with each job -----------------------------------------
    const jobs: JobFinding[] = [];
    const check = async (shape: string, jobId: string, checks: Array<[string, () => Promise<string | null>]>) => {
      const finding: JobFinding = { shape, jobId, checked: [], problems: [] };
      for (const [what, probe] of checks) {
        finding.checked.push(what);
        const problem = await probe().catch((err: Error) => err.message);
        if (problem) {
          finding.problems.push(`${what}: ${problem}`);
        }
      }
      jobs.push(finding);
      log(`${shape}: ${finding.problems.length === 0 ? 'ok' : finding.problems.join('; ')}`);
    };
    const within = async (probe: () => Promise<boolean>, timeoutMs = 60_000): Promise<string | null> =>
      waitFor(probe, timeoutMs).then(
        () => null,
        () => `not within ${timeoutMs / 1000} s`,
      );
    const firedAfterUpgrade = (jobId: string, count: number) => async () =>
      within(
        async () =>
          (await runsOf(jobId)).filter((r) => Date.parse(r.scheduled_at) > upgradedAt && r.status === 'succeeded')
            .length >= count,
      );

    await check('interval', interval, [
      ['occurrences after the upgrade fire', firedAfterUpgrade(interval, 3)],
      [
        'each occurrence once, none lost',
        async () => occurrenceProblems(await runsOf(interval), receiver.requests, 2_000),
      ],
    ]);
    await check('queue overlap with a run waiting', queued, [
      [
        'the queued run runs',
        async () => within(async () => (await api('GET', `/api/v1/runs/${queuedRun.id}`)).body.status === 'succeeded'),
      ],
      ['occurrences after the upgrade fire', firedAfterUpgrade(queued, 2)],
      ['each occurrence once', async () => occurrenceProblems(await runsOf(queued), receiver.requests, null)],
    ]);
    await check('run in retry backoff', backoff, [
      [
        'finishes its retries',
        async () =>
          within(async () => {
            const body = (await api('GET', `/api/v1/runs/${backoffRun.id}`)).body as {
              status: string;
              attempts: unknown[];
            };
            return body.status === 'succeeded' && body.attempts.length === 2;
          }),
      ],
      ['one run for its one occurrence', async () => occurrenceProblems(await runsOf(backoff), [], null)],
    ]);
    await check('temporal_workflow waiting for completion', waiting, [
      [
        'finishes on the execution it started',
        async () => within(async () => (await api('GET', `/api/v1/runs/${waitingRunId}`)).body.status === 'succeeded'),
      ],
      [
        'one execution of the team workflow',
        async () => {
          const executions = await target.executions(targetWorkflowId);
          return executions.length === 1 ? null : `${executions.length} executions`;
        },
      ],
    ]);
    // The daily job is told to fire soon: its parked workflow takes the change and fires once.
    const dailyAt = secondsFromNow(8);
    await check('daily, parked', daily, [
      [
        'still parked after the upgrade',
        async () => {
          const { taskQueue: queue, status } = await temporal.workflow.getHandle(daily).describe();
          return queue === parkedQueue && status.name === 'RUNNING' ? null : `${status.name} on ${queue}`;
        },
      ],
      [
        'a schedule change wakes it and its next occurrence fires once',
        async () => {
          expectStatus(
            await api('PATCH', `/api/v1/jobs/${daily}`, { schedule: { expr: quartzAt(dailyAt) } }),
            200,
            'PATCH',
          );
          const late = await within(async () => (await runsOf(daily)).some((r) => r.status === 'succeeded'));
          await sleep(2_000);
          const runs = await runsOf(daily);
          const delivered = receiver.requests.filter((r) => r.url === '/daily').length;
          if (late) {
            return late;
          }
          return runs.length === 1 && runs[0].scheduled_at === dailyAt.toISOString() && delivered === 1
            ? null
            : `${runs.length} runs (${runs.map((r) => r.scheduled_at).join(', ')}), ${delivered} deliveries`;
        },
      ],
    ]);
    await check('paused', paused, [
      [
        'stays paused and fires nothing',
        async () => {
          await sleep(Math.max(0, upgradedAt + 6_000 - Date.now()));
          const job = (await api('GET', `/api/v1/jobs/${paused}`)).body as { state: string };
          const runs = (await runsOf(paused)).length;
          const status = (await temporal.workflow.getHandle(paused).describe()).status.name;
          return job.state === 'paused' && runs === pausedRunsAtStop && status === 'RUNNING'
            ? null
            : `state ${job.state}, ${runs} runs (${pausedRunsAtStop} at the stop), workflow ${status}`;
        },
      ],
    ]);

    // ---- every workflow task of every execution of the deployment --------------------------
    const ids = [
      ...[interval, daily, queued, paused, waiting, backoff],
      ...(await Promise.all([interval, daily, queued, paused, waiting, backoff].map(runsOf))).flat().map((r) => r.id),
    ];
    const histories = await failedWorkflowTasks(temporal, ids);
    log(
      `histories: ${histories.scanned} executions scanned, ${histories.failedTasks.length} with a failed workflow task`,
    );
    log(`upgrade took ${Math.round((upgradedAt - stoppedAt) / 1000)} s from SIGTERM to the new worker polling`);
    const problems = [
      ...jobs.flatMap((job) => job.problems.map((problem) => `${job.shape}: ${problem}`)),
      ...histories.failedTasks.map((failed) => `workflow task failed: ${failed}`),
    ];
    return { from: options.from.commit, jobs, histories, problems };
  } finally {
    releaseHeld();
    await Promise.all(children.map((child) => child.kill('SIGKILL')));
    await target.stop().catch(() => undefined);
    await receiver.stop();
    await connection.close().catch(() => undefined);
    const drop = new PgClient({ connectionString: options.adminUrl });
    await drop.connect();
    await drop.query(`DROP DATABASE IF EXISTS "${databaseName}" WITH (FORCE)`);
    await drop.end();
  }
}

function expectStatus(response: { status: number; body: unknown }, status: number, what: string): void {
  if (response.status !== status) {
    throw new Error(`${what} answered ${response.status}: ${JSON.stringify(response.body)}`);
  }
}

/** Runs of a job in the database (the API may be down). */
async function countRuns(databaseUrl: string, jobId: string): Promise<number | null> {
  const client = new PgClient({ connectionString: databaseUrl });
  try {
    await client.connect();
    const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM runs WHERE job_id = $1', [jobId]);
    return Number(rows[0].n);
  } catch {
    return null;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * What is wrong with a job's scheduled runs: an occurrence with two runs, a delivered run whose
 * request arrived other than once, and (with `everyMs`) a missing occurrence between the first
 * and the last.
 */
export function occurrenceProblems(runs: Run[], requests: ReceivedRequest[], everyMs: number | null): string | null {
  const scheduled = runs.filter((r) => r.trigger === 'schedule').map((r) => Date.parse(r.scheduled_at));
  const problems: string[] = [];
  const seen = new Set<number>();
  for (const at of scheduled) {
    if (seen.has(at)) {
      problems.push(`two runs for ${new Date(at).toISOString()}`);
    }
    seen.add(at);
  }
  for (const r of runs.filter((r) => r.status === 'succeeded' && requests.length > 0)) {
    const deliveries = requests.filter((request) => request.headers['webhook-id'] === r.id).length;
    if (deliveries !== 1) {
      problems.push(`run ${r.id} delivered ${deliveries} times`);
    }
  }
  if (everyMs !== null) {
    const sorted = [...seen].sort((a, b) => a - b);
    for (let i = 1; i < sorted.length; i++) {
      if (sorted[i] - sorted[i - 1] !== everyMs) {
        problems.push(
          `no run between ${new Date(sorted[i - 1]).toISOString()} and ${new Date(sorted[i]).toISOString()}`,
        );
      }
    }
  }
  return problems.length > 0 ? problems.join('; ') : null;
}

/** Every execution of these workflow ids (continued-as-new ones included), and those with a failed workflow task. */
async function failedWorkflowTasks(client: Client, workflowIds: string[]) {
  let scanned = 0;
  const failedTasks: string[] = [];
  for (const workflowId of workflowIds) {
    for await (const execution of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
      scanned++;
      const { events } = await client.workflow.getHandle(workflowId, execution.runId).fetchHistory();
      for (const event of events ?? []) {
        const failed = event.workflowTaskFailedEventAttributes;
        if (failed) {
          failedTasks.push(`${workflowId}/${execution.runId}: ${failed.failure?.message ?? String(failed.cause)}`);
        }
      }
    }
  }
  return { scanned, failedTasks };
}

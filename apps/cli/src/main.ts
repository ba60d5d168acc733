#!/usr/bin/env node
/**
 * `svc`: operator commands (decisions.md → Operator CLI) and jobs as code (`apply`, `diff`, `export`
 * over the API). Exit 0 on success, 1 on error with a one-line message on stderr (an API error's
 * `fields` one per line under it; stacks only for unexpected errors under SVC_DEBUG=1), and 2 from
 * `svc diff` when it finds changes.
 */
import 'reflect-metadata';
import { createDataSource } from '@svc/persistence';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { DataSource } from 'typeorm';
import { bootstrap } from './commands/bootstrap';
import { backfillJob, type BackfillInput } from './commands/backfill';
import { bulkJobs } from './commands/bulk';
import { configuredApiUrl, doctorPassed, formatDoctor, runDoctor } from './commands/doctor';
import { applyJobsFile, exportJobs, writeJobsFile } from './commands/jobs-as-code';
import { migrate } from './commands/migrate';
import { formatPlan, planHasChanges } from './commands/plan-output';
import { startReceiver } from './commands/receive';
import { checkTemporal } from './commands/temporal-check';
import { setWorkspaceSuspended } from './commands/workspace';
import { CliConfig, isDebug, loadApiSettings, loadCliConfig, loadDoctorSettings, loadTemporalSettings } from './config';
import { CliError } from './errors';

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** Environment for the config module; defaults to `process.env` there. */
  env?: NodeJS.ProcessEnv;
  /** Folder the data dir is looked for in (`.data/database-url`); defaults to `process.cwd()`. */
  cwd?: string;
  /** Ends a long-running command (`receive`); without it, SIGINT or SIGTERM does. */
  stop?: AbortSignal;
}

const defaultIo: CliIo = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

/** Runs the CLI on `argv` (without `node` and the script) and resolves to the exit code. */
export async function run(argv: string[], io: CliIo = defaultIo): Promise<number> {
  // A command that succeeds may still answer with another code: `svc diff` exits 2 on changes.
  const result = { exitCode: 0 };
  const program = buildProgram(io, result);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return result.exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.exitCode;
    } // usage errors: commander printed them
    io.err(`error: ${oneLine(err)}\n`);
    for (const line of err instanceof CliError ? err.details : []) {
      io.err(`  ${line}\n`);
    }
    if (!(err instanceof CliError) && isDebug(io.env) && err instanceof Error && err.stack) {
      io.err(`${err.stack}\n`);
    }
    return 1;
  }
}

function buildProgram(io: CliIo, result: { exitCode: number }): Command {
  const program = new Command('svc')
    .description('Scheduled job service: operator commands')
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .showHelpAfterError();

  program
    .command('migrate')
    .description('apply pending database migrations')
    .action(async () => {
      const ran = await withDataSource(io, (ds) => migrate(ds));
      if (ran.length === 0) {
        io.out('no pending migrations\n');
      }
      for (const name of ran) {
        io.out(`applied ${name}\n`);
      }
    });

  program
    .command('bootstrap')
    .description('create the workspace if missing and a new "*"-scoped API key; prints the key once')
    .requiredOption('--workspace <slug>', 'workspace slug')
    .option('--json', 'print {"workspace_id", "api_key"} as JSON')
    .action(async (opts: { workspace: string; json?: boolean }) => {
      const result = await withDataSource(io, (ds, config) =>
        bootstrap(ds, { slug: opts.workspace, plan: config.plan }),
      );
      if (opts.json) {
        io.out(`${JSON.stringify({ workspace_id: result.workspaceId, api_key: result.apiKey })}\n`);
      } else {
        const ws = `${result.workspaceCreated ? 'created' : 'existing'} workspace ${opts.workspace} (${result.workspaceId})`;
        io.out(`${ws}; API key ${result.keyId} (shown once): ${result.apiKey}\n`);
      }
    });

  program
    .command('temporal')
    .description('Temporal connection')
    .command('check')
    .description('connect to Temporal with the service settings and ask for the namespace; one line either way')
    .action(async () => {
      io.out(`${await checkTemporal(loadTemporalSettings(io.env))}\n`);
    });

  program
    .command('doctor')
    .description(
      'check a deployment: Temporal (connection, namespace, search attributes, codec keys, worker polling, clocks), ' +
        "PostgreSQL (reachable, migrated, retention), the API's /readyz and metrics; one line per check with its fix; exit 1 when one fails",
    )
    .option(
      '--api-url <url>',
      'the API, for /readyz and /metrics (default: SVC_API_URL, else the configured HOST and PORT)',
    )
    .option('--json', 'print {"ok", "checks": [{"check", "status", "message", "fix"}]} as JSON')
    .action(async (opts: { apiUrl?: string; json?: boolean }) => {
      const { config, apiUrl } = loadDoctorSettings(opts, io.env, io.cwd);
      const results = await runDoctor(config, { apiUrl: apiUrl ?? configuredApiUrl(config) });
      const passed = doctorPassed(results);
      io.out(opts.json ? `${JSON.stringify({ ok: passed, checks: results }, null, 2)}\n` : formatDoctor(results));
      result.exitCode = passed ? 0 : 1;
    });

  program
    .command('receive')
    .description(
      'receive webhooks on this machine: print each request and whether its signature verifies (Ctrl-C stops)',
    )
    .option('--port <port>', 'port to listen on (0: any free port)', portNumber, 4000)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option(
      '--secret <whsec_…>',
      "the job's signing secret, to verify signatures (repeat it for an old and a new secret)",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option('--status <code>', 'status code to answer with, e.g. 500 to watch retries', statusCode, 200)
    .action(async (opts: { port: number; host: string; secret: string[]; status: number }) => {
      const receiver = await startReceiver({ ...opts, secrets: opts.secret, out: io.out });
      const checking = opts.secret.length > 0 ? 'verifying signatures' : 'signatures not checked (no --secret)';
      io.out(`svc receive: listening on ${receiver.url} (answering ${opts.status}; ${checking}); Ctrl-C stops\n`);
      await untilStopped(io.stop);
      await receiver.close();
    });

  addJobsAsCode(program, io, result);

  const workspace = program.command('workspace').description('workspace administration');
  for (const [name, suspended] of [
    ['suspend', true],
    ['unsuspend', false],
  ] as const) {
    workspace
      .command(`${name} <slug>`)
      .description(suspended ? 'suspend a workspace (mutations 403, scheduled runs skipped)' : 'lift a suspension')
      .action(async (slug: string) => {
        const result = await withDataSource(io, (ds) => setWorkspaceSuspended(ds, slug, suspended));
        const state = result.changed
          ? suspended
            ? 'is now suspended'
            : 'is no longer suspended'
          : suspended
            ? 'was already suspended'
            : 'was not suspended';
        io.out(`workspace ${slug} (${result.workspaceId}) ${state}\n`);
      });
  }
  return program;
}

interface ApiFlags {
  apiUrl?: string;
  apiKey?: string;
}

interface BulkFlags {
  tag?: string[];
  id?: string[];
  keyPrefix?: string;
  managedBy?: string;
  sinkHost?: string;
  state?: string;
  note?: string;
  resumeAt?: string;
  all?: boolean;
  dryRun?: boolean;
}

/** `svc backfill`'s options: what the command sends besides the job. */
type BackfillFlags = Omit<BackfillInput, 'job'>;

interface PlanFlags extends ApiFlags {
  file: string;
  managedBy?: string;
  prune?: boolean;
  adopt?: boolean;
  output?: 'text' | 'json';
}

/**
 * Jobs as code (docs/jobs-as-code.md): `apply`, `diff` (a dry-run apply that exits 2
 * when it finds changes, for CI) and `export`, over HTTP to the API.
 */
function addJobsAsCode(program: Command, io: CliIo, result: { exitCode: number }): void {
  const withApi = (command: Command) =>
    command
      .option('--api-url <url>', 'the API, e.g. http://127.0.0.1:3000/api/v1 (default: SVC_API_URL, else that)')
      .option('--api-key <key>', 'an API key with jobs:write (default: SVC_API_KEY, else .data/api-key)');
  const withPlan = (command: Command) =>
    withApi(command)
      .requiredOption('-f, --file <path>', 'the jobs file: YAML, or JSON when it ends in .json')
      .option('--managed-by <owner>', "the set's owner, e.g. git:infra/jobs.yaml (overrides the file's managed_by)")
      .option('--prune', 'delete jobs of this owner that the file no longer names')
      .option('--adopt', 'take over jobs of the file made by hand or declared by another owner (else a conflict)')
      .addOption(new Option('--output <format>', 'how to print the plan').choices(['text', 'json']).default('text'));

  const applyPlan = async (opts: PlanFlags, dryRun: boolean) => {
    const settings = loadApiSettings(opts, io.env, io.cwd);
    const plan = await applyJobsFile(settings, {
      file: opts.file,
      managedBy: opts.managedBy,
      prune: opts.prune === true,
      adopt: opts.adopt === true,
      dryRun,
    });
    if (opts.output === 'json') {
      io.out(`${JSON.stringify(plan, null, 2)}\n`);
    } else {
      const owner = plan.managed_by ?? opts.managedBy;
      io.out(formatPlan(plan, { dryRun, managedBy: owner }));
    }
    return plan;
  };

  withPlan(program.command('apply'))
    .description('create, update (and with --prune delete) jobs so the workspace matches the file; prints the plan')
    .option('--dry-run', 'print the plan, write nothing')
    .action(async (opts: PlanFlags & { dryRun?: boolean }) => {
      await applyPlan(opts, opts.dryRun === true);
    });

  withPlan(program.command('diff'))
    .description('print what apply would change (a dry run); exit 2 when it would change something, 0 when not')
    .action(async (opts: PlanFlags) => {
      if (planHasChanges(await applyPlan(opts, true))) {
        result.exitCode = 2;
      }
    });

  withApi(program.command('bulk <action>'))
    .description('pause, resume, trigger, delete or enable the jobs a filter matches, as one operation')
    .option('--tag <tag...>', 'jobs carrying every one of these tags')
    .option('--id <id...>', 'these jobs')
    .option('--key-prefix <prefix>', 'jobs whose key starts with this')
    .option('--managed-by <owner>', 'jobs an apply with this owner declared')
    .option('--sink-host <host>', 'webhook jobs to this host (or host:port)')
    .option('--state <state>', 'jobs in this state')
    .option('--note <text>', 'why: in every audit entry, and on a paused job')
    .option('--resume-at <time>', 'pause only: resume the jobs at this RFC 3339 time (a maintenance window)')
    .option('--all', 'every job of the workspace (needed without a filter)')
    .option('--dry-run', 'list the matched jobs, change nothing')
    .action(async (action: string, opts: ApiFlags & BulkFlags) => {
      const settings = loadApiSettings(opts, io.env, io.cwd);
      io.out(
        await bulkJobs(settings, {
          action,
          filter: {
            ids: opts.id,
            tags: opts.tag,
            key_prefix: opts.keyPrefix,
            managed_by: opts.managedBy,
            sink_host: opts.sinkHost,
            state: opts.state,
          },
          note: opts.note,
          resumeAt: opts.resumeAt,
          all: opts.all,
          dryRun: opts.dryRun,
        }),
      );
    });

  withApi(program.command('backfill <job>'))
    .description('run a past range of a job’s occurrences again with their nominal times; JOB: id or key')
    .requiredOption('--from <time>', 'the first instant of the range (RFC 3339, inclusive)')
    .requiredOption('--to <time>', 'the end of the range (RFC 3339, exclusive)')
    .addOption(new Option('--mode <mode>', 'one run at a time, or several').choices(['sequential', 'parallel']))
    .option('--max-runs <n>', 'parallel: runs at once (default 5)', (value: string) => {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1) {
        throw new InvalidArgumentError('a whole number of at least 1');
      }
      return n;
    })
    .option('--run-succeeded', 'run occurrences that already succeeded too')
    .option('--dry-run', 'count the occurrences, write nothing')
    .action(async (job: string, opts: ApiFlags & BackfillFlags) => {
      const settings = loadApiSettings(opts, io.env, io.cwd);
      io.out(
        await backfillJob(settings, {
          job,
          from: opts.from,
          to: opts.to,
          mode: opts.mode,
          maxRuns: opts.maxRuns,
          runSucceeded: opts.runSucceeded,
          dryRun: opts.dryRun,
        }),
      );
    });

  withApi(program.command('export'))
    .description('write the jobs of an owner as a jobs file (apply of it is unchanged); standard output without -o')
    .requiredOption('--managed-by <owner>', 'the owner whose jobs to write, e.g. git:infra/jobs.yaml')
    .option('-o, --out <path>', 'write to this file (JSON when it ends in .json, YAML otherwise)')
    .action(async (opts: ApiFlags & { managedBy: string; out?: string }) => {
      const settings = loadApiSettings(opts, io.env, io.cwd);
      const file = await exportJobs(settings, opts.managedBy);
      const text = writeJobsFile(file, settings, opts.out);
      if (opts.out === undefined) {
        io.out(text);
      } else {
        io.out(`wrote ${file.jobs.length} job(s) managed by ${opts.managedBy} to ${opts.out}\n`);
      }
    });
}

function portNumber(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new InvalidArgumentError('a port is a whole number from 0 to 65535');
  }
  return port;
}

function statusCode(value: string): number {
  const status = Number(value);
  if (!Number.isInteger(status) || status < 200 || status > 599) {
    throw new InvalidArgumentError('a status code is a whole number from 200 to 599');
  }
  return status;
}

/**
 * Resolves when `signal` aborts, else on the process's first SIGINT or SIGTERM, or once its parent
 * is gone: `npx svc receive &` stopped with `kill %1` ends npx, which does not pass the signal on,
 * and the receiver would otherwise keep the port (reparented, its `ppid` changes).
 */
function untilStopped(signal?: AbortSignal): Promise<void> {
  return new Promise((stopped) => {
    if (signal) {
      if (signal.aborted) {
        stopped();
      }
      signal.addEventListener('abort', () => stopped(), { once: true });
      return;
    }
    const parent = process.ppid;
    const orphaned = setInterval(() => {
      if (process.ppid !== parent) {
        clearInterval(orphaned);
        stopped();
      }
    }, 500);
    const stop = () => {
      clearInterval(orphaned);
      stopped();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

async function withDataSource<T>(io: CliIo, fn: (ds: DataSource, config: CliConfig) => Promise<T>): Promise<T> {
  const config = loadCliConfig(io.env, io.cwd);
  const ds = createDataSource(config.databaseUrl, { poolSize: 2, applicationName: 'svc-cli' });
  await ds.initialize();
  try {
    return await fn(ds, config);
  } finally {
    await ds.destroy();
  }
}

function oneLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/\s+/g, ' ').trim() || 'unknown error';
}

if (require.main === module) {
  void run(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}

#!/usr/bin/env node
/**
 * `svc`: operator commands (decisions.md → Operator CLI). Exit 0 on success, 1 on error with a
 * one-line message on stderr (stacks only for unexpected errors under SVC_DEBUG=1).
 */
import 'reflect-metadata';
import { createDataSource } from '@svc/persistence';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { DataSource } from 'typeorm';
import { bootstrap } from './commands/bootstrap';
import { migrate } from './commands/migrate';
import { startReceiver } from './commands/receive';
import { checkTemporal } from './commands/temporal-check';
import { setWorkspaceSuspended } from './commands/workspace';
import { CliConfig, isDebug, loadCliConfig, loadTemporalSettings } from './config';
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
  const program = buildProgram(io);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.exitCode;
    } // usage errors: commander printed them
    io.err(`error: ${oneLine(err)}\n`);
    if (!(err instanceof CliError) && isDebug(io.env) && err instanceof Error && err.stack) {
      io.err(`${err.stack}\n`);
    }
    return 1;
  }
}

function buildProgram(io: CliIo): Command {
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

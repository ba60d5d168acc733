import { CliError } from './errors';

/** The CLI's settings. The only place in apps/cli that reads `process.env` (style.md rule 8). */
export interface CliConfig {
  /** `DATABASE_URL`, required by every command that touches the database. */
  databaseUrl: string;
  /** `PLAN`: plan name for workspaces created by `bootstrap`; default `self_hosted`. */
  plan: string;
  /** `SVC_DEBUG=1`: print stacks of unexpected errors. */
  debug: boolean;
}

export function loadCliConfig(env: NodeJS.ProcessEnv = process.env): CliConfig {
  const databaseUrl = env.DATABASE_URL?.trim();
  if (!databaseUrl) {
    throw new CliError('DATABASE_URL is not set');
  }
  const plan = env.PLAN?.trim() || 'self_hosted';
  return { databaseUrl, plan, debug: isDebug(env) };
}

/** Readable before the rest of the config is valid, so even a config error can show a stack. */
export function isDebug(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.SVC_DEBUG === '1' || env.SVC_DEBUG === 'true';
}

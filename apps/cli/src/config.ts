import { loadConfigFrom, type ResolvedTemporal } from '@svc/common';
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

/**
 * The Temporal connection, resolved exactly as the API and the worker resolve it (the standard
 * `TEMPORAL_*` variables, the `temporal:` section of `SVC_CONFIG`, a Temporal config file profile):
 * the whole service configuration is validated on the way, so a bad setting is named here too.
 */
export function loadTemporalSettings(env: NodeJS.ProcessEnv = process.env): ResolvedTemporal {
  try {
    return loadConfigFrom(env).temporal;
  } catch (err) {
    throw new CliError((err as Error).message.replace(/\n\s*/g, '; ').replace(':;', ':'));
  }
}

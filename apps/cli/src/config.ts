import { type AppConfig, loadConfigFrom, type ResolvedTemporal } from '@svc/common';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CliError } from './errors';

/**
 * Where `scripts/start.sh` writes the URL of the embedded PostgreSQL it started (inside its data
 * folder, `SVC_DATA_DIR`, default `.data/`), so `svc` run from the project folder finds it.
 */
export const DATABASE_URL_FILE = 'database-url';

/** The CLI's settings. The only place in apps/cli that reads `process.env` (style.md rule 8). */
export interface CliConfig {
  /**
   * `DATABASE_URL`, required by every command that touches the database; without it, the URL
   * `npm start` wrote into its data folder (`$SVC_DATA_DIR` or `./.data`).
   */
  databaseUrl: string;
  /** `PLAN`: plan name for workspaces created by `bootstrap`; default `self_hosted`. */
  plan: string;
  /** `SVC_DEBUG=1`: print stacks of unexpected errors. */
  debug: boolean;
}

export function loadCliConfig(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): CliConfig {
  const dataDir = resolve(cwd, env.SVC_DATA_DIR?.trim() || '.data');
  const databaseUrl = env.DATABASE_URL?.trim() || readTrimmedFile(join(dataDir, DATABASE_URL_FILE));
  if (!databaseUrl) {
    throw new CliError(
      `DATABASE_URL is not set, and ${join(dataDir, DATABASE_URL_FILE)} (written by npm start for its embedded ` +
        'PostgreSQL) does not exist: set DATABASE_URL, or run svc from the project folder while npm start runs',
    );
  }
  const plan = env.PLAN?.trim() || 'self_hosted';
  return { databaseUrl, plan, debug: isDebug(env) };
}

function readTrimmedFile(path: string): string | undefined {
  return existsSync(path) ? readFileSync(path, 'utf8').trim() || undefined : undefined;
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
  return loadServiceConfig(env).temporal;
}

/**
 * The whole service configuration, as the API and the worker load it (`svc doctor` checks what it
 * describes); the database URL as every database command finds it, when there is one.
 */
export function loadServiceConfig(env: NodeJS.ProcessEnv = process.env, cwd?: string): AppConfig {
  let databaseUrl: string | undefined;
  try {
    databaseUrl = cwd === undefined ? undefined : loadCliConfig(env, cwd).databaseUrl;
  } catch {
    databaseUrl = undefined; // the configuration's default then
  }
  try {
    return loadConfigFrom(databaseUrl ? { ...env, DATABASE_URL: databaseUrl } : env);
  } catch (err) {
    throw new CliError((err as Error).message.replace(/\n\s*/g, '; ').replace(':;', ':'));
  }
}

/**
 * `svc doctor`: the configuration it checks, and the API to ask for `/readyz` and `/metrics`:
 * `--api-url`, else `SVC_API_URL`, else null (then the configured HOST and PORT).
 */
export function loadDoctorSettings(
  flags: { apiUrl?: string },
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): { config: AppConfig; apiUrl: string | null } {
  const config = loadServiceConfig(env, cwd);
  return { config, apiUrl: flags.apiUrl?.trim() || env.SVC_API_URL?.trim() || null };
}

/** Where `scripts/start.sh` writes the API key it bootstraps (inside its data folder, like the URL). */
export const API_KEY_FILE = 'api-key';

export const DEFAULT_API_URL = 'http://127.0.0.1:3000/api/v1';

/** How the jobs-as-code commands (`apply`, `diff`, `export`) reach the API (docs/jobs-as-code.md). */
export interface ApiSettings {
  /** `--api-url`, else `SVC_API_URL`, else `http://127.0.0.1:3000/api/v1`: the API's `/api/v1` URL. */
  apiUrl: string;
  /** `--api-key`, else `SVC_API_KEY`, else the key `npm start` wrote into its data folder. */
  apiKey: string;
}

export function loadApiSettings(
  flags: { apiUrl?: string; apiKey?: string },
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): ApiSettings {
  const apiUrl = (flags.apiUrl?.trim() || env.SVC_API_URL?.trim() || DEFAULT_API_URL).replace(/\/+$/, '');
  let parsed: URL;
  try {
    parsed = new URL(apiUrl);
  } catch {
    throw new CliError(`the API URL is not a URL: ${apiUrl} (--api-url or SVC_API_URL, e.g. ${DEFAULT_API_URL})`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new CliError(`the API URL must be http or https: ${apiUrl}`);
  }
  const keyFile = join(resolve(cwd, env.SVC_DATA_DIR?.trim() || '.data'), API_KEY_FILE);
  const apiKey = flags.apiKey?.trim() || env.SVC_API_KEY?.trim() || readTrimmedFile(keyFile);
  if (!apiKey) {
    throw new CliError(
      `no API key: pass --api-key or set SVC_API_KEY (${keyFile}, written by npm start, does not exist either)`,
    );
  }
  return { apiUrl, apiKey };
}

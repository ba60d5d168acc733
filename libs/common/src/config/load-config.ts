import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { AppConfig, buildConfig } from './config';

let cached: AppConfig | null = null;

/**
 * The one place that reads `process.env` (style.md rule 8): the YAML file named by `SVC_CONFIG`
 * (optional) plus environment overrides, validated once and cached.
 */
export function loadConfig(): AppConfig {
  if (cached) {
    return cached;
  }
  cached = loadConfigFrom(process.env);
  return cached;
}

/**
 * The same without the cache, from a given environment (the `svc` CLI passes its own): the YAML
 * file named by `SVC_CONFIG` plus the environment, validated.
 */
export function loadConfigFrom(env: NodeJS.ProcessEnv): AppConfig {
  const path = env.SVC_CONFIG;
  const file = path ? (parse(readFileSync(path, 'utf8')) as Record<string, unknown>) : {};
  return buildConfig(file ?? {}, withCodecKeysFile(withKeyFile(env)));
}

/**
 * `SECRETS_ENCRYPTION_KEY_FILE` names a file holding the key (Docker secrets, the data folder of
 * `npm start`); `SECRETS_ENCRYPTION_KEY` itself wins when both are set.
 */
function withKeyFile(env: NodeJS.ProcessEnv): Record<string, string | undefined> {
  const key = readVariableFile(env, 'SECRETS_ENCRYPTION_KEY', (err) => (err as Error).message);
  return key === null ? env : { ...env, SECRETS_ENCRYPTION_KEY: key };
}

/**
 * The trimmed content of the file `<variable>_FILE` names, or null when it names none or
 * `variable` itself is set. An unreadable file throws, naming the variable, the path and
 * `reason(error)`.
 */
function readVariableFile(
  env: Record<string, string | undefined>,
  variable: string,
  reason: (err: unknown) => string,
): string | null {
  const file = env[`${variable}_FILE`];
  if (!file || env[variable]) {
    return null;
  }
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (err) {
    throw new Error(`Invalid configuration:\n  ${variable}_FILE: cannot read ${file} (${reason(err)})`);
  }
}

/**
 * `TEMPORAL_CODEC_KEYS_FILE` names a file holding the payload codec's keys (`id=key`, one per line
 * or comma-separated; docs/operations.md → Payload encryption); `TEMPORAL_CODEC_KEYS` wins when
 * both are set. The message of an unreadable file names the variable and the path, never content.
 */
export function withCodecKeysFile(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const keys = readVariableFile(env, 'TEMPORAL_CODEC_KEYS', (err) => (err as NodeJS.ErrnoException).code ?? 'error');
  if (keys === null) {
    return env;
  }
  if (keys === '') {
    throw new Error(`Invalid configuration:\n  TEMPORAL_CODEC_KEYS_FILE: ${env.TEMPORAL_CODEC_KEYS_FILE} is empty`);
  }
  return { ...env, TEMPORAL_CODEC_KEYS: keys };
}

/** Tests change the environment between apps; this drops the cached config. */
export function resetConfigForTests(): void {
  cached = null;
}

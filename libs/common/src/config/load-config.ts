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
  const keyFile = env.SECRETS_ENCRYPTION_KEY_FILE;
  if (!keyFile || env.SECRETS_ENCRYPTION_KEY) {
    return env;
  }
  let key: string;
  try {
    key = readFileSync(keyFile, 'utf8').trim();
  } catch (err) {
    throw new Error(
      `Invalid configuration:\n  SECRETS_ENCRYPTION_KEY_FILE: cannot read ${keyFile} (${(err as Error).message})`,
    );
  }
  return { ...env, SECRETS_ENCRYPTION_KEY: key };
}

/**
 * `TEMPORAL_CODEC_KEYS_FILE` names a file holding the payload codec's keys (`id=key`, one per line
 * or comma-separated; docs/operations.md → Payload encryption); `TEMPORAL_CODEC_KEYS` wins when
 * both are set. The message of an unreadable file names the variable and the path, never content.
 */
export function withCodecKeysFile(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const keysFile = env.TEMPORAL_CODEC_KEYS_FILE;
  if (!keysFile || env.TEMPORAL_CODEC_KEYS) {
    return env;
  }
  let keys: string;
  try {
    keys = readFileSync(keysFile, 'utf8').trim();
  } catch (err) {
    throw new Error(
      `Invalid configuration:\n  TEMPORAL_CODEC_KEYS_FILE: cannot read ${keysFile} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  if (keys === '') {
    throw new Error(`Invalid configuration:\n  TEMPORAL_CODEC_KEYS_FILE: ${keysFile} is empty`);
  }
  return { ...env, TEMPORAL_CODEC_KEYS: keys };
}

/** Tests change the environment between apps; this drops the cached config. */
export function resetConfigForTests(): void {
  cached = null;
}

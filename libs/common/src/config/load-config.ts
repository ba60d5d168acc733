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
  const path = process.env.SVC_CONFIG;
  const file = path ? (parse(readFileSync(path, 'utf8')) as Record<string, unknown>) : {};
  cached = buildConfig(file ?? {}, process.env);
  return cached;
}

/** Tests change the environment between apps; this drops the cached config. */
export function resetConfigForTests(): void {
  cached = null;
}

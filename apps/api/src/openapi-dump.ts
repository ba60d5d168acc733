#!/usr/bin/env node
/**
 * Writes the API's OpenAPI document to a file without serving anything (scripts/test.sh lints it
 * with `redocly lint`; clients can generate from it). The document is the one `GET
 * /api/v1/openapi.yaml` serves with the default configuration: the app is assembled, not started
 * (PostgreSQL and Temporal are never reached), and asked for it in-process.
 *
 * Usage: node dist/apps/api/src/openapi-dump.js [--all-features] [--jobs-file-schema] <out.yaml|out.json>
 *   (or `npm run openapi -- <out>`). `--all-features` turns on what is optional (the command sink):
 *   the document the typed client is generated from (scripts/api-client.mjs). `--jobs-file-schema`
 *   writes the jobs file's JSON Schema cut from it instead (scripts/jobs-file-schema.mjs).
 */
import 'reflect-metadata';
import { buildConfig } from '@svc/common';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createApp } from './app';

async function main(args: string[]): Promise<void> {
  const allFeatures = args.includes('--all-features');
  const out = args.find((arg) => !arg.startsWith('--'));
  if (!out) {
    throw new Error('usage: openapi-dump [--all-features] <out.yaml|out.json>');
  }
  const config = buildConfig(
    // A throwaway secrets key: the document does not depend on it, and nothing is decrypted.
    {
      secrets: { encryption_key: randomBytes(32).toString('base64') },
      ...(allFeatures ? { sinks: { command: { enabled: true } } } : {}),
    },
    { DATABASE_URL: 'postgres://unused@127.0.0.1:1/unused', TEMPORAL_ADDRESS: '127.0.0.1:1' },
  );
  const app = await createApp({ config, logLevels: [] });
  try {
    const format = out.endsWith('.json') ? 'json' : 'yaml';
    const url = args.includes('--jobs-file-schema') ? '/api/v1/schemas/jobs-file.json' : `/api/v1/openapi.${format}`;
    const response = await app.inject({ method: 'GET', url });
    if (response.statusCode !== 200) {
      throw new Error(`GET ${url} answered ${response.statusCode}: ${response.body}`);
    }
    writeFileSync(out, response.body);
  } finally {
    await app.close();
  }
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);

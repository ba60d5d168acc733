#!/usr/bin/env node
/**
 * Writes the API's OpenAPI document to a file without serving anything (scripts/test.sh lints it
 * with `redocly lint`; clients can generate from it). The document is the one `GET
 * /api/v1/openapi.yaml` serves with the default configuration: the app is assembled, not started
 * (PostgreSQL and Temporal are never reached), and asked for it in-process.
 *
 * Usage: node dist/apps/api/src/openapi-dump.js <out.yaml|out.json>   (or `npm run openapi -- <out>`)
 */
import 'reflect-metadata';
import { buildConfig } from '@svc/common';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createApp } from './app';

async function main(out: string | undefined): Promise<void> {
  if (!out) {
    throw new Error('usage: openapi-dump <out.yaml|out.json>');
  }
  const config = buildConfig(
    // A throwaway secrets key: the document does not depend on it, and nothing is decrypted.
    { secrets: { encryption_key: randomBytes(32).toString('base64') } },
    { DATABASE_URL: 'postgres://unused@127.0.0.1:1/unused', TEMPORAL_ADDRESS: '127.0.0.1:1' },
  );
  const app = await createApp({ config, logLevels: ['error'] });
  try {
    const format = out.endsWith('.json') ? 'json' : 'yaml';
    const response = await app.inject({ method: 'GET', url: `/api/v1/openapi.${format}` });
    if (response.statusCode !== 200) {
      throw new Error(`GET /api/v1/openapi.${format} answered ${response.statusCode}: ${response.body}`);
    }
    writeFileSync(out, response.body);
  } finally {
    await app.close();
  }
}

main(process.argv[2]).then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);

#!/usr/bin/env node
// The jobs file's JSON Schema (issue 42; docs/api.md → Jobs files), committed as
// `schemas/jobs-file.schema.json` for editors and CI: what `GET /api/v1/schemas/jobs-file.json`
// serves, cut from the OpenAPI document with every optional feature on (as the typed client is).
//
//   node scripts/jobs-file-schema.mjs          (npm run schemas)  regenerate the committed file
//   node scripts/jobs-file-schema.mjs --check  (in npm run check)  fail when it is not what the server gives
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(root, 'schemas/jobs-file.schema.json');
const check = process.argv.includes('--check');

const dir = mkdtempSync(join(tmpdir(), 'svc-jobs-file-'));
let generated;
try {
  const out = join(dir, 'jobs-file.schema.json');
  execFileSync(
    process.execPath,
    ['-r', '@swc-node/register', 'apps/api/src/openapi-dump.ts', '--all-features', '--jobs-file-schema', out],
    { cwd: root, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, LOG_LEVEL: 'fatal' } },
  );
  const schema = JSON.parse(readFileSync(out, 'utf8'));
  generated = await prettier.format(JSON.stringify(schema), {
    ...(await prettier.resolveConfig(target)),
    filepath: target,
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}

if (check) {
  let committed = '';
  try {
    committed = readFileSync(target, 'utf8');
  } catch {
    // missing: reported below
  }
  if (committed !== generated) {
    console.error('schemas/jobs-file.schema.json is not what the server gives: run `npm run schemas` and commit it.');
    process.exit(1);
  }
  console.log('schemas/jobs-file.schema.json matches the server’s OpenAPI document');
} else {
  writeFileSync(target, generated);
  console.log('wrote schemas/jobs-file.schema.json');
}

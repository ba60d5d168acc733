// What the generators of committed files (scripts/api-client.mjs, scripts/jobs-file-schema.mjs)
// share: the server's document dumped in-process with every optional feature on
// (apps/api/src/openapi-dump.ts, no database, no Temporal), formatted as the repository formats
// the target, then written, or compared with the committed file under `--check`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The JSON `openapi-dump.ts --all-features [...options] <file>` writes (the OpenAPI document by default). */
export function dumpFromServer(options = []) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-openapi-'));
  try {
    const out = join(dir, 'dump.json');
    execFileSync(
      process.execPath,
      ['-r', '@swc-node/register', 'apps/api/src/openapi-dump.ts', '--all-features', ...options, out],
      { cwd: root, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, LOG_LEVEL: 'fatal' } },
    );
    return JSON.parse(readFileSync(out, 'utf8'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `source` formatted by prettier as the repository's configuration says for `target`. */
export async function formatFor(target, source) {
  return prettier.format(source, { ...(await prettier.resolveConfig(target)), filepath: target });
}

/**
 * Writes `generated` to `target`, or with `--check` exits 1 when the committed file differs
 * (`stale`: what to tell the person who runs the check).
 */
export function writeOrCheck(target, generated, stale) {
  const name = relative(root, target);
  if (!process.argv.includes('--check')) {
    writeFileSync(target, generated);
    console.log(`wrote ${name}`);
    return;
  }
  let committed = '';
  try {
    committed = readFileSync(target, 'utf8');
  } catch {
    // missing: reported below
  }
  if (committed !== generated) {
    console.error(`${name} is not what the server’s OpenAPI document gives: ${stale}`);
    process.exit(1);
  }
  console.log(`${name} matches the server’s OpenAPI document`);
}

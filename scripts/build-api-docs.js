#!/usr/bin/env node
// Part of `npm run build` (after tsc): the API reference as one static page,
// dist/api-docs/index.html, which the API serves at /api/v1/docs (docs/api.md → API reference).
// Redocly renders the OpenAPI document the API serves (dumped by openapi-dump, default settings);
// --inlineBundle puts Redoc's script into the page, so it loads nothing from a CDN.
const { execFileSync } = require('node:child_process');
const { mkdirSync, mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join, resolve } = require('node:path');

const root = resolve(__dirname, '..');
const outDir = join(root, 'dist', 'api-docs');
const work = mkdtempSync(join(tmpdir(), 'svc-api-docs-'));
// Quiet unless it fails: the dump logs the unreachable Temporal of its throwaway settings, and
// Redocly prints notices; both stay out of a clean build's output.
const run = (args, env = {}) => {
  try {
    execFileSync(process.execPath, args, { cwd: root, stdio: 'pipe', env: { ...process.env, ...env } });
  } catch (err) {
    process.stderr.write(`${err.stdout ?? ''}${err.stderr ?? ''}`);
    throw new Error(`build-api-docs: ${args.slice(0, 2).join(' ')} failed`);
  }
};
try {
  const document = join(work, 'openapi.yaml');
  run([join(root, 'dist/apps/api/src/openapi-dump.js'), document]);
  mkdirSync(outDir, { recursive: true });
  run(
    [
      require.resolve('@redocly/cli/bin/cli.js'),
      'build-docs',
      document,
      '--inlineBundle',
      '--title',
      'Scheduled Job Service API',
      '--output',
      join(outDir, 'index.html'),
    ],
    // The page must not report to Redocly either (its telemetry is a browser call to their host).
    { REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}

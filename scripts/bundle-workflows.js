#!/usr/bin/env node
// Writes dist/workflow-bundle.js from the compiled workflows (run by `npm run build`), and
// dist/workflow-bundle-traced.js, the same code with the tracing interceptor module
// (docs/operations.md → Traces); the production worker loads one of them instead of bundling at
// start-up. Exits non-zero on failure.
const { bundleWorkflowCode } = require('@temporalio/worker');
const { writeFileSync } = require('node:fs');
const { resolve } = require('node:path');

const dist = resolve(__dirname, '..', 'dist');
const workflowsPath = resolve(dist, 'temporal/workflows/index.js');
const bundles = [
  { file: 'workflow-bundle.js', workflowInterceptorModules: [] },
  {
    file: 'workflow-bundle-traced.js',
    workflowInterceptorModules: [resolve(dist, 'temporal/workflows/tracing/interceptors.js')],
  },
];

(async () => {
  for (const { file, workflowInterceptorModules } of bundles) {
    const { code } = await bundleWorkflowCode({ workflowsPath, workflowInterceptorModules, logger: undefined });
    writeFileSync(resolve(dist, file), code);
  }
})().catch((err) => {
  console.error(`workflow bundle failed: ${err && err.message}`);
  process.exit(1);
});

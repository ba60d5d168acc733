#!/usr/bin/env node
// Writes dist/workflow-bundle.js from the compiled workflows (run by `npm run build`), and
// dist/workflow-bundle-traced.js, the same code with the tracing interceptor module
// (docs/operations.md → Traces); the production worker loads one of them instead of bundling at
// start-up. What goes into each is workflowBundleOptions' rule (apps/worker/src/temporal/
// workflow-bundle.ts). Exits non-zero on failure.
const { bundleWorkflowCode } = require('@temporalio/worker');
const { writeFileSync } = require('node:fs');
const { resolve } = require('node:path');

const dist = resolve(__dirname, '..', 'dist');
const { workflowBundleFile, workflowBundleOptions } = require(
  resolve(dist, 'apps/worker/src/temporal/workflow-bundle.js'),
);

(async () => {
  for (const traced of [false, true]) {
    const options = workflowBundleOptions(resolve(dist, 'temporal/workflows'), traced);
    const { code } = await bundleWorkflowCode({ ...options, logger: undefined });
    writeFileSync(resolve(dist, workflowBundleFile(traced)), code);
  }
})().catch((err) => {
  console.error(`workflow bundle failed: ${err && err.message}`);
  process.exit(1);
});

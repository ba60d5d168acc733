#!/usr/bin/env node
// Writes dist/workflow-bundle.js from the compiled workflows (run by `npm run build`); the
// production worker loads it instead of bundling at start-up. Exits non-zero on failure.
const { bundleWorkflowCode } = require('@temporalio/worker');
const { writeFileSync } = require('node:fs');
const { resolve } = require('node:path');

const dist = resolve(__dirname, '..', 'dist');
bundleWorkflowCode({ workflowsPath: resolve(dist, 'temporal/workflows/index.js'), logger: undefined })
  .then(({ code }) => {
    writeFileSync(resolve(dist, 'workflow-bundle.js'), code);
  })
  .catch((err) => {
    console.error(`workflow bundle failed: ${err && err.message}`);
    process.exit(1);
  });

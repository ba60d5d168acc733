#!/usr/bin/env node
// Replays every history in temporal/test/histories against the current workflow code and prints
// `{"replayed": n, "failures": [...]}`. Runs as its own process because protobufjs type checks do
// not survive jest's module registry (replay.spec.ts spawns it).
const { bundleWorkflowCode, DefaultLogger, Runtime, Worker } = require('@temporalio/worker');
const { readdirSync, readFileSync } = require('node:fs');
const { resolve } = require('node:path');

const root = resolve(__dirname, '../..');

async function main() {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const dir = resolve(__dirname, 'histories');
  const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  const bundle = await bundleWorkflowCode({
    workflowsPath: resolve(root, 'temporal/workflows/index.ts'),
    logger: new DefaultLogger('ERROR'),
    webpackConfigHook: (config) => {
      config.resolve = config.resolve || {};
      config.resolve.alias = {
        ...(config.resolve.alias || {}),
        '@svc/common': resolve(root, 'libs/common/src'),
        '@svc/workflows': resolve(root, 'temporal/workflows'),
      };
      return config;
    },
  });
  const histories = files.map((file) => ({
    workflowId: file,
    history: JSON.parse(readFileSync(resolve(dir, file), 'utf8')),
  }));
  const failures = [];
  for await (const result of Worker.runReplayHistories({ workflowBundle: bundle }, histories)) {
    if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
  }
  console.log(JSON.stringify({ replayed: files.length, failures }));
}

main().catch((err) => {
  console.log(JSON.stringify({ replayed: 0, failures: [`replay crashed: ${err && err.message}`] }));
  process.exit(1);
});

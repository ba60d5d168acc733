#!/usr/bin/env node
// Replays every history in temporal/test/histories against the current workflow code, bundled
// both without and with the tracing interceptors (docs/operations.md → Traces: turning tracing on
// or off must not change what a replay computes), and prints `{"replayed": n, "failures": [...]}`
// with n counting each history once per bundle. Each bundle is made by the same rule as the
// production ones (workflowBundleOptions). Runs as its own process because protobufjs type checks do
// not survive jest's module registry (replay.spec.ts spawns it).
const { bundleWorkflowCode, DefaultLogger, Runtime, Worker } = require('@temporalio/worker');
const { readdirSync, readFileSync } = require('node:fs');
const { resolve } = require('node:path');

const root = resolve(__dirname, '../..');
// The production bundles' rule (shared modules included); this file runs under @swc-node/register.
const { workflowBundleOptions } = require('../../apps/worker/src/temporal/workflow-bundle.ts');

async function main() {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const dir = resolve(__dirname, 'histories');
  const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  const workflowsDir = resolve(root, 'temporal/workflows');
  const bundles = [
    { name: 'untraced', traced: false },
    { name: 'traced', traced: true },
  ];
  const failures = [];
  let replayed = 0;
  for (const { name, traced } of bundles) {
    const options = workflowBundleOptions(workflowsDir, traced);
    const workflowBundle = await bundleWorkflowCode({ ...options, logger: new DefaultLogger('ERROR') });
    const histories = files.map((file) => ({
      workflowId: file,
      history: JSON.parse(readFileSync(resolve(dir, file), 'utf8')),
    }));
    // The traced bundle hands finished spans to this sink (a worker with tracing on has it).
    const sinks = { svcTraces: { export: { fn: () => undefined } } };
    for await (const result of Worker.runReplayHistories({ workflowBundle, sinks }, histories)) {
      replayed += 1;
      if (result.error) failures.push(`${name} ${result.workflowId}: ${result.error.message}`);
    }
  }
  console.log(JSON.stringify({ replayed, failures }));
}

main().catch((err) => {
  console.log(JSON.stringify({ replayed: 0, failures: [`replay crashed: ${err && err.message}`] }));
  process.exit(1);
});

/**
 * What a new workflow costs the worker's workflow thread before it runs a line: its own copy of
 * every module it imports that the bundle does not share (architecture.md → Shared workflow
 * modules). Bundles `temporal/workflows` twice, by `workflowBundleOptions` and the same without
 * `preloadModules`, and creates N workflows in the SDK's reusable V8 context from each (as the
 * worker's workflow thread does for a new run, or a job woken after eviction), keeping them all:
 * live heap per workflow after a full GC, CPU per creation, modules evaluated per workflow.
 * Also times one entry into the sandbox with and without the `vm` timeout the SDK sets on every
 * entry (its watchdog). Uses the SDK's internal `ReusableVMWorkflowCreator`, so it is tied to
 * the pinned SDK version.
 *
 *   node --expose-gc -r @swc-node/register bench/workflow-modules.ts [N=2000]
 */
import { TypedSearchAttributes } from '@temporalio/common';
import { bundleWorkflowCode } from '@temporalio/worker';
import { ReusableVMWorkflowCreator } from '@temporalio/worker/lib/workflow/reusable-vm';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { createContext, Script } from 'node:vm';
import { workflowBundleOptions } from '../apps/worker/src/temporal/workflow-bundle';

const n = Number(process.argv[2] ?? 2000);
const gc = (globalThis as { gc?: () => void }).gc;
const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

function info(i: number) {
  const now = new Date();
  return {
    workflowId: `bench-${i}`,
    runId: `run-${i}`,
    workflowType: 'runWorkflow',
    searchAttributes: {},
    typedSearchAttributes: new TypedSearchAttributes(),
    taskQueue: 'bench',
    namespace: 'default',
    firstExecutionRunId: `run-${i}`,
    attempt: 1,
    startTime: now,
    runStartTime: now,
    historyLength: 1,
    historySize: 0,
    continueAsNewSuggested: false,
    currentBuildId: '',
    unsafe: { now: () => Date.now(), isReplaying: false, isReplayingHistoryEvents: false },
    priority: {},
  };
}

async function measure(label: string, preload: boolean) {
  const options = workflowBundleOptions(resolve(__dirname, '../temporal/workflows'), false);
  const { code } = await bundleWorkflowCode({
    ...options,
    preloadModules: preload ? options.preloadModules : [],
    logger: quiet,
  });
  const emptyMap = JSON.stringify({ version: 3, sources: [], names: [], mappings: '' });
  const creator = await ReusableVMWorkflowCreator.create(
    { code, filename: `${label}.js`, sourceMap: emptyMap } as never,
    5_000,
    new Set(),
    undefined,
  );
  const create = (i: number) =>
    creator.createWorkflow({
      info: info(i),
      randomnessSeed: [1, 2, 3, i],
      now: Date.now(),
      showStackTraceSources: false,
    } as never);
  const kept = [await create(-1)];
  gc!();
  const heapBefore = getHeapStatistics().used_heap_size;
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    kept.push(await create(i));
  }
  const cpu = process.cpuUsage(cpuBefore);
  gc!();
  const heapAfter = getHeapStatistics().used_heap_size;
  const modules = (kept[0] as unknown as { activator: { moduleCache: Map<string, unknown> } }).activator.moduleCache
    .size;
  console.log(
    `| ${label.padEnd(9)} | ${((heapAfter - heapBefore) / n / 1024).toFixed(1).padStart(16)} | ${((cpu.user + cpu.system) / n / 1000).toFixed(3).padStart(14)} | ${String(modules).padStart(20)} |`,
  );
  for (const workflow of kept) {
    await workflow.dispose();
  }
  await creator.destroy();
}

function sandboxEntry() {
  const context = createContext({});
  const script = new Script('1 + 1');
  const calls = 20_000;
  const per = (options: { timeout?: number }) => {
    const before = process.cpuUsage();
    for (let i = 0; i < calls; i++) {
      script.runInContext(context, options);
    }
    const cpu = process.cpuUsage(before);
    return ((cpu.user + cpu.system) / calls).toFixed(1);
  };
  console.log(
    `\none sandbox entry, CPU: ${per({ timeout: 5_000 })} µs with the SDK's 5 s timeout (a watchdog thread), ${per({})} µs without`,
  );
}

async function main() {
  if (!gc) {
    throw new Error('run with node --expose-gc');
  }
  console.log(
    `workflow-modules ${new Date().toISOString()}: ${n} workflows per bundle; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}\n`,
  );
  console.log('| bundle    | KiB per workflow | CPU ms per new | modules per workflow |');
  console.log('| --------- | ---------------: | -------------: | -------------------: |');
  await measure('unshared', false);
  await measure('shared', true);
  sandboxEntry();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

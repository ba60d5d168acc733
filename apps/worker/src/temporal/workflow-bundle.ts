import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/** The repository root when running from source, `dist/` when running the build. */
export const ROOT = resolve(__dirname, '../../../..');

/** The workflow interceptor module of traced bundles, relative to the workflows folder. */
const WORKFLOW_TRACING_MODULE = 'tracing/interceptors';

/** The prebuilt bundle for a worker with tracing on or off (scripts/bundle-workflows.js writes both). */
export function workflowBundleFile(traced: boolean): string {
  return traced ? 'workflow-bundle-traced.js' : 'workflow-bundle.js';
}

/** The `bundleWorkflowCode` options of one bundle (a subset of the SDK's `BundleOptions`). */
export interface WorkflowBundleOptions {
  workflowsPath: string;
  workflowInterceptorModules: string[];
  preloadModules: string[];
  webpackConfigHook?: typeof withWorkflowAliases;
}

/**
 * What goes into a workflow bundle, the one rule for every place that makes one (the build's
 * `scripts/bundle-workflows.js`, a worker started from source, the replay and workflow tests).
 * `workflowsDir` holds `index` and `tracing/` as TypeScript sources or as the build's JavaScript.
 *
 * `preloadModules` are evaluated once per workflow thread and shared by every workflow in it (the
 * SDK's `reuseV8Context`), instead of once for each new workflow: a run workflow costs about half
 * the CPU to create, and each workflow in the cache holds about 24 KiB less (docs/benchmarks.md
 * → "Shared workflow modules"). Only modules whose module scope holds no per-workflow state may
 * be shared: the SDK's `@temporalio/workflow` entry, and our workflow modules, which keep their
 * state inside the workflow functions. The traced bundle's `tracing/new-trace` holds the current
 * workflow's tracer in module scope, so that bundle shares the SDK's entry only.
 */
export function workflowBundleOptions(workflowsDir: string, traced: boolean): WorkflowBundleOptions {
  const fromSource = existsSync(resolve(workflowsDir, 'index.ts'));
  const ext = fromSource ? 'ts' : 'js';
  const workflowsPath = resolve(workflowsDir, `index.${ext}`);
  return {
    workflowsPath,
    workflowInterceptorModules: traced ? [resolve(workflowsDir, `${WORKFLOW_TRACING_MODULE}.${ext}`)] : [],
    preloadModules: traced ? ['@temporalio/workflow'] : ['@temporalio/workflow', workflowsPath],
    ...(fromSource ? { webpackConfigHook: withWorkflowAliases } : {}),
  };
}

/** Resolves the `@svc/*` imports of workflow code when bundling TypeScript sources. */
export function withWorkflowAliases<T extends { resolve?: { alias?: unknown } }>(config: T): T {
  config.resolve = config.resolve ?? {};
  config.resolve.alias = {
    ...((config.resolve.alias as Record<string, string>) ?? {}),
    '@svc/workflow-contract': resolve(ROOT, 'libs/workflow-contract/src'),
    '@svc/schedule': resolve(ROOT, 'libs/schedule/src'),
    // The frozen v1 copy (test/fixtures/workflows-v1) still imports `@svc/common/ids`.
    '@svc/common': resolve(ROOT, 'libs/common/src'),
    '@svc/workflows': resolve(ROOT, 'temporal/workflows'),
  };
  return config;
}

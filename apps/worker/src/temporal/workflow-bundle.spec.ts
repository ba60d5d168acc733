import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { workflowBundleOptions, workflowBundleFile } from './workflow-bundle';

describe('workflowBundleOptions', () => {
  const sources = resolve(__dirname, '../../../../temporal/workflows');

  it('should share the SDK entry and the workflow modules in the untraced bundle', () => {
    const options = workflowBundleOptions(sources, false);
    expect(options.workflowsPath).toBe(resolve(sources, 'index.ts'));
    expect(options.workflowInterceptorModules).toEqual([]);
    expect(options.preloadModules).toEqual(['@temporalio/workflow', options.workflowsPath]);
    expect(options.webpackConfigHook).toBeDefined();
  });

  it('should not share the workflow modules when tracing keeps per-workflow state in them', () => {
    const options = workflowBundleOptions(sources, true);
    expect(options.workflowInterceptorModules).toEqual([resolve(sources, 'tracing/interceptors.ts')]);
    expect(options.preloadModules).toEqual(['@temporalio/workflow']);
  });

  it('should bundle the compiled JavaScript without the source aliases', () => {
    const compiled = resolve(__dirname, '../../../../dist/temporal/workflows');
    const options = workflowBundleOptions(compiled, false);
    expect(options.workflowsPath).toBe(resolve(compiled, 'index.js'));
    expect(options.webpackConfigHook).toBeUndefined();
    expect(workflowBundleFile(true)).toBe('workflow-bundle-traced.js');
  });
});

describe('shared workflow modules', () => {
  const workflows = resolve(__dirname, '../../../../temporal/workflows');
  /** The workflow contract, which the workflows import and the bundle shares with them. */
  const contract = resolve(__dirname, '../../../../libs/workflow-contract/src');

  /** Every workflow source file that a bundle evaluates once and shares (all but tracing/ and tests). */
  function sharedSources(dir: string): string[] {
    return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = resolve(dir, entry.name);
      if (entry.isDirectory()) {
        return entry.name === 'tracing' ? [] : sharedSources(path);
      }
      return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
    });
  }

  it('should keep no mutable module-level variable, which every workflow of a thread would share', () => {
    const sources = [...sharedSources(workflows), ...sharedSources(contract)];
    expect(sources.length).toBeGreaterThan(10);
    const offenders = sources.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line, i) => ({ line, at: `${file}:${i + 1}` }))
        .filter(({ line }) => /^(export\s+)?(let|var)\s/.test(line))
        .map(({ at, line }) => `${at}: ${line.trim()}`),
    );
    expect(offenders).toEqual([]);
  });
});

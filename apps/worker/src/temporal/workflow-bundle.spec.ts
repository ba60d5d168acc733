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

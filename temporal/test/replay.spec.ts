import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * Every recorded history must replay against today's workflow code without non-determinism
 * (style.md rule 12): a workflow change that breaks an old history needs `patched()`.
 */
describe('workflow replay', () => {
  const files = readdirSync(resolve(__dirname, 'histories')).filter((f) => f.endsWith('.json'));

  it('should have recorded histories for both workflows', () => {
    expect(files.some((f) => f.startsWith('jobWorkflow-'))).toBe(true);
    expect(files.some((f) => f.startsWith('runWorkflow-'))).toBe(true);
    // Issue 45: the backfill workflow, and a run it opened (`trigger: backfill`).
    expect(files.some((f) => f.startsWith('backfillWorkflow-'))).toBe(true);
    expect(files.some((f) => f.startsWith('runWorkflow-backfill-'))).toBe(true);
  });

  it('should replay every recorded history, with the tracing interceptors and without', () => {
    let output: string;
    try {
      output = execFileSync(process.execPath, ['-r', '@swc-node/register', resolve(__dirname, 'replay-histories.js')], {
        encoding: 'utf8',
      });
    } catch (err) {
      output = (err as { stdout?: string }).stdout ?? '';
    }
    const result = JSON.parse(output.trim().split('\n').pop() ?? '{}') as { replayed: number; failures: string[] };
    expect(result.failures).toEqual([]);
    expect(result.replayed).toBe(files.length * 2);
  }, 120_000);
});

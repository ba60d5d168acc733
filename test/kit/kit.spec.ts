import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The kit is test code: no production source (apps, libs, temporal, outside specs and `test/`
 * folders) imports it, so the build, which leaves `test/` out, never needs it.
 */
const ROOT = resolve(__dirname, '../..');
const KIT = resolve(__dirname);

function productionSources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'dist' || name === 'test') {
      return [];
    }
    if (statSync(path).isDirectory()) {
      return productionSources(path);
    }
    return /\.tsx?$/.test(name) && !/\.(spec|int-spec|e2e-spec|d)\.tsx?$/.test(name) ? [path] : [];
  });
}

/** The specifiers of a source that reach the kit: relative ones resolving into it. */
function kitImports(file: string): string[] {
  const specifiers = [
    ...readFileSync(file, 'utf8').matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\(\s*)['"]([^'"]+)['"]/g),
  ].map((m) => m[1]);
  return specifiers.filter((s) => s.startsWith('.') && resolve(dirname(file), s).startsWith(KIT));
}

describe('test kit', () => {
  it('should be imported by no production source', () => {
    const sources = ['apps', 'libs', 'temporal'].flatMap((dir) => productionSources(join(ROOT, dir)));
    expect(sources.length).toBeGreaterThan(100);
    const problems = sources.flatMap((file) => kitImports(file).map((s) => `${relative(ROOT, file)}: ${s}`));
    expect(problems).toEqual([]);
  });

  it('should tell an import of the kit from others', () => {
    const spec = join(ROOT, 'libs/orchestration/src/job-lifecycle.spec.ts');
    expect(kitImports(spec)).toEqual(['../../../test/kit']);
  });
});

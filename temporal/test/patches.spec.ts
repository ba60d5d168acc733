import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import {
  COMPATIBILITY_CODE,
  type CompatibilityCode,
  MAX_LIFETIME_DAYS,
  oldestDirectUpgrade,
  RETIRED,
} from '../workflows/patches';

/**
 * The patch-age rule (docs/decisions.md → Upgrading running workflows): compatibility code for
 * older executions is registered with its dates in `patches.ts` and leaves the code by its
 * deadline; the workflow sources ask for no patch the registry does not know.
 */
const ROOT = resolve(__dirname, '../..');
/** Where workflow code lives (the frozen v1 copy included), and the contract that names its patch ids. */
const WORKFLOW_SOURCES = ['temporal/workflows', 'libs/workflow-contract/src', 'test/fixtures/workflows-v1'];
const DAY_MS = 86_400_000;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      return sourceFiles(path);
    }
    return name.endsWith('.ts') && !/\.(int-)?spec\.ts$/.test(name) ? [path] : [];
  });
}

function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');
}

/** Every `patched(…)` / `deprecatePatch(…)` argument in the workflow sources, constants resolved. */
function patchIdsInCode(): Map<string, string[]> {
  const files = WORKFLOW_SOURCES.flatMap((dir) => sourceFiles(join(ROOT, dir)));
  // Comments mention patches in prose (`patched(…)`): only code counts.
  const sources = files.map((file) => ({
    file: relative(ROOT, file),
    text: withoutComments(readFileSync(file, 'utf8')),
  }));
  const constants = new Map<string, string>();
  for (const { text } of sources) {
    for (const [, name, value] of text.matchAll(/\bconst\s+([A-Z][A-Z0-9_]*)\s*=\s*'([^']+)'/g)) {
      constants.set(name, value);
    }
  }
  const used = new Map<string, string[]>();
  for (const { file, text } of sources) {
    for (const [call, argument] of text.matchAll(/\b(?:patched|deprecatePatch)\(\s*([^)]*?)\s*\)/g)) {
      const literal = /^'([^']+)'$/.exec(argument)?.[1];
      const id = literal ?? constants.get(argument) ?? `<unresolved ${call}>`;
      used.set(id, [...(used.get(id) ?? []), file]);
    }
  }
  return used;
}

function today(): string {
  return new Date().toISOString().slice(0, 10);
}

function daysBetween(from: string, to: string): number {
  return (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS;
}

describe('compatibility code for older executions (patches.ts)', () => {
  const used = patchIdsInCode();
  const registered = new Map(COMPATIBILITY_CODE.map((entry) => [entry.id, entry]));

  it('should register every patch id the workflow code asks for', () => {
    const unknown = [...used]
      .filter(([id]) => registered.get(id)?.kind !== 'patch')
      .map(([id, files]) => `${id} (${files.join(', ')})`);
    expect(unknown).toEqual([]);
  });

  it('should list only code that is still there (removed code moves to RETIRED)', () => {
    const gone = COMPATIBILITY_CODE.filter((entry) =>
      entry.kind === 'patch' ? !used.has(entry.id) : !(entry.paths ?? []).some((path) => existsSync(join(ROOT, path))),
    ).map((entry) => entry.id);
    expect(gone).toEqual([]);
  });

  it('should name every file of the legacy folders in a legacy entry', () => {
    const listed = COMPATIBILITY_CODE.flatMap((entry) => entry.paths ?? []);
    const legacyFiles = ['temporal/workflows/legacy', 'test/fixtures/workflows-v1']
      .filter((dir) => existsSync(join(ROOT, dir)))
      .flatMap((dir) => sourceFiles(join(ROOT, dir)).map((file) => relative(ROOT, file)));
    expect(legacyFiles.filter((file) => !listed.some((path) => file === path || file.startsWith(`${path}/`)))).toEqual(
      [],
    );
  });

  it.each([...COMPATIBILITY_CODE, ...RETIRED].map((entry) => [entry.id, entry] as const))(
    '%s: dated, with a deadline at most MAX_LIFETIME_DAYS after it shipped',
    (_id, entry: CompatibilityCode) => {
      expect(entry.introduced).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(entry.removeAfter).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      const lifetime = daysBetween(entry.introduced, entry.removeAfter);
      expect(lifetime).toBeGreaterThan(0);
      expect(lifetime).toBeLessThanOrEqual(MAX_LIFETIME_DAYS);
    },
  );

  it('should have removed every piece of compatibility code past its deadline', () => {
    const overdue = COMPATIBILITY_CODE.filter((entry) => entry.removeAfter < today()).map(
      (entry) =>
        `${entry.id} (${entry.kind}, since ${entry.introduced}, due ${entry.removeAfter}): ` +
        'remove it as docs/decisions.md → Upgrading running workflows says',
    );
    expect(overdue).toEqual([]);
  });

  it('should name the oldest release that upgrades directly: the newest retired introduction', () => {
    expect(oldestDirectUpgrade([])).toBeNull();
    const retired = (id: string, introduced: string): CompatibilityCode => ({
      id,
      kind: 'patch',
      introduced,
      removeAfter: introduced,
    });
    expect(
      oldestDirectUpgrade([retired('a', '2027-01-02'), retired('b', '2027-03-04'), retired('c', '2027-02-01')]),
    ).toBe('2027-03-04');
  });
});

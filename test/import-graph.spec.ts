import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The source layering stays true (issue #27): no folder of `apps/api/src` imports one above it,
 * the folders import each other without a cycle, and the dashboard has no import cycle (its pages
 * once imported `AppContext` from `main.tsx`). A scan of relative imports, type-only ones
 * included: a cycle of types is still a cycle to read through.
 *
 * Above the folders, the packages (issue 47): the libraries, the workflow code and the apps import
 * only packages below them (`PACKAGE_LAYERS`), the workflow contract and the workflows only the
 * few they may (`ONLY`), and workflow code is bundled by the worker alone.
 */
const ROOT = resolve(__dirname, '..');
const API = join(ROOT, 'apps/api/src');
const DASHBOARD = join(ROOT, 'apps/dashboard/src');
const NESTJS_LIB = join(ROOT, 'libs/nestjs/src');

/**
 * What `libs/nestjs` (a package apps outside the repo install) may import besides Node builtins and
 * its peer and own dependencies: of this repo, the typed client only (its build bundles it).
 */
const NESTJS_LIB_ALLOWED = ['@svc/api-client'];

/** Every module specifier of one source text (`from 'x'`, `import 'x'`, `import('x')`, `require('x')`). */
function moduleSpecifiers(source: string): string[] {
  const patterns = [
    /^\s*(?:import|export)\b[^;]*?\bfrom\s*['"]([^'"]+)['"]/gm,
    /^\s*import\s*['"]([^'"]+)['"]/gm,
    /\b(?:import|require)\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  return patterns.flatMap((pattern) => [...source.matchAll(pattern)].map((m) => m[1]));
}

/** The imports of `libs/nestjs` that reach into the repo beyond the client: `file: specifier`. */
function nestjsLibProblems(): string[] {
  return sourceFiles(NESTJS_LIB).flatMap((file) =>
    moduleSpecifiers(readFileSync(file, 'utf8'))
      .filter((specifier) => {
        if (specifier.startsWith('.')) {
          return !resolve(dirname(file), specifier).startsWith(NESTJS_LIB);
        }
        return specifier.startsWith('@svc/') && !NESTJS_LIB_ALLOWED.includes(specifier);
      })
      .map((specifier) => `${relative(ROOT, file)}: ${specifier}`),
  );
}

/**
 * The layers of `apps/api/src`, lowest first (docs/architecture.md → Where each kind of code
 * lives). A folder imports only from lower layers; resources (every folder not named here) may
 * also use each other, without a cycle. `(root)` is `app.module.ts`, `app.ts`, `main.ts`.
 */
const API_LAYERS: Partial<Record<string, number>> = {
  config: 0,
  common: 1,
  database: 1,
  temporal: 1,
  auth: 2,
  '(root)': 4,
};
const RESOURCE_LAYER = 3;

type ImportGraph = Map<string, string[]>;

/**
 * The packages of the repository, lowest first (docs/architecture.md → Where each kind of code
 * lives): a package's production sources (specs and `test/` folders left out) import only
 * packages of a lower layer. The workflow contract is the lowest but one: the API, the worker,
 * every library and the workflows share it, and it shares nothing of theirs.
 */
const PACKAGE_LAYERS: Record<string, number> = {
  'libs/schedule': 0,
  'libs/api-client': 0,
  'libs/workflow-contract': 1,
  'libs/nestjs': 1,
  'libs/common': 2,
  'libs/persistence': 3,
  'libs/delivery': 3,
  'libs/orchestration': 4,
  'libs/extensions': 4,
  'temporal/workflows': 5,
  'apps/api': 6,
  'apps/worker': 6,
  'apps/cli': 6,
};

/**
 * What a package may import of the repository, whatever its layer: deterministic code (the
 * contract and the workflows, style.md rule 10) and the package apps install outside the repo.
 */
const ONLY: Partial<Record<string, string[]>> = {
  'libs/workflow-contract': ['libs/schedule'],
  'temporal/workflows': ['libs/workflow-contract', 'libs/schedule'],
  'libs/nestjs': ['libs/api-client'],
};

/** Packages that only these may import: the workflow code is bundled by the worker, nobody calls it. */
const IMPORTED_ONLY_BY: Partial<Record<string, string[]>> = {
  'temporal/workflows': ['apps/worker'],
};

/** The packages outside the repo the contract may import: workflow-safe ones (Temporal's workflow API). */
const CONTRACT_PACKAGES = ['@temporalio/workflow', '@temporalio/common'];

/** `@svc/x` and `@svc/x/*` → the folder they name, from tsconfig.json's `paths`. */
function pathAliases(): Array<{ alias: string; dir: string }> {
  const { compilerOptions } = JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')) as {
    compilerOptions: { paths: Record<string, string[]> };
  };
  return Object.entries(compilerOptions.paths)
    .map(([alias, [target]]) => ({
      alias: alias.replace(/\/\*$/, ''),
      dir: resolve(ROOT, target.replace(/\/\*$/, '')),
    }))
    .sort((a, b) => b.alias.length - a.alias.length);
}

/** The package a path lies in (the longest folder of `PACKAGE_LAYERS` holding it), or null. */
function packageOf(path: string): string | null {
  const rel = relative(ROOT, path).split(/[\\/]/).join('/');
  return (
    Object.keys(PACKAGE_LAYERS)
      .filter((pkg) => rel === pkg || rel.startsWith(`${pkg}/`))
      .sort((a, b) => b.length - a.length)[0] ?? null
  );
}

/** A package's production sources: its `.ts` files but specs and `test/` folders. */
function productionSources(pkg: string): string[] {
  const dir = join(ROOT, pkg);
  return sourceFiles(dir).filter(
    (file) => !/\.(int-|e2e-)?spec\.ts$/.test(file) && !relative(dir, file).split(/[\\/]/).includes('test'),
  );
}

/** One import of a package's sources: the repo path it resolves to, or null for a package outside. */
interface PackageImport {
  file: string;
  specifier: string;
  from: string;
  /** The package imported, `(outside the packages)` for a repo path in none, null for node_modules. */
  to: string | null;
}

function packageImports(pkg: string, aliases = pathAliases()): PackageImport[] {
  return productionSources(pkg).flatMap((file) =>
    moduleSpecifiers(readFileSync(file, 'utf8')).map((specifier) => {
      const alias = aliases.find((a) => specifier === a.alias || specifier.startsWith(`${a.alias}/`));
      const target = specifier.startsWith('.')
        ? resolve(dirname(file), specifier)
        : alias
          ? join(alias.dir, specifier.slice(alias.alias.length))
          : null;
      const to = target === null ? null : (packageOf(target) ?? '(outside the packages)');
      return { file: relative(ROOT, file), specifier, from: pkg, to };
    }),
  );
}

/** Why package `from` may not import package `to`, or null when it may. */
function packageProblem(from: string, to: string): string | null {
  if (from === to) {
    return null;
  }
  const only = ONLY[from];
  if (only && !only.includes(to)) {
    return `${from} imports ${to}: it may import only ${only.join(', ') || 'nothing of the repo'}`;
  }
  const importers = IMPORTED_ONLY_BY[to];
  if (importers && !importers.includes(from)) {
    return `${from} imports ${to}: only ${importers.join(', ')} may`;
  }
  const fromLayer = PACKAGE_LAYERS[from];
  const toLayer = PACKAGE_LAYERS[to];
  if (fromLayer === undefined || toLayer === undefined) {
    return `${from} imports ${to}, outside the packages`;
  }
  if (toLayer < fromLayer) {
    return null;
  }
  return toLayer > fromLayer ? `${from} imports ${to}, a layer above it` : `${from} imports ${to}, beside it`;
}

/** Every import of every package that breaks the layers: `file: specifier (why)`. */
function packageLayerProblems(imports: PackageImport[]): string[] {
  return imports.flatMap(({ file, specifier, from, to }) => {
    const problem = to === null ? null : packageProblem(from, to);
    return problem === null ? [] : [`${file}: ${specifier} (${problem})`];
  });
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      return sourceFiles(path);
    }
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** `from './x'`, `import './x'`, `import('./x')` of one source text: the relative specifiers. */
function relativeSpecifiers(source: string): string[] {
  const patterns = [
    /^\s*(?:import|export)\b[^;]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]/gm,
    /^\s*import\s*['"](\.{1,2}\/[^'"]+)['"]/gm,
    /\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g,
  ];
  return patterns.flatMap((pattern) => [...source.matchAll(pattern)].map((m) => m[1]));
}

/** Every source file under `dir` → the source files it imports (CSS and other assets left out). */
function importGraph(dir: string): ImportGraph {
  const files = sourceFiles(dir);
  const known = new Set(files);
  const resolveImport = (from: string, specifier: string): string | undefined => {
    const base = resolve(dirname(from), specifier);
    return [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')].find((c) =>
      known.has(c),
    );
  };
  return new Map(
    files.map((file) => [
      file,
      relativeSpecifiers(readFileSync(file, 'utf8'))
        .map((specifier) => resolveImport(file, specifier))
        .filter((target): target is string => target !== undefined),
    ]),
  );
}

/** The cycles a depth-first walk meets, each as the path that closes it (`a → b → a`). */
function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    state.set(node, 'open');
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') {
        cycles.push([...path.slice(path.indexOf(next)), next]);
      } else if (!state.has(next)) {
        visit(next);
      }
    }
    path.pop();
    state.set(node, 'done');
  };
  for (const node of [...graph.keys()].sort()) {
    if (!state.has(node)) {
      visit(node);
    }
  }
  return cycles;
}

/** The folder of `apps/api/src` a file belongs to: its first path segment, or `(root)`. */
function apiFolderOf(file: string): string {
  const parts = relative(API, file).split(/[\\/]/);
  return parts.length > 1 ? parts[0] : '(root)';
}

/** Why folder `from` may not import folder `to`, or null when it may. */
function layerProblem(from: string, to: string): string | null {
  const fromLayer = API_LAYERS[from] ?? RESOURCE_LAYER;
  const toLayer = API_LAYERS[to] ?? RESOURCE_LAYER;
  if (from === to || toLayer < fromLayer || (fromLayer === RESOURCE_LAYER && toLayer === RESOURCE_LAYER)) {
    return null;
  }
  return toLayer > fromLayer ? `${from} imports ${to}, a layer above it` : `${from} imports ${to}, beside it`;
}

/**
 * The imports between folders of `apps/api/src`, specs left out: a spec may import the
 * composition root it checks (route-table.spec and openapi.spec walk `AppModule`).
 */
function apiFolderImports(graph: ImportGraph): Array<{ file: string; from: string; to: string }> {
  return [...graph].flatMap(([file, targets]) =>
    file.endsWith('.spec.ts')
      ? []
      : targets
          .map((target) => ({ file: relative(API, file), from: apiFolderOf(file), to: apiFolderOf(target) }))
          .filter((edge) => edge.from !== edge.to),
  );
}

describe('import graph', () => {
  const api = importGraph(API);
  const dashboard = importGraph(DASHBOARD);

  it('should find the sources of the API and the dashboard', () => {
    expect(existsSync(join(API, 'auth/api-key.guard.ts'))).toBe(true);
    expect(api.get(join(API, 'app.module.ts'))).toEqual(expect.arrayContaining([join(API, 'auth/auth.module.ts')]));
    expect(dashboard.get(join(DASHBOARD, 'main.tsx'))).toEqual(
      expect.arrayContaining([join(DASHBOARD, 'app-context.ts'), join(DASHBOARD, 'pages/jobs.tsx')]),
    );
  });

  it('should import no folder of apps/api from one above it', () => {
    const problems = apiFolderImports(api)
      .map(({ file, from, to }) => ({ file, problem: layerProblem(from, to) }))
      .filter((entry) => entry.problem !== null);
    expect(problems).toEqual([]);
  });

  it('should have no import cycle between the folders of apps/api', () => {
    const folders = new Map<string, string[]>();
    for (const { from, to } of apiFolderImports(api)) {
      folders.set(from, [...new Set([...(folders.get(from) ?? []), to])]);
    }
    expect(findCycles(folders)).toEqual([]);
  });

  it('should keep libs/nestjs free of the service: no lib but the typed client, nothing outside its folder', () => {
    expect(sourceFiles(NESTJS_LIB).length).toBeGreaterThan(5);
    expect(nestjsLibProblems()).toEqual([]);
    expect(moduleSpecifiers("import { x } from '@svc/common';\nconst y = require('../../persistence');")).toEqual([
      '@svc/common',
      '../../persistence',
    ]);
  });

  describe('packages (libs, temporal/workflows, apps)', () => {
    const aliases = pathAliases();
    const imports = Object.keys(PACKAGE_LAYERS).flatMap((pkg) => packageImports(pkg, aliases));

    it('should find the imports of every package', () => {
      for (const pkg of Object.keys(PACKAGE_LAYERS)) {
        expect({ pkg, sources: productionSources(pkg).length > 0 }).toEqual({ pkg, sources: true });
      }
      expect(imports).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            file: 'temporal/workflows/job.workflow.ts',
            specifier: '@svc/workflow-contract/definitions',
            to: 'libs/workflow-contract',
          }),
          expect.objectContaining({ from: 'apps/worker', to: 'temporal/workflows' }),
          expect.objectContaining({ from: 'libs/orchestration', to: 'libs/persistence' }),
        ]),
      );
    });

    it('should import no package from one above or beside it', () => {
      expect(packageLayerProblems(imports)).toEqual([]);
    });

    it('should keep the workflow contract to workflow-safe packages: Temporal workflow APIs and types of libs/schedule', () => {
      const outside = imports
        .filter(({ from, to }) => from === 'libs/workflow-contract' && to === null)
        .filter(({ specifier }) => !CONTRACT_PACKAGES.includes(specifier))
        .map(({ file, specifier }) => `${file}: ${specifier}`);
      expect(outside).toEqual([]);
    });

    it('should leave `@svc/common/ids` to the frozen v1 fixture (the ids live in the contract)', () => {
      expect(imports.filter(({ specifier }) => specifier === '@svc/common/ids').map(({ file }) => file)).toEqual([]);
    });

    it('should tell an upward import from the allowed ones', () => {
      expect(packageProblem('libs/workflow-contract', 'libs/common')).toBe(
        'libs/workflow-contract imports libs/common: it may import only libs/schedule',
      );
      expect(packageProblem('temporal/workflows', 'libs/common')).toBe(
        'temporal/workflows imports libs/common: it may import only libs/workflow-contract, libs/schedule',
      );
      expect(packageProblem('libs/orchestration', 'temporal/workflows')).toBe(
        'libs/orchestration imports temporal/workflows: only apps/worker may',
      );
      expect(packageProblem('libs/common', 'apps/api')).toBe('libs/common imports apps/api, a layer above it');
      expect(packageProblem('libs/persistence', 'libs/delivery')).toBe(
        'libs/persistence imports libs/delivery, beside it',
      );
      expect(packageProblem('libs/persistence', '(outside the packages)')).toBe(
        'libs/persistence imports (outside the packages), outside the packages',
      );
      expect(packageProblem('apps/worker', 'temporal/workflows')).toBeNull();
      expect(packageProblem('temporal/workflows', 'libs/workflow-contract')).toBeNull();
      expect(packageProblem('libs/orchestration', 'libs/persistence')).toBeNull();
      expect(packageOf(join(ROOT, 'libs/workflow-contract/src/ids.ts'))).toBe('libs/workflow-contract');
      expect(packageOf(join(ROOT, 'test/kit/index.ts'))).toBeNull();
    });
  });

  it('should have no import cycle in the dashboard', () => {
    expect(findCycles(dashboard).map((cycle) => cycle.map((file) => relative(DASHBOARD, file)))).toEqual([]);
  });

  it('should tell an import against the layers and a cycle from clean ones', () => {
    expect(layerProblem('common', 'auth')).toBe('common imports auth, a layer above it');
    expect(layerProblem('common', 'schedules')).toBe('common imports schedules, a layer above it');
    expect(layerProblem('auth', 'me')).toBe('auth imports me, a layer above it');
    expect(layerProblem('common', 'temporal')).toBe('common imports temporal, beside it');
    expect(layerProblem('jobs', 'secrets')).toBeNull();
    expect(layerProblem('auth', 'common')).toBeNull();
    expect(layerProblem('(root)', 'auth')).toBeNull();
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(findCycles(graph)).toEqual([['a', 'b', 'c', 'a']]);
    expect(findCycles(new Map([['a', ['b']]]))).toEqual([]);
    expect(
      relativeSpecifiers("import type {\n  A,\n} from '../x';\nimport './y.css';\nconst z = import('./z');"),
    ).toEqual(['../x', './y.css', './z']);
  });
});

// Lint gate (style.md rule 19): `npm run check` = prettier + eslint (zero warnings) + tsc.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const NODE_BUILTINS = [
  'fs',
  'path',
  'os',
  'crypto',
  'http',
  'https',
  'net',
  'dns',
  'child_process',
  'stream',
  'util',
  'worker_threads',
  'timers',
];

/**
 * What deterministic code may not import (style.md rule 10): Node, I/O, frameworks, and the
 * libraries above the workflow contract. `extraPaths` and `extraPatterns` add a block's own.
 */
function deterministicImports(extraPaths = [], extraPatterns = []) {
  return [
    'error',
    {
      paths: NODE_BUILTINS.flatMap((m) => [m, `node:${m}`])
        .concat(['typeorm', 'pg', 'undici', 'luxon', 'rrule'])
        .concat(extraPaths),
      patterns: [
        '@nestjs/*',
        '@svc/common*',
        '@svc/persistence*',
        '@svc/delivery*',
        '@svc/orchestration*',
        '@svc/extensions*',
        '@svc/api-client*',
        '@svc/nestjs*',
        '@temporalio/worker',
        '@temporalio/client',
        '@temporalio/activity',
      ].concat(extraPatterns),
    },
  ];
}

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'libs/*/dist/**',
      'node_modules/**',
      '.tools/**',
      '.data/**',
      '.test-data/**',
      'coverage/**',
      '**/*.js',
      '**/*.mjs',
      '**/*.cjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
      eqeqeq: ['error', 'always'],
      curly: ['error', 'all'],
    },
  },
  {
    // Workflow code is deterministic: no I/O, no Node APIs, no framework (style.md rule 10). It
    // imports the contract's modules by path: the index would bundle every rule of the contract.
    files: ['temporal/workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-imports': deterministicImports([
        { name: '@svc/workflow-contract', message: 'Import the module by path: @svc/workflow-contract/<module>.' },
      ]),
    },
  },
  {
    // The workflow contract runs inside workflows too (issue 47): the same restrictions, and
    // nothing of the workflow code above it.
    files: ['libs/workflow-contract/**/*.ts'],
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-imports': deterministicImports([], ['@svc/workflows*']),
    },
  },
  {
    // Only the config loaders read the environment (style.md rule 8).
    files: ['apps/**/*.ts', 'libs/**/*.ts', 'temporal/workflows/**/*.ts'],
    ignores: ['libs/common/src/config/load-config.ts', 'apps/cli/src/config.ts', '**/*.spec.ts', '**/test/**'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read configuration through loadConfig().' },
      ],
    },
  },
  {
    // Repositories are the only data path (issue #14): apps hold repositories and `Transactions`
    // from @svc/persistence, never a DataSource or EntityManager, and issue no SQL of their own.
    // Composition roots that create the DataSource and the operator CLI (migrations) are exempt.
    files: ['apps/**/*.ts'],
    ignores: [
      'apps/api/src/database/database.module.ts',
      'apps/api/src/temporal/temporal.module.ts',
      'apps/worker/src/connections.module.ts',
      'apps/worker/src/activities/activities.module.ts',
      'apps/worker/src/main.ts',
      'apps/cli/src/**',
      '**/*.spec.ts',
      '**/*.int-spec.ts',
      '**/test/**',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'typeorm', message: 'Go through a repository or Transactions from @svc/persistence.' }],
          patterns: ['pg', 'pg/*'],
        },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read configuration through loadConfig().' },
        { property: 'manager', message: 'Go through a repository or Transactions from @svc/persistence.' },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='query'][arguments.0.type=/Literal|TemplateLiteral/]",
          message: 'SQL belongs in a repository in libs/persistence.',
        },
      ],
    },
  },
  {
    files: ['**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts', 'test/**/*.ts', '**/test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off', '@typescript-eslint/no-require-imports': 'off' },
  },
);

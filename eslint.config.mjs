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
    // Workflow code is deterministic: no I/O, no Node APIs, no framework (style.md rule 10).
    files: ['temporal/workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-imports': [
        'error',
        {
          paths: NODE_BUILTINS.flatMap((m) => [m, `node:${m}`]).concat(['typeorm', 'pg', 'undici', 'luxon', 'rrule']),
          patterns: [
            '@nestjs/*',
            '@svc/persistence*',
            '@svc/delivery*',
            '@svc/orchestration*',
            '@temporalio/worker',
            '@temporalio/client',
            '@temporalio/activity',
          ],
        },
      ],
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

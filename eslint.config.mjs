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
            '@svc/scheduling*',
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
    files: ['**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts', 'test/**/*.ts', '**/test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off', '@typescript-eslint/no-require-imports': 'off' },
  },
);

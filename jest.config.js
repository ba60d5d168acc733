// Three tiers (style.md rule 18): *.spec.ts are pure, *.int-spec.ts touch PostgreSQL and/or
// Temporal, test/e2e/*.e2e-spec.ts drive the assembled API and worker over real connections.
const fs = require('node:fs');
const swc = JSON.parse(fs.readFileSync(`${__dirname}/.swcrc`, 'utf8'));
const transform = {
  '^.+\\.ts$': ['@swc/jest', { ...swc, swcrc: false }],
  // ESM-only packages (NestJS 12, openid-client and their dependencies) become CommonJS like our
  // sources; Node itself loads them with require(esm), which jest's module system does not implement.
  '^.+\\.js$': ['@swc/jest', { ...swc, swcrc: false, jsc: { ...swc.jsc, parser: { syntax: 'ecmascript' } } }],
};
const ESM_PACKAGES = ['@nestjs', 'cookie', 'openid-client', 'oauth4webapi', 'jose'];
const transformIgnorePatterns = [`/node_modules/(?!(${ESM_PACKAGES.join('|')})/)`];
const moduleNameMapper = {
  '^@svc/common$': '<rootDir>/libs/common/src',
  '^@svc/common/(.*)$': '<rootDir>/libs/common/src/$1',
  '^@svc/schedule$': '<rootDir>/libs/schedule/src',
  '^@svc/schedule/(.*)$': '<rootDir>/libs/schedule/src/$1',
  '^@svc/workflow-contract$': '<rootDir>/libs/workflow-contract/src',
  '^@svc/workflow-contract/(.*)$': '<rootDir>/libs/workflow-contract/src/$1',
  '^@svc/persistence$': '<rootDir>/libs/persistence/src',
  '^@svc/persistence/(.*)$': '<rootDir>/libs/persistence/src/$1',
  '^@svc/delivery$': '<rootDir>/libs/delivery/src',
  '^@svc/delivery/(.*)$': '<rootDir>/libs/delivery/src/$1',
  '^@svc/orchestration$': '<rootDir>/libs/orchestration/src',
  '^@svc/orchestration/(.*)$': '<rootDir>/libs/orchestration/src/$1',
  '^@svc/extensions$': '<rootDir>/libs/extensions/src',
  '^@svc/extensions/(.*)$': '<rootDir>/libs/extensions/src/$1',
  '^@svc/workflows$': '<rootDir>/temporal/workflows',
  '^@svc/workflows/(.*)$': '<rootDir>/temporal/workflows/$1',
  '^@svc/api-client$': '<rootDir>/libs/api-client/src',
  '^@svc/nestjs$': '<rootDir>/libs/nestjs/src',
};
// Recording histories talks to a live server and rewrites fixtures: only on request.
const testPathIgnorePatterns = process.env.RECORD_HISTORIES
  ? ['/node_modules/']
  : ['/node_modules/', 'record-histories'];
const common = {
  transform,
  transformIgnorePatterns,
  moduleNameMapper,
  testPathIgnorePatterns,
  testEnvironment: 'node',
  rootDir: __dirname,
};
module.exports = {
  testTimeout: 60_000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,temporal,test}/**/*.spec.ts'] },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/{apps,libs,temporal,test}/**/*.int-spec.ts', '<rootDir>/test/e2e/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/global-setup.ts',
      globalTeardown: '<rootDir>/test/global-teardown.ts',
    },
  ],
};

/**
 * The in-memory kit of the unit specs (docs/style.md → Specs): PostgreSQL as repositories over
 * maps with rolled-back transactions, Temporal as a recording gateway, and the fixtures they share.
 * Test code only: `test/kit/kit.spec.ts` checks that no production source imports it.
 */
export * from './fake-temporal';
export * from './fixtures';
export * from './in-memory-database';
export * from './stores';
export * from './jobs-api';
export * from './service-over-kit';

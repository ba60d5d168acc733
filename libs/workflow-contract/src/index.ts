/**
 * The workflow contract (docs/architecture.md → Where each kind of code lives): what the API, the
 * worker and the workflows share about the Temporal side, and the deterministic rules both sides
 * apply. Workflow code imports its modules by path (`@svc/workflow-contract/definitions`), so a
 * bundle holds only what it uses; everything else may import this index.
 */
export * from './definitions';
export * from './activity-types';
export * from './search-attributes';
export * from './display';
export * from './occurrence-rules';
export * from './occurrence-opening';
export * from './run-rules';
export * from './backoff';
export * from './ids';

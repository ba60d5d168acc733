export * from './sink-kind';
export * from './schema-check';
export * from './registry';
export * from './secrets-used';
export * from './webhook.kind';
export * from './command.kind';
export * from './temporal-workflow.kind';
export * from './run-overrides';

export * from './workspaces.repository';
export * from './api-keys.repository';
export * from './audit.repository';
export * from './jobs.repository';
export * from './runs.repository';
export * from './idempotency.repository';
export * from './secrets.repository';
export * from './stats.repository';

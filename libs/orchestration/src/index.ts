export * from './job-snapshot';
export * from './job-workflow.gateway';
export * from './job-schedule';
export * from './job-lifecycle';
export * from './audit-retention';
export * from './sink-sender';
export * from './body-retention';
export * from './alert-workflow.gateway';

export * from './job-snapshot';
export * from './job-workflow.gateway';
export * from './job-schedule';

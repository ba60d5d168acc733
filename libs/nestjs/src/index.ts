export { NonRetryableError, ScheduledJobsConfigError } from './errors';
export { ScheduledJobsHealthIndicator } from './health';
export type { ApplyPlan, ApplyState } from './job-applier';
export { JOB_KEY_HEADER } from './job-set';
export type {
  ScheduledJobsModuleAsyncOptions,
  ScheduledJobsModuleOptions,
  ScheduledJobsReceiverOptions,
} from './options';
export { NON_RETRYABLE_STATUS } from './receiver';
export {
  ScheduledJob,
  type ScheduledJobContext,
  type ScheduledJobOptions,
  type ScheduledJobRetry,
} from './scheduled-job.decorator';
export { ScheduledJobsModule } from './scheduled-jobs.module';
export { ScheduledJobsService } from './scheduled-jobs.service';

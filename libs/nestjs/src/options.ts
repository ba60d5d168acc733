import type { ModuleMetadata } from '@nestjs/common';

export interface ScheduledJobsReceiverOptions {
  /** The route this app serves deliveries on, e.g. `/scheduled-jobs`. */
  path: string;
  /** The URL the service calls: where `path` of this app is reachable from the service. */
  publicUrl: string;
}

export interface ScheduledJobsModuleOptions {
  /** The service's base URL (without `/api/v1`). */
  baseUrl: string;
  /** An API key with the jobs scopes of the workspace. */
  apiKey: string;
  /** Who declares the jobs (`managed_by`, e.g. `app:billing`): apply prunes only this owner's jobs. */
  owner: string;
  receiver: ScheduledJobsReceiverOptions;
  /**
   * The signing secrets (`whsec_…`) shared by every replica, newest first: jobs are created signing
   * with the first; any of them verifies a delivery (keep the previous one listed while rotating).
   * Default: one secret derived from `apiKey` and `owner`, which every replica already shares
   * (docs/nestjs.md → Signing).
   */
  signingSecrets?: string[];
  /** Backoff of the apply retries while the service is unreachable (ms); default 1 s doubling to 60 s. */
  retry?: { initialDelayMs?: number; maxDelayMs?: number };
  /** Replayed `webhook-id`s remembered per replica; default 10,000. */
  replayCacheSize?: number;
}

export interface ScheduledJobsModuleAsyncOptions extends Pick<ModuleMetadata, 'imports'> {
  useFactory: (...args: any[]) => ScheduledJobsModuleOptions | Promise<ScheduledJobsModuleOptions>;
  inject?: any[];
}

export const SCHEDULED_JOBS_OPTIONS = Symbol('SCHEDULED_JOBS_OPTIONS');

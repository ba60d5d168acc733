import { SetMetadata } from '@nestjs/common';

/** Metadata key under which `@ScheduledJob` stores its options on the method. */
export const SCHEDULED_JOB_METADATA = 'svc:scheduled-job';

/** The retry policy of a job (spec: Retry policy); a partial one is merged with the service's defaults. */
export interface ScheduledJobRetry {
  max_attempts?: number;
  backoff?: 'exponential' | 'linear' | 'fixed';
  initial_interval?: string;
  max_interval?: string;
  multiplier?: number;
  jitter?: number;
}

export interface ScheduledJobOptions {
  /** The job's stable key, unique in the workspace: `[A-Za-z0-9][A-Za-z0-9._:-]*`, 1-128 chars. */
  key: string;
  /** Any expression the service parses: `every 5 seconds`, `0 3 * * *`, `every weekday at 9am`. */
  schedule: string;
  /** IANA time zone of the schedule; the service's default (UTC) when omitted. */
  timezone?: string;
  retry?: ScheduledJobRetry;
  /** Per attempt (`30s` by default, at most `120s`); the method's `signal` aborts when it passes. */
  timeout?: string;
  misfire_policy?: 'fire_once' | 'skip' | 'fire_all';
  overlap_policy?: 'allow' | 'skip' | 'queue' | 'cancel_previous';
  tags?: string[];
}

/** What the decorated method receives at each occurrence (and each retry of it). */
export interface ScheduledJobContext {
  jobKey: string;
  /** The run's id: identical on every retry of one occurrence, a natural idempotency key. */
  runId: string;
  /** The occurrence this run is for. */
  scheduledAt: Date;
  /** `schedule`, `manual` or `retry_manual` (spec: Run.trigger); `schedule` when not sent. */
  trigger: string;
  /** 0 for the first try of the run, then 1, 2, … */
  attempt: number;
  /** Aborted when the job's `timeout` has passed: the service has stopped waiting for this attempt. */
  signal: AbortSignal;
}

/**
 * Declares a provider method as a durable scheduled job: the module creates (or updates) the job
 * under `key` at bootstrap and calls the method once per occurrence, on one replica.
 */
export const ScheduledJob = (options: ScheduledJobOptions): MethodDecorator =>
  SetMetadata(SCHEDULED_JOB_METADATA, options);

/**
 * Thrown by a scheduled method to fail the run at once, without the retries of the job's policy:
 * the receiver answers it with a status the service classifies as fatal (422, outside `retry_on`).
 */
export class NonRetryableError extends Error {
  override readonly name = 'NonRetryableError';
}

/** A declaration the module cannot apply (duplicate key, invalid schedule): bootstrap fails with it. */
export class ScheduledJobsConfigError extends Error {
  override readonly name = 'ScheduledJobsConfigError';
}

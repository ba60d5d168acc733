import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  getExternalWorkflowHandle,
  isCancellation,
  patched,
  proxyActivities,
} from '@temporalio/workflow';
import type { RunActivities } from './activity-types';
import { jobWorkflowId, RUN_PATH_PATCH, runFinishedSignal, type RunWorkflowInput } from './definitions';
import { legacyRunWorkflow } from './legacy/run.workflow.v1';

/** Error types of `runAttempt` that must not be retried by Temporal. */
export const NON_RETRYABLE_ATTEMPT_ERRORS = ['RunGone'];

/**
 * One attempt per activity execution. User-visible retries come from the activity's own attempt
 * counter and `nextRetryDelay` (the job's backoff with jitter and Retry-After); this policy's own
 * backoff only paces infrastructure errors (database or worker trouble), which consume no attempt.
 * The start-to-close timeout covers the longest job timeout (120 s) plus the bookkeeping.
 */
const attempts = proxyActivities<RunActivities>({
  startToCloseTimeout: '150s',
  heartbeatTimeout: '10s',
  retry: {
    initialInterval: '1s',
    backoffCoefficient: 2,
    maximumInterval: '1m',
    nonRetryableErrorTypes: NON_RETRYABLE_ATTEMPT_ERRORS,
  },
});
const bookkeeping = proxyActivities<RunActivities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', maximumInterval: '30s' },
});

/**
 * One per run (workflow id = run id, searchable by job, workspace and trigger). Its first
 * workflow task schedules the attempt activity, which claims, delivers and records in one step;
 * the run row already exists (written when the occurrence was due, or by the API on trigger).
 */
export async function runWorkflow(input: RunWorkflowInput): Promise<string> {
  if (!patched(RUN_PATH_PATCH)) {
    return legacyRunWorkflow(input);
  }
  let status: string;
  try {
    status = (await attempts.runAttempt(input)).status;
  } catch (err) {
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(async () => {
        await bookkeeping.finishRun({ runId: input.runId, status: 'cancelled' });
        await notifyJob(input);
      });
      throw err;
    }
    await bookkeeping.finishRun({ runId: input.runId, status: 'failed', error: failureMessage(err) });
    status = 'failed';
  }
  await notifyJob(input);
  return status;
}

/** Tells the job workflow this run ended, when it tracks runs for its overlap policy. */
async function notifyJob(input: RunWorkflowInput): Promise<void> {
  if (!input.notifyJob) {
    return;
  }
  try {
    await getExternalWorkflowHandle(jobWorkflowId(input.jobId)).signal(runFinishedSignal, input.runId);
  } catch {
    // The job workflow is gone (job deleted): nobody is waiting for this run.
  }
}

function failureMessage(err: unknown): string {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure) {
    return cause.message;
  }
  return cause instanceof Error ? cause.message : String(cause);
}

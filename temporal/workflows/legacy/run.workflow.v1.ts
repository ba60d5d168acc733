import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  proxyActivities,
} from '@temporalio/workflow';
import type { LegacyDeliveryActivities, LegacyRunActivities, LegacyRunWorkflowInput } from './types.v1';

const runs = proxyActivities<LegacyRunActivities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', maximumInterval: '30s' },
});

/** A queued run waits as long as the run before it takes; the heartbeat notices a lost worker. */
const queue = proxyActivities<LegacyRunActivities>({
  startToCloseTimeout: '24h',
  heartbeatTimeout: '10s',
  retry: { initialInterval: '1s', maximumInterval: '30s' },
});

/** Error types the delivery activity raises that must not be retried. */
const NON_RETRYABLE_DELIVERY_ERRORS = ['FatalDelivery', 'AttemptsExhausted', 'RunGone'];
const HEARTBEAT_TIMEOUT_MS = 10_000;

/**
 * FROZEN: the run workflow before the one-activity path (histories `runWorkflow-*-20261122.json`).
 * Runs started before the upgrade finish through it, calling the legacy activities
 * (apps/worker/src/activities/legacy.activities.ts). Remove both once no such run can be open.
 *
 * One per run (workflow id = run id). Records the run, delivers it under a Temporal retry policy
 * built from the job's `retry` (each activity attempt is one recorded attempt; jitter and
 * Retry-After come through the failure's next-retry delay), then finishes the run.
 */
export async function legacyRunWorkflow(input: LegacyRunWorkflowInput): Promise<string> {
  const claim = await runs.claimRun(input);
  if (claim.action === 'done') {
    return claim.status;
  }
  if (claim.action === 'wait') {
    await queue.awaitTurn({ runId: input.runId });
  }

  const delivery = proxyActivities<LegacyDeliveryActivities>({
    startToCloseTimeout: claim.timeoutMs + 15_000,
    heartbeatTimeout: HEARTBEAT_TIMEOUT_MS,
    retry: {
      maximumAttempts: claim.retry.maxAttempts,
      initialInterval: claim.retry.initialIntervalMs,
      maximumInterval: claim.retry.maxIntervalMs,
      backoffCoefficient: claim.retry.multiplier,
      nonRetryableErrorTypes: NON_RETRYABLE_DELIVERY_ERRORS,
    },
  });
  try {
    await delivery.deliverAttempt({ runId: input.runId });
  } catch (err) {
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(() => runs.finishRun({ runId: input.runId, status: 'cancelled' }));
      throw err;
    }
    await runs.finishRun({ runId: input.runId, status: 'failed', error: failureMessage(err) });
    return 'failed';
  }
  await runs.finishRun({ runId: input.runId, status: 'succeeded' });
  return 'succeeded';
}

function failureMessage(err: unknown): string {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure) {
    return cause.message;
  }
  return cause instanceof Error ? cause.message : String(cause);
}

import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { OperationActivities } from '@svc/workflow-contract/activity-types';
import {
  type BulkOperationInput,
  type BulkOperationResult,
  cancelOperationSignal,
} from '@svc/workflow-contract/definitions';

/** Database work and the job lifecycle's calls: retried until they work (an outage delays, never loses, a batch). */
const operations = proxyActivities<OperationActivities>({
  startToCloseTimeout: '5m',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m' },
});

/**
 * One bulk action or recover (workflow id = the operation id). The items it matched are
 * in PostgreSQL (`operation_items`); each batch handles the next pending ones through the job
 * lifecycle, so a batch retried after a crash never handles an item twice. A pause with a
 * maintenance window then waits on a durable timer and resumes the jobs still in that window.
 * A cancel stops before the next batch, or ends the wait with nothing resumed.
 */
export async function bulkOperationWorkflow(input: BulkOperationInput): Promise<BulkOperationResult> {
  const { operationId } = input;
  let cancelled = false;
  setHandler(cancelOperationSignal, () => {
    cancelled = true;
  });
  let batches = 0;
  while (!cancelled) {
    const batch = await operations.applyOperationBatch({ operationId });
    batches += 1;
    cancelled ||= batch.cancelled;
    if (batch.remaining === 0) {
      break;
    }
  }
  let resumed = false;
  if (!cancelled && input.resumeAt !== null) {
    await operations.setOperationStatus({ operationId, status: 'waiting' });
    const waitMs = Date.parse(input.resumeAt) - Date.now();
    if (waitMs > 0) {
      await condition(() => cancelled, waitMs);
    }
    if (!cancelled) {
      let afterSeq: number | null = 0;
      while (afterSeq !== null) {
        ({ nextSeq: afterSeq } = await operations.resumeOperationJobs({ operationId, afterSeq }));
      }
      resumed = true;
    }
  }
  await operations.setOperationStatus({ operationId, status: cancelled ? 'cancelled' : 'succeeded' });
  return { batches, cancelled, resumed };
}

import type { BulkOperations } from '@svc/orchestration';
import type { OperationActivities } from '@svc/workflow-contract/activity-types';

/** The activities of `bulkOperationWorkflow`: the work is `BulkOperations`'. */
export function createOperationActivities(bulk: BulkOperations): OperationActivities {
  return {
    applyOperationBatch: ({ operationId }) => bulk.applyBatch(operationId),
    resumeOperationJobs: ({ operationId, afterSeq }) => bulk.resumeBatch(operationId, afterSeq),
    setOperationStatus: ({ operationId, status }) => bulk.setStatus(operationId, status),
  };
}

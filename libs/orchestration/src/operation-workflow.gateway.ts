import {
  BULK_OPERATION_WORKFLOW,
  type BulkOperationInput,
  cancelOperationSignal,
} from '@svc/workflow-contract/definitions';
import { type CancelableWorkflow, CancelableWorkflowGateway } from './cancelable-workflow.gateway';

/** Starts and cancels bulk operation workflows on the jobs task queue (workflow id = operation id). */
export class OperationWorkflowGateway extends CancelableWorkflowGateway<BulkOperationInput> {
  protected readonly workflow: CancelableWorkflow<BulkOperationInput> = {
    type: BULK_OPERATION_WORKFLOW,
    idOf: (input) => input.operationId,
    cancel: cancelOperationSignal,
  };
}

import { Client, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import {
  BULK_OPERATION_WORKFLOW,
  type BulkOperationInput,
  cancelOperationSignal,
} from '@svc/workflow-contract/definitions';
import { tolerating } from './tolerated-temporal-errors';

/** Starts and cancels bulk operation workflows on the jobs task queue. */
export class OperationWorkflowGateway {
  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
  ) {}

  /** Starts the operation's workflow (workflow id = operation id); `summary` is what the Web UI shows. */
  async start(input: BulkOperationInput, summary: string): Promise<void> {
    await tolerating(WorkflowExecutionAlreadyStartedError, () =>
      this.client.workflow.start(BULK_OPERATION_WORKFLOW, {
        workflowId: input.operationId,
        taskQueue: this.taskQueue,
        args: [input],
        staticSummary: summary,
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      }),
    );
  }

  /** Asks the operation to stop; an operation whose workflow has ended has nothing left to stop. */
  async cancel(operationId: string): Promise<void> {
    await tolerating(WorkflowNotFoundError, () =>
      this.client.workflow.getHandle(operationId).signal(cancelOperationSignal),
    );
  }
}

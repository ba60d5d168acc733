import { Client, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { BACKFILL_WORKFLOW, type BackfillInput, cancelBackfillSignal } from '@svc/workflow-contract/definitions';
import { tolerating } from './tolerated-temporal-errors';

/** Starts and cancels backfill workflows on the jobs task queue. */
export class BackfillWorkflowGateway {
  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
  ) {}

  /** Starts the backfill's workflow (workflow id = backfill id); `summary` and `details` are what the Web UI shows. */
  async start(input: BackfillInput, summary: string, details: string): Promise<void> {
    await tolerating(WorkflowExecutionAlreadyStartedError, () =>
      this.client.workflow.start(BACKFILL_WORKFLOW, {
        workflowId: input.backfillId,
        taskQueue: this.taskQueue,
        args: [input],
        staticSummary: summary,
        staticDetails: details,
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      }),
    );
  }

  /** Asks the backfill to stop; one whose workflow has ended has nothing left to stop. */
  async cancel(backfillId: string): Promise<void> {
    await tolerating(WorkflowNotFoundError, () =>
      this.client.workflow.getHandle(backfillId).signal(cancelBackfillSignal),
    );
  }
}

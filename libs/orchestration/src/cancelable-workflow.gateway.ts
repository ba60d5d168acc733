import { Client, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import type { SignalDefinition } from '@temporalio/common';
import { tolerating } from './tolerated-temporal-errors';

/** A workflow that carries out one stored, cancelable piece of work (a backfill, a bulk operation). */
export interface CancelableWorkflow<Input> {
  /** The workflow type. */
  type: string;
  /** The workflow id: the id of the stored work, so a second start finds the first. */
  idOf: (input: Input) => string;
  /** The signal that asks it to stop. */
  cancel: SignalDefinition<[]>;
}

/**
 * Starts and cancels the workflows of one `CancelableWorkflow` (`workflow`) on a task queue: the
 * backfills' and the bulk operations' gateways differ only in the workflow.
 */
export abstract class CancelableWorkflowGateway<Input> {
  protected abstract readonly workflow: CancelableWorkflow<Input>;

  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
  ) {}

  /** Starts the work's workflow once; `summary` and `details` are what the Web UI shows. */
  async start(input: Input, summary: string, details?: string): Promise<void> {
    await tolerating(WorkflowExecutionAlreadyStartedError, () =>
      this.client.workflow.start(this.workflow.type, {
        workflowId: this.workflow.idOf(input),
        taskQueue: this.taskQueue,
        args: [input],
        staticSummary: summary,
        staticDetails: details,
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      }),
    );
  }

  /** Asks the work to stop; one whose workflow has ended has nothing left to stop. */
  async cancel(id: string): Promise<void> {
    await tolerating(WorkflowNotFoundError, () => this.client.workflow.getHandle(id).signal(this.workflow.cancel));
  }
}

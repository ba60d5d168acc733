import { Client, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import {
  ALERT_WORKFLOW,
  type AlertWorkflowInput,
  CHANNEL_VERIFICATION_WORKFLOW,
  type ChannelVerificationInput,
} from '@svc/workflow-contract/definitions';
import { tolerating } from './tolerated-temporal-errors';

/**
 * Starts alert workflows (docs/alerts.md) on the alerts task queue. The worker starts one per
 * recorded event; the API starts confirmation mails.
 */
export class AlertWorkflowGateway {
  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
  ) {}

  /**
   * Starts the alert workflow of an event (workflow id = event id). A second start of the same
   * event — a retried activity, a second worker, the sweeper — finds it running or done and
   * starts nothing (`REJECT_DUPLICATE`); planning and sending are idempotent in the database too.
   */
  async startAlert(eventId: string): Promise<void> {
    const input: AlertWorkflowInput = { eventId };
    await tolerating(WorkflowExecutionAlreadyStartedError, () =>
      this.client.workflow.start(ALERT_WORKFLOW, {
        workflowId: eventId,
        taskQueue: this.taskQueue,
        args: [input],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      }),
    );
  }

  /** Mails the channel a confirmation link; `requestId` makes each request its own workflow. */
  async startVerification(channelId: string, requestId: string): Promise<void> {
    const input: ChannelVerificationInput = { channelId };
    await tolerating(WorkflowExecutionAlreadyStartedError, () =>
      this.client.workflow.start(CHANNEL_VERIFICATION_WORKFLOW, {
        workflowId: `verify-${channelId}-${requestId}`,
        taskQueue: this.taskQueue,
        args: [input],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      }),
    );
  }
}

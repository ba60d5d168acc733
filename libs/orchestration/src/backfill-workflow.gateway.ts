import { BACKFILL_WORKFLOW, type BackfillInput, cancelBackfillSignal } from '@svc/workflow-contract/definitions';
import { type CancelableWorkflow, CancelableWorkflowGateway } from './cancelable-workflow.gateway';

/** Starts and cancels backfill workflows on the jobs task queue (workflow id = backfill id). */
export class BackfillWorkflowGateway extends CancelableWorkflowGateway<BackfillInput> {
  protected readonly workflow: CancelableWorkflow<BackfillInput> = {
    type: BACKFILL_WORKFLOW,
    idOf: (input) => input.backfillId,
    cancel: cancelBackfillSignal,
  };
}

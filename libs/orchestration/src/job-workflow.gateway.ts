import { Client, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import {
  JOB_WORKFLOW,
  RUN_WORKFLOW,
  jobChangedSignal,
  jobDeletedSignal,
  jobWorkflowId,
  type JobSnapshot,
  type JobWorkflowInput,
  type RunWorkflowInput,
} from '@svc/workflows/definitions';

import { JOB_ID_KEY, runSearchAttributes, WORKSPACE_ID_KEY } from '@svc/workflows/search-attributes';

/**
 * The only code that talks to Temporal about jobs: start, signal, cancel (architecture.md rule 6).
 * Used by the API and by the worker's reconciler and run activities.
 */
export class JobWorkflowGateway {
  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
  ) {}

  /**
   * Makes the job's workflow exist and know `snapshot`. Idempotent: the workflow ignores
   * snapshots whose revision it has already seen.
   */
  async upsertJob(snapshot: JobSnapshot): Promise<void> {
    const input: JobWorkflowInput = { snapshot };
    await this.client.workflow.signalWithStart(JOB_WORKFLOW, {
      workflowId: jobWorkflowId(snapshot.jobId),
      taskQueue: this.taskQueue,
      args: [input],
      signal: jobChangedSignal,
      signalArgs: [snapshot],
      typedSearchAttributes: new TypedSearchAttributes([
        { key: JOB_ID_KEY, value: snapshot.jobId },
        { key: WORKSPACE_ID_KEY, value: snapshot.workspaceId },
      ]),
    });
  }

  /** Stops the job's workflow; a workflow that is already gone is fine. */
  async deleteJob(jobId: string): Promise<void> {
    try {
      await this.client.workflow.getHandle(jobWorkflowId(jobId)).signal(jobDeletedSignal);
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) {
        throw err;
      }
    }
  }

  /**
   * Starts one run workflow (id = run id). Idempotent: a run whose workflow is running is left
   * alone, so a retried caller never starts an occurrence twice. Callers start only runs whose row
   * is open; an earlier workflow of the same id that has ended may be followed by a new one (an
   * occurrence withdrawn and reopened, a stalled run), whose attempt finds the row as it is and
   * never delivers a run already closed. With `eager`, a worker that shares this client's
   * connection takes the first workflow task straight from the start call.
   */
  async startRun(input: RunWorkflowInput, options: { eager?: boolean } = {}): Promise<void> {
    try {
      await this.client.workflow.start(RUN_WORKFLOW, {
        workflowId: input.runId,
        taskQueue: this.taskQueue,
        args: [input],
        workflowIdReusePolicy: 'ALLOW_DUPLICATE',
        typedSearchAttributes: runSearchAttributes(input),
        ...(options.eager ? { requestEagerStart: true } : {}),
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) {
        throw err;
      }
    }
  }

  /** Requests cancellation of a run workflow (job deleted); gone already is fine. */
  async cancelRun(runId: string): Promise<void> {
    try {
      await this.client.workflow.getHandle(runId).cancel();
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) {
        throw err;
      }
    }
  }
}

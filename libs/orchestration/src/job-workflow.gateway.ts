import {
  Client,
  type WorkflowExecutionDescription,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
} from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { optionalTsToDate } from '@temporalio/common/lib/time';
import {
  JOB_WORKFLOW,
  RUN_CODE_VERSION,
  RUN_WORKFLOW,
  jobChangedSignal,
  jobDeletedSignal,
  jobWorkflowId,
  runsTaskQueue,
  SEARCH_ATTRIBUTES,
  type JobSnapshot,
  type JobWorkflowInput,
  type RunWorkflowInput,
} from '@svc/workflow-contract/definitions';
import { jobDetails, jobSummary, runDetails, runSummary } from '@svc/workflow-contract/display';

import {
  JOB_ID_KEY,
  JOB_KEY_KEY,
  runSearchAttributes,
  WORKSPACE_ID_KEY,
} from '@svc/workflow-contract/search-attributes';
import type { PendingAttemptFacts } from './stuck-runs';
import { tolerating } from './tolerated-temporal-errors';

/** A pending activity of a run workflow, as DescribeWorkflowExecution reports it. */
export interface PendingAttemptView extends PendingAttemptFacts {
  activityType: string;
  /** Temporal's own attempt counter of the activity (1-based; infrastructure retries count too). */
  attempt: number;
  lastFailure: string | null;
  lastWorkerIdentity: string | null;
}

/** What Temporal says about a run's workflow. */
export interface RunWorkflowView {
  /** `RUNNING`, `COMPLETED`, `FAILED`, `CANCELED`, `TERMINATED`, `CONTINUED_AS_NEW`, `TIMED_OUT`. */
  status: string;
  pendingActivities: PendingAttemptView[];
}

/** `temporal.api.enums.v1.PendingActivityState` by number. */
const PENDING_STATES: Record<number, string> = {
  1: 'scheduled',
  2: 'started',
  3: 'cancel_requested',
  4: 'paused',
  5: 'pause_requested',
};

/** Failure messages are ours (secret-free) or Temporal's; bounded all the same. */
const MAX_FAILURE_MESSAGE = 500;

/**
 * Whether `text` is in the error's message or any cause's: the client wraps the server's
 * `INVALID_ARGUMENT … no mapping defined for search attribute …` in a generic ServiceError.
 */
function mentionsInChain(err: unknown, text: string): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e.message.includes(text) || String((e as { details?: unknown }).details ?? '').includes(text)) {
      return true;
    }
  }
  return false;
}

/**
 * The only code that talks to Temporal about jobs: start, signal, cancel (docs/architecture.md →
 * How a job becomes a workflow, steps 1, 3 and 6).
 * Used by the API and by the worker's reconciler and run activities.
 */
export class JobWorkflowGateway {
  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
    /** Where a degraded start is reported (a search attribute missing from the namespace). */
    private readonly warn?: (message: string) => void,
  ) {}

  /**
   * Makes the job's workflow exist and know `snapshot`. Idempotent: the workflow ignores
   * snapshots whose revision it has already seen. A workflow it starts carries the snapshot's
   * display as its static summary and details (Temporal Web UI); they stay as they were at start,
   * the workflow's `describe` query and current details follow later snapshots. A job with a key
   * (it never changes) carries it as `SvcJobKey`, set at start, from the client side:
   * workflow code and recorded histories are untouched.
   */
  async upsertJob(snapshot: JobSnapshot, identity: { key?: string | null } = {}): Promise<void> {
    try {
      await this.signalWithStart(snapshot, identity.key ?? null);
    } catch (err) {
      // A namespace upgraded without registering SvcJobKey refuses the start: the job must run all
      // the same, so it starts without the attribute (docs/operations.md → upgrading to keys).
      if (!identity.key || !mentionsInChain(err, SEARCH_ATTRIBUTES.jobKey)) {
        throw err;
      }
      this.warn?.(
        `${SEARCH_ATTRIBUTES.jobKey} is not registered in the namespace; job ${snapshot.jobId} starts without it`,
      );
      await this.signalWithStart(snapshot, null);
    }
  }

  private async signalWithStart(snapshot: JobSnapshot, key: string | null): Promise<void> {
    const input: JobWorkflowInput = { snapshot };
    await this.client.workflow.signalWithStart(JOB_WORKFLOW, {
      ...(snapshot.display
        ? { staticSummary: jobSummary(snapshot.display), staticDetails: jobDetails(snapshot.display, snapshot) }
        : {}),
      workflowId: jobWorkflowId(snapshot.jobId),
      taskQueue: this.taskQueue,
      args: [input],
      signal: jobChangedSignal,
      signalArgs: [snapshot],
      typedSearchAttributes: new TypedSearchAttributes([
        { key: JOB_ID_KEY, value: snapshot.jobId },
        { key: WORKSPACE_ID_KEY, value: snapshot.workspaceId },
        ...(key ? [{ key: JOB_KEY_KEY, value: key }] : []),
      ]),
    });
  }

  /** Stops the job's workflow; a workflow that is already gone is fine. */
  async deleteJob(jobId: string): Promise<void> {
    await tolerating(WorkflowNotFoundError, () =>
      this.client.workflow.getHandle(jobWorkflowId(jobId)).signal(jobDeletedSignal),
    );
  }

  /**
   * Starts one run workflow (id = run id). Idempotent: a run whose workflow is running is left
   * alone, so a retried caller never starts an occurrence twice. Callers start only runs whose row
   * is open; an earlier workflow of the same id that has ended may be followed by a new one (an
   * occurrence withdrawn and reopened, a stalled run), whose attempt finds the row as it is and
   * never delivers a run already closed. With `eager`, a worker that shares this client's
   * connection takes the first workflow task straight from the start call. Runs go to the runs
   * task queue beside the jobs' (`runsTaskQueue`). The run carries its
   * job's `display` (when the caller has it) into its static summary and details and its attempt
   * activity's summary.
   */
  async startRun(input: RunWorkflowInput, options: { eager?: boolean } = {}): Promise<void> {
    await tolerating(WorkflowExecutionAlreadyStartedError, () =>
      this.client.workflow.start(RUN_WORKFLOW, {
        staticSummary: runSummary(input.display, input),
        staticDetails: runDetails(input.display, input),
        workflowId: input.runId,
        taskQueue: runsTaskQueue(this.taskQueue),
        args: [{ ...input, codeVersion: RUN_CODE_VERSION }],
        workflowIdReusePolicy: 'ALLOW_DUPLICATE',
        typedSearchAttributes: runSearchAttributes(input),
        ...(options.eager ? { requestEagerStart: true } : {}),
      }),
    );
  }

  /**
   * Temporal's view of a run workflow (one DescribeWorkflowExecution): its status and pending
   * activities (attempt, last failure, last heartbeat). Null when no such workflow exists.
   */
  async describeRun(runId: string): Promise<RunWorkflowView | null> {
    let raw: WorkflowExecutionDescription['raw'];
    let status: string;
    try {
      const description = await this.client.workflow.getHandle(runId).describe();
      raw = description.raw;
      status = description.status.name;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) {
        return null;
      }
      throw err;
    }
    return {
      status,
      pendingActivities: (raw.pendingActivities ?? []).map((p) => {
        // While a retry waits, newer servers put its time in `nextAttemptScheduleTime`.
        const next = optionalTsToDate(p.nextAttemptScheduleTime);
        const message = p.lastFailure?.message ?? null;
        return {
          activityType: p.activityType?.name ?? '',
          state: PENDING_STATES[p.state ?? 0] ?? 'unspecified',
          attempt: p.attempt ?? 0,
          scheduledAt: next ?? optionalTsToDate(p.scheduledTime) ?? null,
          lastStartedAt: optionalTsToDate(p.lastStartedTime) ?? null,
          lastHeartbeatAt: optionalTsToDate(p.lastHeartbeatTime) ?? null,
          lastFailure: message === null ? null : message.slice(0, MAX_FAILURE_MESSAGE),
          lastWorkerIdentity: p.lastWorkerIdentity || null,
        };
      }),
    };
  }

  /** Requests cancellation of a run workflow (job deleted); gone already is fine. */
  async cancelRun(runId: string): Promise<void> {
    await tolerating(WorkflowNotFoundError, () => this.client.workflow.getHandle(runId).cancel());
  }
}

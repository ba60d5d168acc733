import type { JobEntity, RunEntity } from '@svc/persistence';
import type { RunWorkflowInput } from '@svc/workflow-contract/definitions';
import { describeForTemporal } from './temporal-display';

/**
 * The run workflow's input for a run row that already exists (a manual retry answered again, a
 * stalled run started by the worker's sweep): the row's identity and trigger, the job's display
 * when the job is still there, and the attempts already made.
 */
export function runWorkflowInputOf(
  run: RunEntity,
  job: JobEntity | null,
  options: { notifyJob?: boolean } = {},
): RunWorkflowInput {
  return {
    runId: run.id,
    jobId: run.jobId,
    workspaceId: run.workspaceId,
    jobVersion: run.jobVersion,
    scheduledAt: run.scheduledAt.toISOString(),
    ...(run.plannedAt ? { plannedAt: run.plannedAt.toISOString() } : {}),
    trigger: run.trigger,
    ...(run.retryOf ? { retryOf: run.retryOf } : {}),
    ...(job ? { display: describeForTemporal(job) } : {}),
    attemptsBefore: run.attemptsCount,
    ...(options.notifyJob ? { notifyJob: true } : {}),
  };
}

import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  getExternalWorkflowHandle,
  isCancellation,
  patched,
  proxyActivities,
  setCurrentDetails,
  setHandler,
} from '@temporalio/workflow';
import type { RunActivities } from './activity-types';
import {
  ATTEMPT_HEARTBEAT_TIMEOUT_MS,
  describeRunQuery,
  jobWorkflowId,
  RUN_PATH_PATCH,
  runFinishedSignal,
  type RunWorkflowDescription,
  type RunWorkflowInput,
} from './definitions';
import { attemptSummary, firstAttempt } from './display';
import { legacyRunWorkflow } from './legacy/run.workflow.v1';

/** Error types of `runAttempt` that must not be retried by Temporal. */
export const NON_RETRYABLE_ATTEMPT_ERRORS = ['RunGone'];

/**
 * One attempt per activity execution. User-visible retries come from the activity's own attempt
 * counter and `nextRetryDelay` (the job's backoff with jitter and Retry-After); this policy's own
 * backoff only paces infrastructure errors (database or worker trouble), which consume no attempt.
 * The start-to-close timeout covers the longest job timeout (120 s) plus the bookkeeping.
 */
const attempts = proxyActivities<RunActivities>({
  startToCloseTimeout: '150s',
  heartbeatTimeout: ATTEMPT_HEARTBEAT_TIMEOUT_MS,
  retry: {
    initialInterval: '1s',
    backoffCoefficient: 2,
    maximumInterval: '1m',
    nonRetryableErrorTypes: NON_RETRYABLE_ATTEMPT_ERRORS,
  },
});
const bookkeeping = proxyActivities<RunActivities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', maximumInterval: '30s' },
});

/**
 * One per run (workflow id = run id, searchable by job, workspace and trigger). Its first
 * workflow task schedules the attempt activity, which claims, delivers and records in one step;
 * the run row already exists (written when the occurrence was due, or by the API on trigger).
 */
export async function runWorkflow(input: RunWorkflowInput): Promise<string> {
  if (!patched(RUN_PATH_PATCH)) {
    return legacyRunWorkflow(input);
  }
  // Read by the `describe` query and the UI's current details; no commands, so replay-safe.
  const first = firstAttempt(input);
  const releaseAt = input.releasedAt ?? input.scheduledAt;
  const state: Omit<RunWorkflowDescription, 'asOf'> = {
    runId: input.runId,
    jobId: input.jobId,
    trigger: input.trigger,
    scheduledAt: input.scheduledAt,
    phase: Date.parse(releaseAt) > Date.now() ? 'waiting_for_instant' : 'attempting',
    since: nowIso(),
    until: Date.parse(releaseAt) > Date.now() ? releaseAt : null,
    firstAttempt: first,
    maxAttempts: input.display?.maxAttempts ?? null,
    target: input.display?.target ?? null,
    status: null,
    lastOutcome: null,
  };
  const enter = (phase: RunWorkflowDescription['phase'], changes: Partial<RunWorkflowDescription> = {}) => {
    Object.assign(state, { phase, since: nowIso(), until: null }, changes);
    setCurrentDetails(describeRunState(state));
  };
  setHandler(describeRunQuery, () => ({ ...state, asOf: nowIso() }));
  setCurrentDetails(describeRunState(state));

  let status: string;
  try {
    const result = await attempts.runAttempt.executeWithOptions(
      { summary: attemptSummary(input.display, first), heartbeatTimeout: attemptHeartbeatTimeoutMs(releaseAt) },
      [input],
    );
    status = result.status;
    enter('done', { status, lastOutcome: result.outcome ?? null });
  } catch (err) {
    if (isCancellation(err)) {
      enter('finishing', { status: 'cancelled' });
      await CancellationScope.nonCancellable(async () => {
        await bookkeeping.finishRun({ runId: input.runId, status: 'cancelled' });
        if (input.notifyJob) {
          await notifyJob(input);
        }
      });
      enter('done', { status: 'cancelled' });
      throw err;
    }
    const error = failureMessage(err);
    enter('finishing', { status: 'failed', lastOutcome: error });
    await bookkeeping.finishRun({ runId: input.runId, status: 'failed', error });
    status = 'failed';
    enter('done', { status, lastOutcome: error });
  }
  // Only when asked: an `await` on nothing still makes promises, each one a captured stack trace.
  if (input.notifyJob) {
    await notifyJob(input);
  }
  return status;
}

/**
 * An attempt opened ahead of its instant waits for it inside the activity without heartbeating:
 * each heartbeat is a write on the server, about three per occurrence of a burst prepared 20 s
 * ahead. Its heartbeat timeout covers the wait, so a worker lost during the wait is noticed
 * ATTEMPT_HEARTBEAT_TIMEOUT_MS after the instant (docs/architecture.md → Bursts prepared ahead).
 * Only the option changes, which replay does not compare, so no patch is needed.
 */
function attemptHeartbeatTimeoutMs(releaseAt: string): number {
  return ATTEMPT_HEARTBEAT_TIMEOUT_MS + Math.max(0, Date.parse(releaseAt) - Date.now());
}

/** The run's state in words, for the Temporal Web UI's current details. */
function describeRunState(state: Omit<RunWorkflowDescription, 'asOf'>): string {
  switch (state.phase) {
    case 'waiting_for_instant':
      return `Waiting for the scheduled instant ${state.until ?? ''}, then sending attempt ${state.firstAttempt}.`;
    case 'attempting':
      return `Attempting since ${state.since} (from attempt ${state.firstAttempt}${state.maxAttempts ? ` of ${state.maxAttempts}` : ''}): the pending \`runAttempt\` activity shows the current attempt, its last failure and the next retry time.`;
    case 'finishing':
      return `Recording the end (${state.status ?? ''}).`;
    case 'done':
      return `Done: ${state.status ?? ''}${state.lastOutcome ? ` (${state.lastOutcome})` : ''}.`;
  }
}

function nowIso(): string {
  return new Date(Date.now()).toISOString();
}

/** Tells the job workflow this run ended (`input.notifyJob`: it tracks runs for its overlap policy). */
async function notifyJob(input: RunWorkflowInput): Promise<void> {
  try {
    await getExternalWorkflowHandle(jobWorkflowId(input.jobId)).signal(runFinishedSignal, input.runId);
  } catch {
    // The job workflow is gone (job deleted): nobody is waiting for this run.
  }
}

function failureMessage(err: unknown): string {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure) {
    return cause.message;
  }
  return cause instanceof Error ? cause.message : String(cause);
}

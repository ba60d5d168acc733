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
  sleep,
} from '@temporalio/workflow';
import type {
  DestinationWaitDetails,
  RetryableDeliveryDetails,
  RunActivities,
  RunAttemptResult,
} from '@svc/workflow-contract/activity-types';
import {
  attemptStartedSignal,
  ATTEMPT_BUDGET_MS,
  ATTEMPT_HEARTBEAT_TIMEOUT_MS,
  describeRunQuery,
  DESTINATION_WAIT,
  DESTINATION_WAIT_PATCH,
  jobWorkflowId,
  RUN_ENDS_AS_STATUS_PATCH,
  RUN_FAILED,
  RUN_PATH_PATCH,
  runFinishedSignal,
  type RunFailedDetails,
  type RunWorkflowDescription,
  type RunWorkflowInput,
} from '@svc/workflow-contract/definitions';
import { attemptsSummary, attemptSummary, firstAttempt } from '@svc/workflow-contract/display';
import { legacyRunWorkflow } from './legacy/run.workflow.v1';
import { failureMessage } from './failure-message';

/** Error types of `runAttempt` that must not be retried by Temporal. */
export const NON_RETRYABLE_ATTEMPT_ERRORS = ['RunGone'];

/**
 * One attempt per activity execution. User-visible retries come from the activity's own attempt
 * counter and `nextRetryDelay` (the job's backoff with jitter and Retry-After); this policy's own
 * backoff only paces infrastructure errors (database or worker trouble), which consume no attempt.
 * The start-to-close timeout covers the longest job timeout (120 s) plus the bookkeeping, and
 * the wait of an attempt opened ahead of its instant (set per call, see `attemptTimeouts`).
 */
const attempts = proxyActivities<RunActivities>({
  startToCloseTimeout: ATTEMPT_BUDGET_MS,
  heartbeatTimeout: ATTEMPT_HEARTBEAT_TIMEOUT_MS,
  retry: {
    initialInterval: '1s',
    backoffCoefficient: 2,
    maximumInterval: '1m',
    nonRetryableErrorTypes: NON_RETRYABLE_ATTEMPT_ERRORS,
  },
});
/** Pause before a new attempt activity when Temporal's budget ran out on infrastructure errors. */
const INFRA_RETRY_PAUSE_MS = 60_000;
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
  // A versioned input needs no marker; an older one takes the newest patch first, so a new
  // execution records only that marker (see RUN_ENDS_AS_STATUS_PATCH).
  const endsAsStatus = (input.codeVersion ?? 0) >= 3 || patched(RUN_ENDS_AS_STATUS_PATCH);
  if (!endsAsStatus && !patched(RUN_PATH_PATCH)) {
    return legacyRunWorkflow(input);
  }
  // Read by the `describe` query and the UI's current details; no commands, so replay-safe.
  const first = firstAttempt(input);
  // A queued run's release, else its planned time (a start window), else its occurrence.
  const releaseAt = input.releasedAt ?? input.plannedAt ?? input.scheduledAt;
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

  if (endsAsStatus) {
    return runToTheEnd(input, first, releaseAt, enter);
  }

  let status: string;
  try {
    const result = await attempts.runAttempt.executeWithOptions(
      { summary: attemptSummary(input.display, first), ...attemptTimeouts(releaseAt) },
      [input],
    );
    status = result.status;
    enter('done', { status, lastOutcome: result.outcome ?? null });
  } catch (err) {
    if (isCancellation(err)) {
      await endCancelled(input, enter);
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
 * The run under `RUN_ENDS_AS_STATUS_PATCH`: its workflow ends as the run did. Succeeded
 * and skipped complete; failed throws a non-retryable `RunFailed` (the Web UI's Failed, found by
 * `ExecutionStatus = 'Failed'`) carrying the last error and the attempt count; cancelled ends
 * Canceled. The attempt activity's retry policy carries the job's attempt budget, so the Web UI
 * reads `Attempt 2 / 5`. An infrastructure error also counts as a Temporal attempt; when Temporal's
 * budget runs out before the run's own counter does, the run is still open and gets a new attempt
 * activity with the attempts it has left.
 */
async function runToTheEnd(
  input: RunWorkflowInput,
  first: number,
  releaseAt: string,
  enter: (phase: RunWorkflowDescription['phase'], changes?: Partial<RunWorkflowDescription>) => void,
): Promise<string> {
  const budget = input.display?.maxAttempts ?? null;
  // Temporal's retry does not wake the workflow; the attempt says when a retry begins.
  setHandler(attemptStartedSignal, ({ attempt, previous }) => {
    enter('attempting', { attempt, lastOutcome: previous });
  });
  let from = first;
  let result: RunAttemptResult;
  // Destination limits: a wait for the destination ends the activity and the workflow
  // sleeps it out, so it spends no attempt of the run's nor of Temporal's budget.
  const destinationWaits = (input.codeVersion ?? 0) >= 4 || patched(DESTINATION_WAIT_PATCH);
  for (;;) {
    try {
      result = await attempts.runAttempt.executeWithOptions(
        {
          summary: attemptsSummary(input.display, from),
          ...attemptTimeouts(releaseAt),
          ...(budget !== null || destinationWaits
            ? {
                retry: {
                  ...(budget !== null ? { maximumAttempts: Math.max(1, budget - from + 1) } : {}),
                  ...(destinationWaits
                    ? { nonRetryableErrorTypes: [...NON_RETRYABLE_ATTEMPT_ERRORS, DESTINATION_WAIT] }
                    : {}),
                },
              }
            : {}),
        },
        [input],
      );
      break;
    } catch (err) {
      const wait = destinationWaits ? destinationWait(err) : null;
      if (wait) {
        from = wait.attempts + 1;
        enter('waiting_for_destination', {
          until: wait.retryAt,
          firstAttempt: from,
          lastOutcome: `${wait.reason} (${wait.destination})`,
        });
        try {
          await sleep(Math.max(1, Date.parse(wait.retryAt) - Date.now()));
        } catch (cancelled) {
          // Cancelled while waiting for the destination (job deleted, `cancel_previous`, a user).
          if (isCancellation(cancelled)) {
            await endCancelled(input, enter);
          }
          throw cancelled;
        }
        enter('attempting', { firstAttempt: from });
        continue;
      }
      if (isCancellation(err)) {
        await endCancelled(input, enter);
        throw err;
      }
      const made = attemptsMade(err);
      if (budgetRanOut(err) && (made === null || made < (budget ?? Infinity))) {
        // Only infrastructure errors exhaust it (the run's last attempt closes the run itself).
        // When the last one says nothing of the run's count, wait as the old unbounded retry did.
        if (made === null) {
          await sleep(INFRA_RETRY_PAUSE_MS);
        } else {
          from = made + 1;
        }
        enter('attempting', { firstAttempt: from });
        continue;
      }
      const error = failureMessage(err);
      enter('finishing', { status: 'failed', lastOutcome: error });
      await bookkeeping.finishRun({ runId: input.runId, status: 'failed', error });
      result = { status: 'failed', error, attempts: made ?? from - 1 };
      break;
    }
  }
  enter('done', { status: result.status, lastOutcome: result.outcome ?? result.error ?? null });
  if (input.notifyJob) {
    await notifyJob(input);
  }
  if (result.status === 'failed') {
    const details: RunFailedDetails = {
      runId: input.runId,
      jobId: input.jobId,
      attempts: result.attempts ?? 0,
      lastError: result.error ?? result.outcome ?? 'failed',
    };
    throw ApplicationFailure.create({
      type: RUN_FAILED,
      // The last error says how many attempts when there were several (`HTTP 500 (after 3 attempts)`).
      message: `run failed: ${details.lastError}`,
      nonRetryable: true,
      details: [details],
    });
  }
  return result.status;
}

/** Records a cancelled run (and tells its job workflow when it listens). */
async function endCancelled(
  input: RunWorkflowInput,
  enter: (phase: RunWorkflowDescription['phase'], changes?: Partial<RunWorkflowDescription>) => void,
): Promise<void> {
  enter('finishing', { status: 'cancelled' });
  await CancellationScope.nonCancellable(async () => {
    await bookkeeping.finishRun({ runId: input.runId, status: 'cancelled' });
    if (input.notifyJob) {
      await notifyJob(input);
    }
  });
  enter('done', { status: 'cancelled' });
}

/** The wait a `DestinationWait` failure of the attempt names, else null. */
function destinationWait(err: unknown): DestinationWaitDetails | null {
  const cause = err instanceof ActivityFailure ? err.cause : null;
  if (cause instanceof ApplicationFailure && cause.type === DESTINATION_WAIT) {
    const details = cause.details?.[0] as DestinationWaitDetails | undefined;
    if (typeof details?.attempts === 'number' && typeof details.retryAt === 'string') {
      return details;
    }
  }
  return null;
}

/** Temporal's attempts of the activity ran out (the run's own counter may not have). */
function budgetRanOut(err: unknown): boolean {
  return err instanceof ActivityFailure && err.retryState === 'MAXIMUM_ATTEMPTS_REACHED';
}

/** Attempts the run had made by the last retryable delivery failure, when it says. */
function attemptsMade(err: unknown): number | null {
  const cause = err instanceof ActivityFailure ? err.cause : null;
  if (cause instanceof ApplicationFailure && cause.type === 'RetryableDelivery') {
    const details = cause.details?.[0] as RetryableDeliveryDetails | undefined;
    return typeof details?.attempts === 'number' ? details.attempts : null;
  }
  return null;
}

/**
 * An attempt opened ahead of its instant waits for it inside the activity without heartbeating:
 * each heartbeat is a write on the server, about three per occurrence of a burst prepared 20 s
 * ahead. Both timeouts cover the wait on top of their own: a worker lost during the wait is noticed
 * ATTEMPT_HEARTBEAT_TIMEOUT_MS after the instant, and a burst opened minutes ahead still has the
 * whole budget for its request (docs/architecture.md → Bursts prepared ahead). Only options
 * change, which replay does not compare, so no patch is needed.
 */
function attemptTimeouts(releaseAt: string): { heartbeatTimeout: number; startToCloseTimeout: number } {
  const waitMs = Math.max(0, Date.parse(releaseAt) - Date.now());
  return { heartbeatTimeout: ATTEMPT_HEARTBEAT_TIMEOUT_MS + waitMs, startToCloseTimeout: ATTEMPT_BUDGET_MS + waitMs };
}

/** The run's state in words, for the Temporal Web UI's current details. */
function describeRunState(state: Omit<RunWorkflowDescription, 'asOf'>): string {
  switch (state.phase) {
    case 'waiting_for_instant':
      return `Waiting for the scheduled instant ${state.until ?? ''}, then sending attempt ${state.firstAttempt}.`;
    case 'waiting_for_destination':
      return `Waiting for the destination until ${state.until ?? ''} (${state.lastOutcome ?? ''}), then sending attempt ${state.firstAttempt}; the wait spends no attempt.`;
    case 'attempting':
      if (state.attempt !== undefined) {
        return `Attempt ${state.attempt}${state.maxAttempts ? ` of ${state.maxAttempts}` : ''} since ${state.since}${state.lastOutcome ? ` (previous: ${state.lastOutcome})` : ''}.`;
      }
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

import { workflowUiUrl } from '@svc/delivery';
import type { AttemptEntity, RunEntity, StartedWorkflowColumn } from '@svc/persistence';
import type { PendingAttemptView, StuckVerdict } from '@svc/orchestration';
import { ATTEMPT_HEARTBEAT_TIMEOUT_MS } from '@svc/workflow-contract/definitions';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * The workflow a `temporal_workflow` sink started, with its Temporal UI page (`temporal.ui_url`),
 * or null.
 */
function startedWorkflowView(ref: StartedWorkflowColumn | null | undefined, uiUrl: string | null) {
  return ref
    ? { namespace: ref.namespace, workflow_id: ref.workflow_id, run_id: ref.run_id, ui_url: workflowUiUrl(uiUrl, ref) }
    : null;
}

/**
 * The spec's run object; `attempts` is a count in lists and an array on the single GET. `uiUrl`:
 * the Temporal UI (`temporal.ui_url`) that `started_workflow.ui_url` links into.
 */
export function toRunResponse(run: RunEntity, attempts?: AttemptEntity[], uiUrl: string | null = null) {
  return {
    id: run.id,
    job_id: run.jobId,
    job_version: run.jobVersion,
    scheduled_at: run.scheduledAt.toISOString(),
    // Nominal time + the job's start-window offset; the nominal time without a window.
    planned_at: (run.plannedAt ?? run.scheduledAt).toISOString(),
    trigger: run.trigger,
    status: run.status,
    attempts: attempts ? attempts.map((attempt) => toAttemptResponse(attempt, uiUrl)) : run.attemptsCount,
    claimed_at: iso(run.claimedAt),
    started_at: iso(run.startedAt),
    finished_at: iso(run.finishedAt),
    next_attempt_at: iso(run.nextAttemptAt),
    start_lag_ms: run.startLagMs,
    e2e_ms: run.e2eMs,
    sla_breached: run.slaBreached,
    last_error: run.lastError,
    started_workflow: startedWorkflowView(run.startedWorkflow, uiUrl),
    overrides: run.overrides ?? null,
    ...(run.skipReason ? { skip_reason: run.skipReason } : {}),
    // `?? null`: unit fixtures built before the column existed have no skipNote property.
    ...((run.skipNote ?? null) !== null ? { skip_note: run.skipNote } : {}),
    ...(run.retryOf ? { retry_of: run.retryOf } : {}),
    // `?? null`: unit fixtures built before the column existed.
    ...((run.backfillId ?? null) !== null ? { backfill_id: run.backfillId } : {}),
    // Only while the run waits for its destination (`?? null`: fixtures without the column).
    ...(run.status === 'deferred' && (run.deferredReason ?? null) !== null
      ? { deferred_reason: run.deferredReason, deferred_destination: run.deferredDestination }
      : {}),
  };
}

export function toAttemptResponse(attempt: AttemptEntity, uiUrl: string | null = null) {
  return {
    n: attempt.n,
    started_at: attempt.startedAt.toISOString(),
    finished_at: iso(attempt.finishedAt),
    duration_ms: attempt.durationMs,
    outcome: attempt.outcome,
    status_code: attempt.statusCode,
    error: attempt.error,
    request_summary: attempt.requestSummary,
    response_body: attempt.responseBody,
    started_workflow: startedWorkflowView(attempt.startedWorkflow, uiUrl),
  };
}

export type RunResponse = ReturnType<typeof toRunResponse>;

/**
 * Why a run is stuck and what Temporal says it waits on (`GET /runs?stuck=true`), with the run
 * workflow's Temporal UI link and the CLI command that shows the same.
 */
export function toStuckResponse(
  runId: string,
  verdict: StuckVerdict,
  pending: PendingAttemptView | null,
  temporal: { namespace: string; ui_url: string | null },
) {
  const { namespace, ui_url } = temporal;
  return {
    reasons: verdict.reasons,
    explanation: explainStuck(verdict, pending),
    deadline: verdict.deadline.toISOString(),
    silent_for_ms: verdict.silentForMs,
    temporal: {
      namespace,
      workflow_id: runId,
      ui_url: ui_url
        ? `${ui_url.replace(/\/+$/, '')}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(runId)}`
        : null,
      describe_command: `temporal workflow describe --workflow-id ${runId} --namespace ${shellWord(namespace)}`,
      pending_activity: pending
        ? {
            activity_type: pending.activityType,
            state: pending.state,
            attempt: pending.attempt,
            scheduled_at: iso(pending.scheduledAt),
            last_started_at: iso(pending.lastStartedAt),
            last_heartbeat_at: iso(pending.lastHeartbeatAt),
            last_failure: pending.lastFailure,
          }
        : null,
    },
  };
}

export type StuckResponse = ReturnType<typeof toStuckResponse>;
/** A run in a list: `stuck` only in `?stuck=true` lists. */
export type RunListItem = RunResponse & { stuck?: StuckResponse };

/** The verdict in words: what is wrong and what Temporal says it waits on. */
function explainStuck(verdict: StuckVerdict, pending: PendingAttemptView | null): string {
  const parts: string[] = [];
  if (verdict.reasons.includes('past_retry_budget')) {
    parts.push(`still open after its whole retry budget (deadline ${verdict.deadline.toISOString()})`);
  }
  if (verdict.reasons.includes('no_heartbeat') && verdict.silentForMs !== null) {
    const silent = `${Math.round(verdict.silentForMs / 1000)} s`;
    parts.push(
      pending?.state === 'scheduled'
        ? `attempt ${pending.attempt} is due but no worker has picked it up for ${silent}`
        : `attempt ${pending?.attempt ?? '?'} has not heartbeated for ${silent} (timeout ${ATTEMPT_HEARTBEAT_TIMEOUT_MS / 1000} s)`,
    );
  }
  let waits = 'no pending activity: the workflow itself is not progressing (see its workflow task)';
  if (pending) {
    waits = `waits on ${pending.activityType} (${pending.state}, attempt ${pending.attempt})`;
    if (pending.lastFailure) {
      waits += `, last failure: ${pending.lastFailure}`;
    }
  }
  return `${parts.join('; ')}; ${waits}.`;
}

/** A namespace is `[A-Za-z0-9._-]`; quoted anyway if it ever is not. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9._-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

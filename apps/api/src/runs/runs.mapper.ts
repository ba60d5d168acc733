import type { AttemptEntity, RunEntity } from '@svc/persistence';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The spec's run object; `attempts` is a count in lists and an array on the single GET. */
export function toRunResponse(run: RunEntity, attempts?: AttemptEntity[]) {
  return {
    id: run.id,
    job_id: run.jobId,
    job_version: run.jobVersion,
    scheduled_at: run.scheduledAt.toISOString(),
    trigger: run.trigger,
    status: run.status,
    attempts: attempts ? attempts.map(toAttemptResponse) : run.attemptsCount,
    claimed_at: iso(run.claimedAt),
    started_at: iso(run.startedAt),
    finished_at: iso(run.finishedAt),
    next_attempt_at: iso(run.nextAttemptAt),
    start_lag_ms: run.startLagMs,
    e2e_ms: run.e2eMs,
    sla_breached: run.slaBreached,
    last_error: run.lastError,
    ...(run.skipReason ? { skip_reason: run.skipReason } : {}),
    ...(run.retryOf ? { retry_of: run.retryOf } : {}),
  };
}

export function toAttemptResponse(attempt: AttemptEntity) {
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
  };
}

export type RunResponse = ReturnType<typeof toRunResponse>;

/** Closing a run: its last attempt, terminal status, SLA verdict and the job failure streak in one statement. */
import type { EntityManager } from 'typeorm';
import type { AttemptOutcome } from '../entities/attempt.entity';
import type { StartedWorkflowColumn } from '../entities/json';
import type { JobState } from '../entities/job.entity';
import { RunEntity, type RunStatus } from '../entities/run.entity';
import { namedSql } from './named-sql';
import { entityFromRow, returnedRows } from './query-result';

/** What closes a run (`RunsRepository.close`). */
export interface RunClose {
  runId: string;
  status: RunStatus;
  finishedAt: Date;
  lastError?: string | null;
  skipReason?: string | null;
  /** The note of an occurrence a user skipped (`skip_reason: occurrence_skipped`). */
  skipNote?: string | null;
  /**
   * The attempt that ended the run, closed in the same statement; its row is written if `fast`
   * delivery has not written it yet, as `startAttempt` would have.
   */
  attempt?: { n: number; startedAt: Date; finish: AttemptFinish };
  /** The SLA threshold of a job that sets none, or whose row is gone. */
  defaultSlaThresholdMs: number;
}

/** A run just closed, and what its outcome did to its job. */
export interface ClosedRun {
  run: RunEntity;
  /** The SLA threshold the run was measured against. */
  slaThresholdMs: number;
  /** For `succeeded` / `failed` runs of a job that still exists: its failure streak before and after. */
  outcome: {
    previousFailures: number;
    consecutiveFailures: number;
    state: JobState;
    autoDisableThreshold: number | null;
  } | null;
}

export interface AttemptFinish {
  finishedAt: Date;
  durationMs: number;
  outcome: AttemptOutcome;
  statusCode: number | null;
  error: string | null;
  requestSummary: string;
  responseBody: string | null;
  /** The workflow a `temporal_workflow` sink started; recorded on the attempt and its run. */
  startedWorkflow?: StartedWorkflowColumn | null;
}

/** The parameters of `CLOSE_RUN`; the attempt's are null when no attempt ended the run. */
interface CloseRunParams {
  runId: string;
  status: RunStatus;
  finishedAt: Date;
  lastError: string | null;
  skipReason: string | null;
  skipNote: string | null;
  defaultSlaThresholdMs: number;
  attemptN: number | null;
  attemptStartedAt: Date | null;
  attemptFinishedAt: Date | null;
  durationMs: number | null;
  outcome: AttemptOutcome | null;
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
  requestSummary: string | null;
  startedWorkflow: StartedWorkflowColumn | null;
}

/**
 * The job row is locked first (then attempts, then the run), the order of every other writer, so
 * the streak read as `job_previous_failures` is the one this outcome replaces. Each step reads the
 * one before (`count(*) >= 0`) so PostgreSQL runs them in this order.
 */
const CLOSE_RUN = namedSql<CloseRunParams>(
  `WITH job AS (
     SELECT id, consecutive_failures, sla_threshold_ms FROM jobs
      WHERE id = (SELECT job_id FROM runs WHERE id = :runId)
      FOR UPDATE
   ), interrupted AS (
     -- older attempts a crash left open
     UPDATE attempts SET finished_at = :attemptStartedAt, outcome = 'retryable', error = 'interrupted',
            duration_ms = GREATEST(0, (EXTRACT(EPOCH FROM (:attemptStartedAt - started_at)) * 1000)::int)
      WHERE run_id = :runId AND n < :attemptN AND finished_at IS NULL AND (SELECT count(*) FROM job) >= 0
      RETURNING n
   ), attempt AS (
     -- the attempt that ended the run, written whole if it is not yet
     INSERT INTO attempts (run_id, n, workspace_id, started_at, request_summary, finished_at, duration_ms,
                           outcome, status_code, error, response_body, started_workflow)
     SELECT id, :attemptN, workspace_id, :attemptStartedAt, :requestSummary, :attemptFinishedAt, :durationMs,
            :outcome, :statusCode, :error, :responseBody, :startedWorkflow FROM runs
      WHERE id = :runId AND :attemptN::int IS NOT NULL AND (SELECT count(*) FROM interrupted) >= 0
     ON CONFLICT (run_id, n) DO UPDATE SET finished_at = EXCLUDED.finished_at,
            duration_ms = EXCLUDED.duration_ms, outcome = EXCLUDED.outcome, status_code = EXCLUDED.status_code,
            error = EXCLUDED.error, response_body = EXCLUDED.response_body,
            request_summary = EXCLUDED.request_summary, started_workflow = EXCLUDED.started_workflow
      WHERE attempts.finished_at IS NULL
     RETURNING n
   ), closed AS (
     -- the run, once (a terminal run is left alone), its SLA measured against the job threshold
     UPDATE runs SET status = :status, finished_at = :finishedAt,
            last_error = COALESCE(:lastError, last_error), skip_reason = :skipReason, skip_note = :skipNote,
            next_attempt_at = NULL,
            started_at = COALESCE(started_at, :attemptStartedAt),
            start_lag_ms = COALESCE(start_lag_ms,
              CASE WHEN :attemptStartedAt::timestamptz IS NOT NULL
                THEN GREATEST(0, (EXTRACT(EPOCH FROM (:attemptStartedAt - COALESCE(planned_at, scheduled_at))) * 1000)::int) END),
            attempts_count = GREATEST(attempts_count, :attemptN + 1),
            e2e_ms = GREATEST(0, (EXTRACT(EPOCH FROM (:finishedAt - COALESCE(planned_at, scheduled_at))) * 1000)::int),
            sla_breached = sla_breached OR COALESCE(:finishedAt > COALESCE(planned_at, scheduled_at)
              + (COALESCE((SELECT sla_threshold_ms FROM job), :defaultSlaThresholdMs::int) * interval '1 millisecond'), false),
            started_workflow = COALESCE(:startedWorkflow, started_workflow),
            updated_at = now()
      WHERE id = :runId AND status NOT IN ('succeeded', 'failed', 'skipped', 'cancelled')
        AND (SELECT count(*) FROM attempt) >= 0
      RETURNING runs.*
   ), outcome AS (
     -- the job last run and failure streak, for succeeded and failed runs only
     UPDATE jobs SET last_run_at = closed.scheduled_at, last_run_status = closed.status, updated_at = now(),
            consecutive_failures = CASE WHEN closed.status = 'failed' THEN jobs.consecutive_failures + 1 ELSE 0 END
       FROM closed
      WHERE jobs.id = closed.job_id AND closed.status IN ('succeeded', 'failed')
      RETURNING jobs.consecutive_failures, jobs.state, jobs.auto_disable_threshold
   )
   SELECT closed.*, job.consecutive_failures AS job_previous_failures, job.sla_threshold_ms AS job_sla_threshold_ms,
          outcome.consecutive_failures AS outcome_consecutive_failures, outcome.state AS outcome_state,
          outcome.auto_disable_threshold AS outcome_auto_disable_threshold
     FROM closed LEFT JOIN job ON true LEFT JOIN outcome ON true`,
);

/**
 * Closes a run once, in one statement: the attempt that ended it, the run's terminal status, and
 * for `succeeded` / `failed` the job's `last_run_*` and failure streak. Null when the run was
 * already terminal, so a re-executed activity changes nothing.
 */
export async function closeRun(manager: EntityManager, change: RunClose): Promise<ClosedRun | null> {
  const finish = change.attempt?.finish;
  const params: CloseRunParams = {
    runId: change.runId,
    status: change.status,
    finishedAt: change.finishedAt,
    lastError: change.lastError ?? null,
    skipReason: change.skipReason ?? null,
    skipNote: change.skipNote ?? null,
    defaultSlaThresholdMs: change.defaultSlaThresholdMs,
    attemptN: change.attempt?.n ?? null,
    attemptStartedAt: change.attempt?.startedAt ?? null,
    attemptFinishedAt: finish?.finishedAt ?? null,
    durationMs: finish?.durationMs ?? null,
    outcome: finish?.outcome ?? null,
    statusCode: finish?.statusCode ?? null,
    error: finish?.error ?? null,
    responseBody: finish?.responseBody ?? null,
    requestSummary: finish?.requestSummary ?? null,
    startedWorkflow: finish?.startedWorkflow ?? null,
  };
  const rows = returnedRows<Record<string, unknown>>(await manager.query(CLOSE_RUN.text, CLOSE_RUN.values(params)));
  const row = rows[0];
  if (!row) {
    return null;
  }
  return {
    run: entityFromRow(manager, RunEntity, row),
    slaThresholdMs: (row.job_sla_threshold_ms as number | null) ?? change.defaultSlaThresholdMs,
    outcome:
      row.outcome_state === null
        ? null
        : {
            previousFailures: row.job_previous_failures as number,
            consecutiveFailures: row.outcome_consecutive_failures as number,
            state: row.outcome_state as JobState,
            autoDisableThreshold: row.outcome_auto_disable_threshold as number | null,
          },
  };
}

import { DataSource, EntityManager } from 'typeorm';
import { AttemptEntity, type AttemptOutcome } from '../entities/attempt.entity';
import { type DeferredReason, RunEntity, type RunStatus, type RunTrigger } from '../entities/run.entity';
import type { JsonObject, StartedWorkflowColumn } from '../entities/json';
import type { JobState } from '../entities/job.entity';
import { UsageCounterEntity } from '../entities/usage-counter.entity';
import { affectedCount, entityFromRow, returnedRows } from './query-result';

/** A job's run as the jobs list shows it (`latestForJobs`). */
export interface LatestRun {
  id: string;
  status: RunStatus;
  trigger: RunTrigger;
  scheduledAt: Date;
  startedAt: Date | null;
  attemptsCount: number;
  nextAttemptAt: Date | null;
  slaBreached: boolean;
}

export const TERMINAL_RUN_STATUSES: RunStatus[] = ['succeeded', 'failed', 'skipped', 'cancelled'];

/** Which workspaces a run purge covers: all, those on `plans`, or those on any plan but `exceptPlans`. */
export interface RunPurgeScope {
  plans?: string[];
  exceptPlans?: string[];
}

export interface RunListFilter {
  jobId?: string;
  status?: RunStatus;
  /** Any of these statuses. */
  statuses?: RunStatus[];
  trigger?: RunTrigger;
  slaBreached?: boolean;
  from?: Date;
  to?: Date;
  /** Runs of jobs carrying this tag (jobs that still exist). */
  tag?: string;
  /** Keyset: strictly after this (scheduled_at DESC, id DESC) position. */
  after?: { scheduledAt: Date; id: string };
  /** Oldest first (no keyset); newest first otherwise. */
  oldestFirst?: boolean;
  limit: number;
}

/** Which failed runs a recover retries (issue 46); every given field must hold (AND). */
export interface RecoverableRunFilter {
  jobIds?: string[];
  /** The run's job carries every one of these tags. */
  tags?: string[];
  /** The run's job is a webhook job whose URL contains this (a pre-filter, as for jobs). */
  urlContains?: string;
  /** `scheduled_at` in [from, to). */
  from?: Date;
  to?: Date;
}

/** A failed run a recover may retry, with its job's sink (for the exact host rule). */
export interface RecoverableRun {
  id: string;
  jobId: string;
  scheduledAt: Date;
  sinkKind: string;
  sinkConfig: Record<string, unknown>;
}

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
   * The attempt that ended the run, closed in the same statement. Its row is written if it is not
   * yet (`fast` delivery records an attempt once its request has left), with the run's start
   * fields and older attempts a crash left open, as `startAttempt` would have.
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

/**
 * Named queries over runs and attempts. Every write used by worker activities is idempotent
 * (keyed by run id and attempt number) because Temporal may execute an activity more than once.
 */
export class RunsRepository {
  constructor(private readonly dataSource: DataSource) {}

  private get manager(): EntityManager {
    return this.dataSource.manager;
  }

  async getById(workspaceId: string, id: string): Promise<RunEntity | null> {
    return this.manager.findOne(RunEntity, { where: { workspaceId, id } });
  }

  async findByIdUnscoped(id: string, manager = this.manager): Promise<RunEntity | null> {
    return manager.findOne(RunEntity, { where: { id } });
  }

  /** Several runs in one query (a burst's attempts at their instant). */
  async findManyUnscoped(ids: string[]): Promise<RunEntity[]> {
    if (ids.length === 0) {
      return [];
    }
    return this.manager
      .getRepository(RunEntity)
      .createQueryBuilder('run')
      .where('run.id IN (:...ids)', { ids })
      .getMany();
  }

  async listAttempts(workspaceId: string, runId: string): Promise<AttemptEntity[]> {
    return this.manager.find(AttemptEntity, { where: { workspaceId, runId }, order: { n: 'ASC' } });
  }

  /** Newest first by scheduled_at, ties by id (spec: Runs). */
  async list(workspaceId: string, filter: RunListFilter): Promise<RunEntity[]> {
    const query = this.manager
      .getRepository(RunEntity)
      .createQueryBuilder('run')
      .where('run.workspaceId = :workspaceId', { workspaceId });
    if (filter.jobId) {
      query.andWhere('run.jobId = :jobId', { jobId: filter.jobId });
    }
    if (filter.status) {
      query.andWhere('run.status = :status', { status: filter.status });
    }
    if (filter.statuses) {
      query.andWhere('run.status IN (:...statuses)', { statuses: filter.statuses });
    }
    if (filter.trigger) {
      query.andWhere('run.trigger = :trigger', { trigger: filter.trigger });
    }
    if (filter.slaBreached) {
      query.andWhere('run.slaBreached = true');
    }
    if (filter.from) {
      query.andWhere('run.scheduledAt >= :from', { from: filter.from });
    }
    if (filter.to) {
      query.andWhere('run.scheduledAt < :to', { to: filter.to });
    }
    if (filter.tag) {
      query.andWhere(
        'run.jobId IN (SELECT j.id FROM jobs j WHERE j.workspace_id = :workspaceId AND j.tags @> ARRAY[:tag]::text[])',
        { tag: filter.tag },
      );
    }
    if (filter.after) {
      query.andWhere('(run.scheduledAt, run.id) < (:afterAt, :afterId)', {
        afterAt: filter.after.scheduledAt,
        afterId: filter.after.id,
      });
    }
    const order = filter.oldestFirst ? 'ASC' : 'DESC';
    return query.orderBy('run.scheduledAt', order).addOrderBy('run.id', order).take(filter.limit).getMany();
  }

  /**
   * Failed runs a manual retry may still be opened for (decisions.md → Manual retry), oldest
   * occurrence first, at most `limit`: their job exists, and their occurrence has no manual retry
   * yet (a failed retry names its own occurrence, so it is left out too).
   */
  async listRecoverable(workspaceId: string, filter: RecoverableRunFilter, limit: number): Promise<RecoverableRun[]> {
    const rows: Array<{
      id: string;
      job_id: string;
      scheduled_at: Date;
      sink_kind: string;
      sink_config: Record<string, unknown>;
    }> = await this.manager.query(
      `SELECT r.id, r.job_id, r.scheduled_at, j.sink_kind, j.sink_config
         FROM runs r JOIN jobs j ON j.id = r.job_id AND j.workspace_id = r.workspace_id
        WHERE r.workspace_id = $1 AND r.status = 'failed'
          AND ($2::text[] IS NULL OR r.job_id = ANY($2))
          AND ($3::text[] IS NULL OR j.tags @> $3)
          AND ($4::text IS NULL OR (j.sink_kind = 'webhook' AND j.sink_config->>'url' ILIKE '%' || $4 || '%'))
          AND ($5::timestamptz IS NULL OR r.scheduled_at >= $5)
          AND ($6::timestamptz IS NULL OR r.scheduled_at < $6)
          AND NOT EXISTS (SELECT 1 FROM runs m WHERE m.job_id = r.job_id AND m.scheduled_at = r.scheduled_at
                             AND m.trigger = 'retry_manual')
        ORDER BY r.scheduled_at, r.id
        LIMIT $7`,
      [
        workspaceId,
        filter.jobIds ?? null,
        filter.tags && filter.tags.length > 0 ? filter.tags : null,
        filter.urlContains === undefined ? null : filter.urlContains.replace(/[\\%_]/g, (c) => `\\${c}`),
        filter.from ?? null,
        filter.to ?? null,
        limit,
      ],
    );
    return rows.map((row) => ({
      id: row.id,
      jobId: row.job_id,
      scheduledAt: new Date(row.scheduled_at),
      sinkKind: row.sink_kind,
      sinkConfig: row.sink_config,
    }));
  }

  async listInFlightForJob(workspaceId: string, jobId: string): Promise<RunEntity[]> {
    return this.manager
      .getRepository(RunEntity)
      .createQueryBuilder('run')
      .where('run.workspaceId = :workspaceId AND run.jobId = :jobId', { workspaceId, jobId })
      .andWhere('run.status IN (:...statuses)', { statuses: ['running', 'deferred'] })
      .getMany();
  }

  async hasInFlightRun(workspaceId: string, jobId: string, excludeRunId: string): Promise<boolean> {
    const count = await this.manager
      .getRepository(RunEntity)
      .createQueryBuilder('run')
      .where('run.workspaceId = :workspaceId AND run.jobId = :jobId AND run.id <> :excludeRunId', {
        workspaceId,
        jobId,
        excludeRunId,
      })
      .andWhere('run.status IN (:...statuses)', { statuses: ['running', 'deferred'] })
      .getCount();
    return count > 0;
  }

  /** A queued run (overlap_policy `queue`): deferred, never attempted, not scheduled for a retry. */
  async hasWaitingRun(workspaceId: string, jobId: string, excludeRunId: string): Promise<boolean> {
    const rows: unknown[] = await this.manager.query(
      `SELECT 1 FROM runs WHERE workspace_id = $1 AND job_id = $2 AND id <> $3
          AND status = 'deferred' AND attempts_count = 0 AND next_attempt_at IS NULL LIMIT 1`,
      [workspaceId, jobId, excludeRunId],
    );
    return rows.length > 0;
  }

  /** Whether a run of the same job claimed before `run` is still running or deferred. */
  async hasOlderInFlightRun(run: RunEntity): Promise<boolean> {
    const rows: unknown[] = await this.manager.query(
      `SELECT 1 FROM runs WHERE workspace_id = $1 AND job_id = $2 AND id <> $3
          AND status IN ('running', 'deferred') AND (claimed_at, id) < ($4, $3) LIMIT 1`,
      [run.workspaceId, run.jobId, run.id, run.claimedAt],
    );
    return rows.length > 0;
  }

  /**
   * Removes a run that never made an attempt, and takes it back out of the month's usage, in one
   * statement: a trigger that failed to reach Temporal, or an occurrence prepared ahead of its time
   * whose job was paused or changed before that time came (it never existed). With `jobVersion`,
   * only while the row still belongs to that version (a newer one may have adopted it meanwhile).
   * True if it was removed.
   */
  async deleteUnstarted(workspaceId: string, id: string, jobVersion?: number): Promise<boolean> {
    const rows: Array<{ deleted: number }> = await this.manager.query(
      `WITH gone AS (
         DELETE FROM runs
          WHERE workspace_id = $1 AND id = $2 AND status = 'running' AND attempts_count = 0 AND started_at IS NULL
            AND ($3::int IS NULL OR job_version = $3)
          RETURNING workspace_id, to_char(scheduled_at AT TIME ZONE 'UTC', 'YYYY-MM') AS month
       ), uncounted AS (
         UPDATE usage_counters u SET runs = GREATEST(0, u.runs - 1)
           FROM gone WHERE u.workspace_id = gone.workspace_id AND u.month = gone.month
         RETURNING 1
       )
       SELECT (SELECT count(*) FROM gone)::int AS deleted, (SELECT count(*) FROM uncounted)::int AS uncounted`,
      [workspaceId, id, jobVersion ?? null],
    );
    return (rows[0]?.deleted ?? 0) > 0;
  }

  /** Cancels a run still waiting its turn (overlap_policy `queue`); one that started is left alone. */
  async cancelWaitingRun(runId: string, at: Date): Promise<void> {
    await this.manager.query(
      `UPDATE runs SET status = 'cancelled', finished_at = $2, updated_at = now()
        WHERE id = $1 AND status = 'deferred' AND attempts_count = 0 AND next_attempt_at IS NULL`,
      [runId, at],
    );
  }

  async markRunning(runId: string): Promise<void> {
    await this.manager.query(
      `UPDATE runs SET status = 'running', updated_at = now() WHERE id = $1 AND status = 'deferred'`,
      [runId],
    );
  }

  /**
   * Response-body retention (decisions.md → Response bodies): clears `response_body` of at most
   * `limit` attempts of every workspace that finished before `cutoff`, oldest first, and returns
   * how many. Served by the partial index `idx_attempts_body_finished_at`; rows locked by another
   * purge are skipped, so several processes may run it at once.
   */
  async clearResponseBodiesFinishedBefore(cutoff: Date, limit: number): Promise<number> {
    const rows: unknown = await this.manager.query(
      `UPDATE attempts SET response_body = NULL
        WHERE (run_id, n) IN (
          SELECT run_id, n FROM attempts
           WHERE response_body IS NOT NULL AND finished_at < $1
           ORDER BY finished_at LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING run_id`,
      [cutoff, limit],
    );
    return returnedRows(rows).length;
  }

  /**
   * Run retention (decisions.md → Response bodies; config `runs.retention`): deletes at most
   * `limit` runs of every workspace (or only of workspaces on `scope.plans`, or on any plan but
   * `scope.exceptPlans`) that are terminal and finished before `cutoff`, oldest first, and returns
   * how many. Their attempts go with them (`fk_attempts_run` is ON DELETE CASCADE); open runs
   * (`running`, `deferred`) are never touched. Served by the partial index
   * `idx_runs_finished_terminal`; rows locked by another purge (or a live write) are skipped, so
   * several processes may run it at once and it never waits on the live path.
   */
  async deleteFinishedBefore(cutoff: Date, limit: number, scope: RunPurgeScope = {}): Promise<number> {
    const params: unknown[] = [cutoff, limit];
    let planFilter = '';
    if (scope.plans) {
      params.push(scope.plans);
      planFilter = 'AND workspace_id IN (SELECT id FROM workspaces WHERE plan = ANY($3::text[]))';
    } else if (scope.exceptPlans && scope.exceptPlans.length > 0) {
      params.push(scope.exceptPlans);
      planFilter = 'AND workspace_id NOT IN (SELECT id FROM workspaces WHERE plan = ANY($3::text[]))';
    }
    const result: unknown = await this.manager.query(
      `DELETE FROM runs WHERE id IN (
         SELECT id FROM runs
          WHERE status IN ('succeeded', 'failed', 'skipped', 'cancelled') AND finished_at < $1 ${planFilter}
          ORDER BY finished_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      params,
    );
    return affectedCount(result);
  }

  /**
   * The run that tells how each of these jobs is doing (the jobs list, issue 44), in one query for
   * the page: its open run if it has one (running or deferred, the newest), else its newest run.
   * `sla_breached` also counts an open run already past its job's SLA threshold (the alert sweeper
   * marks it on its next pass).
   */
  async latestForJobs(
    workspaceId: string,
    jobIds: string[],
    defaultSlaThresholdMs: number,
    now: Date,
  ): Promise<Map<string, LatestRun>> {
    if (jobIds.length === 0) {
      return new Map();
    }
    const rows = (await this.manager.query(
      `SELECT DISTINCT ON (r.job_id) r.id, r.job_id, r.status, r.trigger, r.scheduled_at, r.started_at,
              r.attempts_count, r.next_attempt_at,
              r.sla_breached OR (r.status IN ('running', 'deferred')
                AND COALESCE(r.planned_at, r.scheduled_at) + COALESCE(j.sla_threshold_ms, $3::int) * interval '1 millisecond' < $4)
                AS sla_breached
         FROM runs r JOIN jobs j ON j.id = r.job_id
        WHERE r.workspace_id = $1 AND r.job_id = ANY($2::text[])
        ORDER BY r.job_id, (r.status IN ('running', 'deferred')) DESC, r.scheduled_at DESC, r.id DESC`,
      [workspaceId, jobIds, defaultSlaThresholdMs, now],
    )) as Array<{
      id: string;
      job_id: string;
      status: RunStatus;
      trigger: RunTrigger;
      scheduled_at: Date;
      started_at: Date | null;
      attempts_count: number;
      next_attempt_at: Date | null;
      sla_breached: boolean;
    }>;
    return new Map(
      rows.map((row) => [
        row.job_id,
        {
          id: row.id,
          status: row.status,
          trigger: row.trigger,
          scheduledAt: row.scheduled_at,
          startedAt: row.started_at,
          attemptsCount: row.attempts_count,
          nextAttemptAt: row.next_attempt_at,
          slaBreached: row.sla_breached,
        },
      ]),
    );
  }

  async stats(workspaceId: string, jobId: string, since: Date) {
    const rows: Array<Record<string, string | null>> = await this.manager.query(
      `SELECT count(*) AS runs,
              count(*) FILTER (WHERE status = 'succeeded') AS succeeded,
              count(*) FILTER (WHERE status = 'failed') AS failed,
              count(*) FILTER (WHERE sla_breached) AS sla_breached,
              percentile_cont(0.95) WITHIN GROUP (ORDER BY start_lag_ms) AS p95
         FROM runs WHERE workspace_id = $1 AND job_id = $2 AND scheduled_at >= $3`,
      [workspaceId, jobId, since],
    );
    const row = rows[0];
    return {
      runs: Number(row.runs),
      succeeded: Number(row.succeeded),
      failed: Number(row.failed),
      sla_breached: Number(row.sla_breached),
      p95_start_lag_ms: row.p95 === null ? null : Math.round(Number(row.p95)),
    };
  }

  async monthlyUsage(workspaceId: string, month: string): Promise<number> {
    const row = await this.manager.findOne(UsageCounterEntity, { where: { workspaceId, month } });
    return row?.runs ?? 0;
  }

  /**
   * Records that attempt `n` starts: the attempt row (once), older attempts left open by a crash
   * closed as `retryable`/`interrupted`, and the run moved to `running`.
   */
  async startAttempt(run: RunEntity, n: number, startedAt: Date, requestSummary: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await manager.query(
        `UPDATE attempts SET finished_at = $3, outcome = 'retryable', error = 'interrupted',
                duration_ms = GREATEST(0, (EXTRACT(EPOCH FROM ($3 - started_at)) * 1000)::int)
          WHERE run_id = $1 AND n < $2 AND finished_at IS NULL`,
        [run.id, n, startedAt],
      );
      await manager.query(
        `INSERT INTO attempts (run_id, n, workspace_id, started_at, request_summary)
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (run_id, n) DO NOTHING`,
        [run.id, n, run.workspaceId, startedAt, requestSummary],
      );
      await manager.query(
        `UPDATE runs SET status = 'running',
                started_at = COALESCE(started_at, $2),
                start_lag_ms = COALESCE(start_lag_ms, GREATEST(0, (EXTRACT(EPOCH FROM ($2 - COALESCE(planned_at, scheduled_at))) * 1000)::int)),
                attempts_count = GREATEST(attempts_count, $3),
                next_attempt_at = NULL, deferred_reason = NULL, deferred_destination = NULL, updated_at = now()
          WHERE id = $1 AND status IN ('running', 'deferred')`,
        [run.id, startedAt, n + 1],
      );
    });
  }

  /**
   * `startAttempt` for many runs in one transaction of three statements (a burst's attempts
   * released at the same instant), with the same effect on each run as its own call.
   */
  async startAttempts(
    starts: Array<{ run: RunEntity; n: number; startedAt: Date; requestSummary: string }>,
  ): Promise<void> {
    if (starts.length === 0) {
      return;
    }
    const records = JSON.stringify(
      starts.map((s) => ({
        run_id: s.run.id,
        n: s.n,
        workspace_id: s.run.workspaceId,
        started_at: s.startedAt.toISOString(),
        request_summary: s.requestSummary,
      })),
    );
    const recordset = `jsonb_to_recordset($1::jsonb) AS s(run_id text, n int, workspace_id text, started_at timestamptz,
                request_summary text)`;
    await this.dataSource.transaction(async (manager) => {
      await manager.query(
        `UPDATE attempts a SET finished_at = s.started_at, outcome = 'retryable', error = 'interrupted',
                duration_ms = GREATEST(0, (EXTRACT(EPOCH FROM (s.started_at - a.started_at)) * 1000)::int)
           FROM ${recordset}
          WHERE a.run_id = s.run_id AND a.n < s.n AND a.finished_at IS NULL`,
        [records],
      );
      await manager.query(
        `INSERT INTO attempts (run_id, n, workspace_id, started_at, request_summary)
         SELECT s.run_id, s.n, s.workspace_id, s.started_at, s.request_summary FROM ${recordset}
         ON CONFLICT (run_id, n) DO NOTHING`,
        [records],
      );
      await manager.query(
        `UPDATE runs SET status = 'running',
                started_at = COALESCE(runs.started_at, s.started_at),
                start_lag_ms = COALESCE(runs.start_lag_ms,
                  GREATEST(0, (EXTRACT(EPOCH FROM (s.started_at - COALESCE(runs.planned_at, runs.scheduled_at))) * 1000)::int)),
                attempts_count = GREATEST(runs.attempts_count, s.n + 1),
                next_attempt_at = NULL, deferred_reason = NULL, deferred_destination = NULL, updated_at = now()
           FROM ${recordset}
          WHERE runs.id = s.run_id AND runs.status IN ('running', 'deferred')`,
        [records],
      );
    });
  }

  /** Closes attempts a crash left open as `retryable` / `interrupted`. */
  async closeInterruptedAttempts(runId: string, at: Date): Promise<void> {
    await this.manager.query(
      `UPDATE attempts SET finished_at = $2, outcome = 'retryable', error = 'interrupted',
              duration_ms = GREATEST(0, (EXTRACT(EPOCH FROM ($2 - started_at)) * 1000)::int)
        WHERE run_id = $1 AND finished_at IS NULL`,
      [runId, at],
    );
  }

  async finishAttempt(runId: string, n: number, finish: AttemptFinish, manager = this.manager): Promise<void> {
    await manager.query(
      `UPDATE attempts SET finished_at = $3, duration_ms = $4, outcome = $5, status_code = $6, error = $7,
              response_body = $8, request_summary = $9, started_workflow = $10
        WHERE run_id = $1 AND n = $2 AND finished_at IS NULL`,
      [
        runId,
        n,
        finish.finishedAt,
        finish.durationMs,
        finish.outcome,
        finish.statusCode,
        finish.error,
        finish.responseBody,
        finish.requestSummary,
        finish.startedWorkflow ?? null,
      ],
    );
    if (finish.startedWorkflow) {
      await manager.query(`UPDATE runs SET started_workflow = $2 WHERE id = $1`, [runId, finish.startedWorkflow]);
    }
  }

  /**
   * What attempt `n` started (a workflow), recorded as soon as it did: on the run, and on the
   * attempt row while it is open (in `fast` delivery mode the row is written after the send).
   */
  async recordStartedWorkflow(runId: string, n: number, ref: StartedWorkflowColumn): Promise<void> {
    await this.manager.query(
      `UPDATE attempts SET started_workflow = $3 WHERE run_id = $1 AND n = $2 AND finished_at IS NULL`,
      [runId, n, ref],
    );
    await this.manager.query(`UPDATE runs SET started_workflow = $2 WHERE id = $1`, [runId, ref]);
  }

  /** A retryable failure with attempts left: `deferred` until `nextAttemptAt`. */
  async deferRun(runId: string, nextAttemptAt: Date, lastError: string | null, manager = this.manager): Promise<void> {
    await manager.query(
      `UPDATE runs SET status = 'deferred', next_attempt_at = $2, last_error = $3,
              deferred_reason = NULL, deferred_destination = NULL, updated_at = now()
        WHERE id = $1 AND status IN ('running', 'deferred')`,
      [runId, nextAttemptAt, lastError],
    );
  }

  /**
   * The run waits for its destination (issue 46): `deferred` until `nextAttemptAt`, saying why and
   * for which destination. No attempt is counted (the wait spends no retry).
   */
  async deferForDestination(
    runId: string,
    nextAttemptAt: Date,
    reason: DeferredReason,
    destination: string,
  ): Promise<void> {
    await this.manager.query(
      `UPDATE runs SET status = 'deferred', next_attempt_at = $2, deferred_reason = $3, deferred_destination = $4,
              updated_at = now()
        WHERE id = $1 AND status IN ('running', 'deferred')`,
      [runId, nextAttemptAt, reason, destination],
    );
  }

  /** A run that waited for its destination got its lease: `running` again (its attempt follows). */
  async endDestinationWait(runId: string): Promise<void> {
    await this.manager.query(
      `UPDATE runs SET status = 'running', next_attempt_at = NULL, deferred_reason = NULL, deferred_destination = NULL,
              updated_at = now()
        WHERE id = $1 AND status = 'deferred' AND deferred_reason IS NOT NULL`,
      [runId],
    );
  }

  /** A retryable attempt with attempts left: the attempt closed and the run `deferred`, together. */
  async deferAfterAttempt(
    runId: string,
    attempt: { n: number; finish: AttemptFinish },
    nextAttemptAt: Date,
    lastError: string | null,
  ): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await this.finishAttempt(runId, attempt.n, attempt.finish, manager);
      await this.deferRun(runId, nextAttemptAt, lastError, manager);
    });
  }

  /**
   * Closes a run once, in one statement: the attempt that ended it (if any, recorded whole), the run
   * moved to its terminal status, and for `succeeded` / `failed` the job's `last_run_*` and failure streak.
   * The job row is locked first (then attempt, then run), the order of every other writer, so the
   * streak it returns as `previousFailures` is the one this outcome replaced. Null when the run
   * was already terminal: a re-executed activity changes nothing.
   */
  async close(change: RunClose, manager = this.manager): Promise<ClosedRun | null> {
    const finish = change.attempt?.finish;
    const rows = returnedRows<Record<string, unknown>>(
      await manager.query(
        `WITH job AS (
           SELECT id, consecutive_failures, sla_threshold_ms FROM jobs
            WHERE id = (SELECT job_id FROM runs WHERE id = $1)
            FOR UPDATE
         ), interrupted AS (
           UPDATE attempts SET finished_at = $16, outcome = 'retryable', error = 'interrupted',
                  duration_ms = GREATEST(0, (EXTRACT(EPOCH FROM ($16 - started_at)) * 1000)::int)
            WHERE run_id = $1 AND n < $6 AND finished_at IS NULL AND (SELECT count(*) FROM job) >= 0
            RETURNING n
         ), attempt AS (
           INSERT INTO attempts (run_id, n, workspace_id, started_at, request_summary, finished_at, duration_ms,
                                 outcome, status_code, error, response_body, started_workflow)
           SELECT id, $6, workspace_id, $16, $13, $7, $8, $9, $10, $11, $12, $14 FROM runs
            WHERE id = $1 AND $6::int IS NOT NULL AND (SELECT count(*) FROM interrupted) >= 0
           ON CONFLICT (run_id, n) DO UPDATE SET finished_at = EXCLUDED.finished_at,
                  duration_ms = EXCLUDED.duration_ms, outcome = EXCLUDED.outcome, status_code = EXCLUDED.status_code,
                  error = EXCLUDED.error, response_body = EXCLUDED.response_body,
                  request_summary = EXCLUDED.request_summary, started_workflow = EXCLUDED.started_workflow
            WHERE attempts.finished_at IS NULL
           RETURNING n
         ), closed AS (
           UPDATE runs SET status = $2, finished_at = $3,
                  last_error = COALESCE($4, last_error), skip_reason = $5, skip_note = $17, next_attempt_at = NULL,
                  started_at = COALESCE(started_at, $16),
                  start_lag_ms = COALESCE(start_lag_ms,
                    CASE WHEN $16::timestamptz IS NOT NULL
                      THEN GREATEST(0, (EXTRACT(EPOCH FROM ($16 - COALESCE(planned_at, scheduled_at))) * 1000)::int) END),
                  attempts_count = GREATEST(attempts_count, $6 + 1),
                  e2e_ms = GREATEST(0, (EXTRACT(EPOCH FROM ($3 - COALESCE(planned_at, scheduled_at))) * 1000)::int),
                  sla_breached = sla_breached OR COALESCE($3 > COALESCE(planned_at, scheduled_at)
                    + (COALESCE((SELECT sla_threshold_ms FROM job), $15::int) * interval '1 millisecond'), false),
                  started_workflow = COALESCE($14, started_workflow),
                  updated_at = now()
            WHERE id = $1 AND status NOT IN ('succeeded', 'failed', 'skipped', 'cancelled')
              AND (SELECT count(*) FROM attempt) >= 0
            RETURNING runs.*
         ), outcome AS (
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
        [
          change.runId,
          change.status,
          change.finishedAt,
          change.lastError ?? null,
          change.skipReason ?? null,
          change.attempt?.n ?? null,
          finish?.finishedAt ?? null,
          finish?.durationMs ?? null,
          finish?.outcome ?? null,
          finish?.statusCode ?? null,
          finish?.error ?? null,
          finish?.responseBody ?? null,
          finish?.requestSummary ?? null,
          finish?.startedWorkflow ?? null,
          change.defaultSlaThresholdMs,
          change.attempt?.startedAt ?? null,
          change.skipNote ?? null,
        ],
      ),
    );
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

  /**
   * Writes the rows of due occurrences and counts the inserted ones that will deliver in the
   * monthly usage, in one statement. A scheduled occurrence is its run
   * (unique by job and `scheduled_at`, issue 21): one already recorded keeps its row and id, and
   * an open, unstarted one is adopted by the newer job version that reached it again (the version
   * that now owns the occurrence delivers it). Returns what each row became, in order.
   */
  async openRuns(rows: OpenRunRow[], claimedAt: Date): Promise<OpenedRun[]> {
    if (rows.length === 0) {
      return [];
    }
    // One statement, so without a transaction around it: a retried call inserts nothing it did
    // and so counts nothing twice.
    const inserted: Array<{ id: string }> = await this.manager.query(
      `WITH inserted AS (
         INSERT INTO runs (id, workspace_id, job_id, job_version, scheduled_at, planned_at, trigger, status,
                           skip_reason, claimed_at, finished_at, retry_of, overrides, backfill_id)
         SELECT r.id, r.workspace_id, r.job_id, r.job_version, r.scheduled_at, r.planned_at, r.trigger, r.status,
                r.skip_reason, $1::timestamptz, CASE WHEN r.status = 'skipped' THEN $1::timestamptz END, r.retry_of,
                r.overrides, r.backfill_id
           FROM jsonb_to_recordset($2::jsonb) AS r(id text, workspace_id text, job_id text, job_version int,
                scheduled_at timestamptz, planned_at timestamptz, trigger text, status text, skip_reason text,
                retry_of text, overrides jsonb, backfill_id text)
         ON CONFLICT DO NOTHING
         RETURNING id, workspace_id, to_char(scheduled_at AT TIME ZONE 'UTC', 'YYYY-MM') AS month, status
       ), counted AS (
         INSERT INTO usage_counters (workspace_id, month, runs)
         SELECT workspace_id, month, count(*) FROM inserted WHERE status <> 'skipped' GROUP BY workspace_id, month
         ON CONFLICT (workspace_id, month) DO UPDATE SET runs = usage_counters.runs + EXCLUDED.runs
       )
       SELECT id FROM inserted`,
      [claimedAt, JSON.stringify(rows.map(toOpenRunRecord))],
    );
    const insertedIds = new Set(inserted.map((r) => r.id));
    const existing = await this.existingOccurrences(
      this.manager,
      rows.filter((row) => !insertedIds.has(row.id)),
    );
    return rows.map((row): OpenedRun => {
      if (insertedIds.has(row.id)) {
        return { requestedId: row.id, id: row.id, status: row.status, inserted: true };
      }
      const found = existing.get(occurrenceKey(row));
      return {
        requestedId: row.id,
        id: found?.id ?? row.id,
        // Gone between the insert and the read (withdrawn): nothing is left to start.
        status: found?.status ?? 'cancelled',
        inserted: false,
      };
    });
  }

  /**
   * The rows that already hold these occurrences (scheduled: by job and instant; others by id),
   * after letting a newer job version adopt the open, unstarted ones.
   */
  private async existingOccurrences(
    manager: EntityManager,
    rows: OpenRunRow[],
  ): Promise<Map<string, { id: string; status: RunStatus }>> {
    const found = new Map<string, { id: string; status: RunStatus }>();
    if (rows.length === 0) {
      return found;
    }
    const records = returnedRows<{
      id: string;
      job_id: string;
      scheduled_at: Date;
      trigger: string;
      status: RunStatus;
    }>(
      await manager.query(
        `UPDATE runs SET job_version = GREATEST(runs.job_version, r.job_version),
                updated_at = CASE WHEN runs.job_version < r.job_version THEN now() ELSE runs.updated_at END
           FROM jsonb_to_recordset($1::jsonb) AS r(id text, job_id text, job_version int, scheduled_at timestamptz,
                trigger text, occurrence boolean)
          WHERE (r.occurrence AND runs.duplicate_of IS NULL
                 AND (runs.trigger = 'schedule' OR runs.trigger = 'backfill' AND runs.retry_of IS NULL)
                 AND runs.job_id = r.job_id AND runs.scheduled_at = r.scheduled_at
                 OR NOT r.occurrence AND runs.id = r.id)
            AND (runs.job_version >= r.job_version
                 OR runs.status IN ('running', 'deferred') AND runs.attempts_count = 0 AND runs.started_at IS NULL)
         RETURNING runs.id, runs.job_id, runs.scheduled_at, runs.trigger, runs.status`,
        [JSON.stringify(rows.map((row) => ({ ...toOpenRunRecord(row), occurrence: holdsOccurrence(row) })))],
      ),
    );
    for (const record of records) {
      const holder = { trigger: record.trigger as RunTrigger, retryOf: null, jobId: record.job_id, id: record.id };
      // Found by instant for a row that asked by instant, by id otherwise.
      for (const key of [
        occurrenceKey({ ...holder, scheduledAt: record.scheduled_at }),
        occurrenceKey({ ...holder, trigger: 'manual', scheduledAt: record.scheduled_at }),
      ]) {
        found.set(key, { id: record.id, status: record.status });
      }
    }
    return found;
  }

  /**
   * The scheduled time of the oldest run that is due and still waits for its first attempt
   * (`running`, no `started_at`), across all workspaces: how far attempt execution and its
   * mirror writes lag behind the schedule. Served by the partial index `idx_runs_awaiting_first_attempt`.
   */
  /** How many runs are due and waiting for their first attempt, and since when the oldest. */
  async backlog(): Promise<{ count: number; oldest: Date | null }> {
    const rows: Array<{ count: number; oldest: Date | null }> = await this.manager.query(
      `SELECT count(*)::int AS count, min(scheduled_at) AS oldest FROM runs WHERE status = 'running' AND started_at IS NULL`,
    );
    return { count: rows[0]?.count ?? 0, oldest: rows[0]?.oldest ?? null };
  }

  /**
   * Open runs with no progress since `cutoff` (docs/operations.md → Stalled runs): due before it,
   * last written before it, and not waiting for a retry due after it. Oldest progress first;
   * served by `idx_runs_open`. Their workflows are checked one by one by the worker's sweep.
   */
  async findStalled(cutoff: Date, limit: number): Promise<RunEntity[]> {
    return this.manager
      .createQueryBuilder(RunEntity, 'r')
      .where(`r.status IN ('running', 'deferred')`)
      .andWhere('r.updatedAt < :cutoff AND r.scheduledAt < :cutoff', { cutoff })
      .andWhere('(r.nextAttemptAt IS NULL OR r.nextAttemptAt < :cutoff)', { cutoff })
      .orderBy('r.updatedAt', 'ASC')
      .limit(limit)
      .getMany();
  }

  /**
   * How many runs look stalled without asking Temporal (`/readyz`, `svc_runs_stalled`): due before
   * `cutoff` and still without a first attempt, or with a retry that came due before it. A
   * backlog (no worker) counts too: those runs are not progressing either.
   */
  async countStalled(cutoff: Date): Promise<number> {
    const rows: Array<{ count: number }> = await this.manager.query(
      `SELECT count(*)::int AS count FROM runs
        WHERE status IN ('running', 'deferred') AND updated_at < $1 AND scheduled_at < $1
          AND (status = 'running' AND started_at IS NULL
               OR status = 'deferred' AND next_attempt_at < $1)`,
      [cutoff],
    );
    return rows[0]?.count ?? 0;
  }

  async oldestAwaitingFirstAttempt(): Promise<Date | null> {
    const rows: Array<{ scheduled_at: Date }> = await this.manager.query(
      `SELECT scheduled_at FROM runs WHERE status = 'running' AND started_at IS NULL ORDER BY scheduled_at LIMIT 1`,
    );
    return rows[0]?.scheduled_at ?? null;
  }

  /** Runs of the job whose rows were opened for a later occurrence than `run` (misfire fire_once). */
  async hasLaterScheduledRun(run: RunEntity): Promise<boolean> {
    const rows: unknown[] = await this.manager.query(
      `SELECT 1 FROM runs WHERE workspace_id = $1 AND job_id = $2 AND trigger = 'schedule' AND scheduled_at > $3 LIMIT 1`,
      [run.workspaceId, run.jobId, run.scheduledAt],
    );
    return rows.length > 0;
  }

  /** The one manual retry of an occurrence (decisions.md → Manual retry), if it exists. */
  async findManualRetry(workspaceId: string, jobId: string, scheduledAt: Date): Promise<RunEntity | null> {
    return this.manager.findOne(RunEntity, { where: { workspaceId, jobId, scheduledAt, trigger: 'retry_manual' } });
  }

  /**
   * Writes the manual retry of an occurrence unless it exists, and returns the stored one. The
   * partial unique index `uq_runs_manual_retry_occurrence` (job_id, scheduled_at) is the point of
   * coalescing: concurrent requests from any number of API processes insert at most one row; a
   * loser's INSERT waits for the winner's commit, does nothing, and then reads the winner's row.
   * Counted in the monthly usage (month of `scheduled_at`, like every run) only when inserted.
   */
  async openManualRetry(row: ManualRetryRow, claimedAt: Date): Promise<{ run: RunEntity; inserted: boolean }> {
    return this.dataSource.transaction(async (manager) => {
      const result: unknown = await manager.query(
        `INSERT INTO runs (id, workspace_id, job_id, job_version, scheduled_at, trigger, status, claimed_at, retry_of,
                           overrides)
         VALUES ($1, $2, $3, $4, $5, 'retry_manual', 'running', $6, $7, $8)
         ON CONFLICT (job_id, scheduled_at) WHERE trigger = 'retry_manual' DO NOTHING
         RETURNING to_char(scheduled_at AT TIME ZONE 'UTC', 'YYYY-MM') AS month`,
        [
          row.id,
          row.workspaceId,
          row.jobId,
          row.jobVersion,
          row.scheduledAt,
          claimedAt,
          row.retryOf,
          row.overrides ?? null,
        ],
      );
      const inserted = returnedRows<{ month: string }>(result);
      if (inserted.length > 0) {
        await manager.query(
          `INSERT INTO usage_counters (workspace_id, month, runs) VALUES ($1, $2, 1)
           ON CONFLICT (workspace_id, month) DO UPDATE SET runs = usage_counters.runs + 1`,
          [row.workspaceId, inserted[0].month],
        );
      }
      const run = await manager.findOneOrFail(RunEntity, {
        where: {
          workspaceId: row.workspaceId,
          jobId: row.jobId,
          scheduledAt: row.scheduledAt,
          trigger: 'retry_manual',
        },
      });
      return { run, inserted: inserted.length > 0 };
    });
  }
}

/** What `openRuns` made of one row. */
export interface OpenedRun {
  /** The id the caller asked for. */
  requestedId: string;
  /** The run that holds the occurrence: the requested id, or the one recorded earlier. */
  id: string;
  status: RunStatus;
  /** True when this call wrote the row. */
  inserted: boolean;
}

/**
 * Whether a row is its occurrence's one run (unique by job and instant, `uq_runs_scheduled_occurrence`):
 * a scheduled run, or a backfill's first run of an occurrence (issue 45; not a re-run, `retry_of`).
 */
function holdsOccurrence(row: Pick<OpenRunRow, 'trigger' | 'retryOf'>): boolean {
  return row.trigger === 'schedule' || (row.trigger === 'backfill' && !row.retryOf);
}

/** An occurrence's one run by job and instant; any other run by its id. */
function occurrenceKey(row: Pick<OpenRunRow, 'trigger' | 'retryOf' | 'jobId' | 'scheduledAt' | 'id'>): string {
  return holdsOccurrence(row) ? `${row.jobId}@${new Date(row.scheduledAt).getTime()}` : `id:${row.id}`;
}

/** A run row written when its occurrence is due (or by the API on a manual trigger). */
export interface OpenRunRow {
  id: string;
  workspaceId: string;
  jobId: string;
  jobVersion: number;
  scheduledAt: Date | string;
  trigger: RunTrigger;
  /** `running` (about to start), `deferred` (waiting its turn) or `skipped`. */
  status: Extract<RunStatus, 'running' | 'deferred' | 'skipped'>;
  skipReason?: string | null;
  retryOf?: string | null;
  /** Per-run overrides of the job's sink (a manual run's, a backfill's). */
  overrides?: JsonObject | null;
  /** The job's start window applied (issue 46); absent: planned at `scheduledAt`. */
  plannedAt?: Date | string | null;
  /** The backfill that opens it (`trigger: backfill`, issue 45). */
  backfillId?: string | null;
}

function toOpenRunRecord(row: OpenRunRow) {
  return {
    id: row.id,
    workspace_id: row.workspaceId,
    job_id: row.jobId,
    job_version: row.jobVersion,
    scheduled_at: new Date(row.scheduledAt).toISOString(),
    planned_at: row.plannedAt ? new Date(row.plannedAt).toISOString() : null,
    trigger: row.trigger,
    status: row.status,
    skip_reason: row.skipReason ?? null,
    retry_of: row.retryOf ?? null,
    overrides: row.overrides ?? null,
    backfill_id: row.backfillId ?? null,
  };
}

/** The manual retry of a failed run: same job and occurrence, the job's current version. */
export interface ManualRetryRow {
  id: string;
  workspaceId: string;
  jobId: string;
  jobVersion: number;
  scheduledAt: Date;
  retryOf: string;
  overrides?: JsonObject | null;
}

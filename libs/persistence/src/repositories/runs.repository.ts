import { DataSource, EntityManager } from 'typeorm';
import { AttemptEntity } from '../entities/attempt.entity';
import { type DeferredReason, RunEntity, type RunStatus, type RunTrigger } from '../entities/run.entity';
import type { StartedWorkflowColumn } from '../entities/json';
import { UsageCounterEntity } from '../entities/usage-counter.entity';
import { startAttempt, startAttempts } from './run-attempts';
import { clearResponseBodiesFinishedBefore, deleteFinishedBefore, type RunPurgeScope } from './run-retention';
import { type AttemptFinish, type ClosedRun, closeRun, type RunClose } from './run-close';
import { type ManualRetryRow, type OpenedRun, openManualRetry, openRuns, type OpenRunRow } from './run-open';
import { andWhereTimePage } from './time-page';

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

/** Which failed runs a recover retries; every given field must hold (AND). */
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
    if (filter.tag) {
      query.andWhere(
        'run.jobId IN (SELECT j.id FROM jobs j WHERE j.workspace_id = :workspaceId AND j.tags @> ARRAY[:tag]::text[])',
        { tag: filter.tag },
      );
    }
    const { from, to, after } = filter;
    andWhereTimePage(
      query,
      { at: 'run.scheduledAt', id: 'run.id' },
      { from, to, after: after && { at: after.scheduledAt, id: after.id } },
    );
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

  /** Clears the response bodies of attempts finished before `cutoff`, at most `limit` (retention). */
  async clearResponseBodiesFinishedBefore(cutoff: Date, limit: number): Promise<number> {
    return clearResponseBodiesFinishedBefore(this.manager, cutoff, limit);
  }

  /** Deletes terminal runs finished before `cutoff` in `scope`, at most `limit` (retention). */
  async deleteFinishedBefore(cutoff: Date, limit: number, scope: RunPurgeScope = {}): Promise<number> {
    return deleteFinishedBefore(this.manager, cutoff, limit, scope);
  }

  /**
   * The run that tells how each of these jobs is doing (the jobs list), in one query for
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

  /** Records that attempt `n` starts, closing older attempts a crash left open (`startAttempt`). */
  async startAttempt(run: RunEntity, n: number, startedAt: Date, requestSummary: string): Promise<void> {
    await startAttempt(this.dataSource, run, n, startedAt, requestSummary);
  }

  /** `startAttempt` for a burst of runs in one transaction (`startAttempts`). */
  async startAttempts(
    starts: Array<{ run: RunEntity; n: number; startedAt: Date; requestSummary: string }>,
  ): Promise<void> {
    await startAttempts(this.dataSource, starts);
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
   * The run waits for its destination: `deferred` until `nextAttemptAt`, saying why and
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

  /** Closes a run once, with the attempt that ended it and its job's failure streak (`closeRun`). */
  async close(change: RunClose, manager = this.manager): Promise<ClosedRun | null> {
    return closeRun(manager, change);
  }

  /** Writes the rows of due occurrences; each keeps the run already recorded for it (`openRuns`). */
  async openRuns(rows: OpenRunRow[], claimedAt: Date): Promise<OpenedRun[]> {
    return openRuns(this.manager, rows, claimedAt);
  }

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

  /**
   * The scheduled time of the oldest due run still waiting for its first attempt, across all
   * workspaces: how far attempt execution lags behind the schedule (`idx_runs_awaiting_first_attempt`).
   */
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

  /** Writes the manual retry of an occurrence unless it exists, and returns the stored one (`openManualRetry`). */
  async openManualRetry(row: ManualRetryRow, claimedAt: Date): Promise<{ run: RunEntity; inserted: boolean }> {
    return openManualRetry(this.dataSource, row, claimedAt);
  }
}

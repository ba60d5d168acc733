/** Opening runs: due occurrences (one run per occurrence) and the one manual retry of an occurrence. */
import type { DataSource, EntityManager } from 'typeorm';
import type { JsonObject } from '../entities/json';
import { RunEntity, type RunStatus, type RunTrigger } from '../entities/run.entity';
import { returnedRows } from './query-result';

/**
 * Writes the rows of due occurrences and counts the inserted ones that will deliver in the
 * monthly usage, in one statement. A scheduled occurrence is its run
 * (unique by job and `scheduled_at`): one already recorded keeps its row and id, and
 * an open, unstarted one is adopted by the newer job version that reached it again (the version
 * that now owns the occurrence delivers it). Returns what each row became, in order.
 */
export async function openRuns(manager: EntityManager, rows: OpenRunRow[], claimedAt: Date): Promise<OpenedRun[]> {
  if (rows.length === 0) {
    return [];
  }
  // One statement, so without a transaction around it: a retried call inserts nothing it did
  // and so counts nothing twice.
  const inserted: Array<{ id: string }> = await manager.query(
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
  const existing = await existingOccurrences(
    manager,
    rows.filter((row) => !insertedIds.has(row.id)),
  );
  return rows.map((row): OpenedRun => {
    if (insertedIds.has(row.id)) {
      return { requestedId: row.id, id: row.id, status: row.status, trigger: row.trigger, inserted: true };
    }
    const found = existing.get(occurrenceKey(row));
    return {
      requestedId: row.id,
      id: found?.id ?? row.id,
      // Gone between the insert and the read (withdrawn): nothing is left to start.
      status: found?.status ?? 'cancelled',
      trigger: found?.trigger ?? row.trigger,
      inserted: false,
    };
  });
}

/**
 * The rows that already hold these occurrences (scheduled: by job and instant; others by id),
 * after letting a newer job version adopt the open, unstarted ones.
 */
async function existingOccurrences(
  manager: EntityManager,
  rows: OpenRunRow[],
): Promise<Map<string, { id: string; status: RunStatus; trigger: RunTrigger }>> {
  const found = new Map<string, { id: string; status: RunStatus; trigger: RunTrigger }>();
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
      found.set(key, { id: record.id, status: record.status, trigger: holder.trigger });
    }
  }
  return found;
}

/**
 * Writes the manual retry of an occurrence unless it exists, and returns the stored one. The
 * partial unique index `uq_runs_manual_retry_occurrence` (job_id, scheduled_at) is the point of
 * coalescing: concurrent requests from any number of API processes insert at most one row; a
 * loser's INSERT waits for the winner's commit, does nothing, and then reads the winner's row.
 * Counted in the monthly usage (month of `scheduled_at`, like every run) only when inserted.
 */
export async function openManualRetry(
  dataSource: DataSource,
  row: ManualRetryRow,
  claimedAt: Date,
): Promise<{ run: RunEntity; inserted: boolean }> {
  return dataSource.transaction(async (manager) => {
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

/** What `openRuns` made of one row. */
export interface OpenedRun {
  /** The id the caller asked for. */
  requestedId: string;
  /** The run that holds the occurrence: the requested id, or the one recorded earlier. */
  id: string;
  status: RunStatus;
  /** Who opened the row that holds the occurrence (`backfill` when a backfill got there first). */
  trigger: RunTrigger;
  /** True when this call wrote the row. */
  inserted: boolean;
}

/**
 * Whether a row is its occurrence's one run (unique by job and instant, `uq_runs_scheduled_occurrence`):
 * a scheduled run, or a backfill's first run of an occurrence (not a re-run, `retry_of`).
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
  /** The job's start window applied; absent: planned at `scheduledAt`. */
  plannedAt?: Date | string | null;
  /** The backfill that opens it (`trigger: backfill`). */
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

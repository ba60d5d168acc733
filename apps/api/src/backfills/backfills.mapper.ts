import type { BackfillEntity, BackfillProgress } from '@svc/persistence';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The backfill resource (`GET /backfills/{id}`): what was asked and how far it has come. */
export function toBackfillResponse(backfill: BackfillEntity, progress: BackfillProgress) {
  return {
    id: backfill.id,
    job_id: backfill.jobId,
    status: backfill.status,
    mode: backfill.mode,
    max_runs: backfill.maxRuns,
    skip_succeeded: backfill.skipSucceeded,
    from: backfill.rangeFrom.toISOString(),
    to: backfill.rangeTo.toISOString(),
    first: iso(backfill.firstAt),
    last: iso(backfill.lastAt),
    overrides: backfill.overrides,
    counts: {
      total: progress.total,
      pending: progress.pending,
      started: progress.started,
      running: progress.running,
      succeeded: progress.succeeded,
      failed: progress.failed,
      skipped_succeeded: progress.skippedSucceeded,
      canceled: progress.canceled,
    },
    created_by: backfill.actor,
    created_at: backfill.createdAt.toISOString(),
    updated_at: backfill.updatedAt.toISOString(),
    cancel_requested_at: iso(backfill.cancelRequestedAt),
    finished_at: iso(backfill.finishedAt),
  };
}

export type BackfillResponse = ReturnType<typeof toBackfillResponse>;

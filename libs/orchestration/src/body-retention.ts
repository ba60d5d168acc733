import { purgeInBatches } from '@svc/common';
import type { RunsRepository } from '@svc/persistence';

export interface BodyPurgeResult {
  /** Bodies of attempts finished before this instant were cleared. */
  cutoff: Date;
  cleared: number;
}

/** Attempts cleared per statement: short transactions, however large the backlog. */
export const BODY_PURGE_BATCH = 5_000;
/** Batches per call at most; the next call (an hour later) continues. */
export const BODY_PURGE_MAX_BATCHES = 200;

/**
 * Response-body retention (decisions.md → Response bodies; config `runs.body_retention`, default
 * 7 days): sets `response_body` to null on the attempts of every workspace that finished more
 * than `retentionMs` before `now`, in batches until none is left (or `BODY_PURGE_MAX_BATCHES`).
 * The attempts themselves stay. Idempotent and safe from several processes at once; the API runs
 * it hourly (`ResponseBodyRetentionTask`).
 */
export async function purgeExpiredResponseBodies(
  runs: Pick<RunsRepository, 'clearResponseBodiesFinishedBefore'>,
  retentionMs: number,
  now: Date = new Date(),
  batch = BODY_PURGE_BATCH,
): Promise<BodyPurgeResult> {
  const cutoff = new Date(now.getTime() - retentionMs);
  const { count } = await purgeInBatches((limit) => runs.clearResponseBodiesFinishedBefore(cutoff, limit), {
    batch,
    maxBatches: BODY_PURGE_MAX_BATCHES,
  });
  return { cutoff, cleared: count };
}

import type { AuditRepository } from '@svc/persistence';

export interface AuditPurgeResult {
  /** Entries created before this instant were deleted. */
  cutoff: Date;
  deleted: number;
}

/**
 * Audit retention (spec → Limits: entries are kept 30 days by default; config `audit.retention`):
 * deletes the entries of every workspace older than `retentionMs` before `now`. Idempotent and
 * safe to run from several processes at once; the API runs it hourly (`AuditRetentionTask`), and
 * any other periodic timer (the worker's reconciler) may call it too.
 */
export async function purgeExpiredAuditEntries(
  audit: Pick<AuditRepository, 'deleteOlderThan'>,
  retentionMs: number,
  now: Date = new Date(),
): Promise<AuditPurgeResult> {
  const cutoff = new Date(now.getTime() - retentionMs);
  const deleted = await audit.deleteOlderThan(cutoff);
  return { cutoff, deleted };
}

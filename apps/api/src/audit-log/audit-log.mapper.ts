import type { AuditLogEntity } from '@svc/persistence';

/** The spec's audit log entry (`actor`, `action`, `target`, `details`, `created_at`) and its id. */
export function toAuditEntryResponse(entry: AuditLogEntity) {
  return {
    id: entry.id,
    actor: entry.actor,
    action: entry.action,
    target: entry.target,
    details: entry.details,
    created_at: entry.createdAt.toISOString(),
  };
}

export type AuditEntryResponse = ReturnType<typeof toAuditEntryResponse>;

import { anyObject, named, object, pageOf, string, timestamp } from '../common/openapi/schema';

/** The spec's audit log entry and its id (audit-log.mapper.ts). */
export const AUDIT_ENTRY_SCHEMA = named(
  'AuditEntry',
  object({
    id: string,
    actor: { type: 'string', description: '`key:<id>`, `user:<id>` or `system`.' },
    action: { type: 'string', description: 'e.g. `job.create`, `api_key.revoke`, `job.auto_disable`.' },
    target: string,
    details: anyObject,
    created_at: timestamp,
  }),
);

export const AUDIT_ENTRY_PAGE_SCHEMA = pageOf('AuditEntryPage', AUDIT_ENTRY_SCHEMA);

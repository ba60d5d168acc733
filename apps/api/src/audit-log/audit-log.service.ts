import { Injectable } from '@nestjs/common';
import { CURSORS, microsOfTimestamp, type Page, readKeysetPage, timestampOfMicros } from '@svc/common';
import { AuditRepository } from '@svc/persistence';
import type { AuthContext } from '../auth/auth.decorators';
import { type AuditEntryResponse, toAuditEntryResponse } from './audit-log.mapper';
import { ListAuditLogQueryDto } from './dto/list-audit-log-query.dto';

/** Reads the audit log (spec → Audit log entry; decisions.md → Audit actions). */
@Injectable()
export class AuditLogService {
  constructor(private readonly audit: AuditRepository) {}

  list(auth: AuthContext, query: ListAuditLogQueryDto): Promise<Page<AuditEntryResponse>> {
    return readKeysetPage(query, {
      format: CURSORS.auditLog,
      fetch: (after, limit) =>
        this.audit.list(auth.workspaceId, {
          action: query.action,
          actor: query.actor,
          target: query.target,
          from: query.from ? new Date(query.from) : undefined,
          to: query.to ? new Date(query.to) : undefined,
          after: after && { at: timestampOfMicros(after.at), id: after.id },
          limit,
        }),
      keyOf: (row) => ({ at: microsOfTimestamp(row.cursorAt), id: row.entry.id }),
      toItem: (row) => toAuditEntryResponse(row.entry),
    });
  }
}

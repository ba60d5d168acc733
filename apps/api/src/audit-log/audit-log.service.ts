import { Injectable } from '@nestjs/common';
import { CURSORS, readCursor, microsOfTimestamp, timestampOfMicros, type Page, PAGE_LIMIT_DEFAULT } from '@svc/common';
import { AuditRepository } from '@svc/persistence';
import type { AuthContext } from '../auth/auth.decorators';
import { type AuditEntryResponse, toAuditEntryResponse } from './audit-log.mapper';
import { ListAuditLogQueryDto } from './dto/list-audit-log-query.dto';

/** Reads the audit log (spec → Audit log entry; decisions.md → Audit actions). */
@Injectable()
export class AuditLogService {
  constructor(private readonly audit: AuditRepository) {}

  async list(auth: AuthContext, query: ListAuditLogQueryDto): Promise<Page<AuditEntryResponse>> {
    const limit = query.limit ?? PAGE_LIMIT_DEFAULT;
    const cursor = readCursor(CURSORS.auditLog, query.cursor);
    const after = cursor && { at: timestampOfMicros(cursor.at), id: cursor.id };
    const rows = await this.audit.list(auth.workspaceId, {
      action: query.action,
      actor: query.actor,
      target: query.target,
      from: query.from ? new Date(query.from) : undefined,
      to: query.to ? new Date(query.to) : undefined,
      after,
      limit: limit + 1,
    });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      data: page.map((row) => toAuditEntryResponse(row.entry)),
      next_cursor:
        rows.length > limit
          ? CURSORS.auditLog.encode({ at: microsOfTimestamp(last.cursorAt), id: last.entry.id })
          : null,
    };
  }
}

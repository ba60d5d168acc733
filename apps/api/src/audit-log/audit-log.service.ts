import { Injectable } from '@nestjs/common';
import {
  decodeCursor,
  encodeCursor,
  INVALID_CURSOR_MESSAGE,
  type Page,
  PAGE_LIMIT_DEFAULT,
  ValidationFailedError,
} from '@svc/common';
import { AuditRepository } from '@svc/persistence';
import type { AuthContext } from '../common/auth/auth.decorators';
import { type AuditEntryResponse, toAuditEntryResponse } from './audit-log.mapper';
import { ListAuditLogQueryDto } from './dto/list-audit-log-query.dto';

/** `created_at` as the repository writes it into cursors: UTC with microseconds. */
const CURSOR_AT = /^[1-9]\d{3}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** A cursor time PostgreSQL will accept: the shape above and a real calendar instant. */
function isCursorTime(value: unknown): value is string {
  if (typeof value !== 'string' || !CURSOR_AT.test(value)) {
    return false;
  }
  const ms = Date.parse(value);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 23) === value.slice(0, 23);
}

/** Reads the audit log (spec → Audit log entry; decisions.md → Audit actions). */
@Injectable()
export class AuditLogService {
  constructor(private readonly audit: AuditRepository) {}

  async list(auth: AuthContext, query: ListAuditLogQueryDto): Promise<Page<AuditEntryResponse>> {
    const limit = query.limit ?? PAGE_LIMIT_DEFAULT;
    let after: { at: string; id: string } | undefined;
    if (query.cursor !== undefined) {
      const cursor = decodeCursor<{ at: string; id: string }>(query.cursor, ['at', 'id']);
      if (!cursor || !isCursorTime(cursor.at) || typeof cursor.id !== 'string') {
        throw new ValidationFailedError({ cursor: INVALID_CURSOR_MESSAGE });
      }
      after = { at: cursor.at, id: cursor.id };
    }
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
      next_cursor: rows.length > limit ? encodeCursor({ at: last.cursorAt, id: last.entry.id }) : null,
    };
  }
}

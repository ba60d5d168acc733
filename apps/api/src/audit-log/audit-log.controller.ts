import { Controller, Query } from '@nestjs/common';
import { Auth, type AuthContext } from '../auth/auth.decorators';
import { AuditLogService } from './audit-log.service';
import { ListAuditLogQueryDto } from './dto/list-audit-log-query.dto';
import { AUDIT_ENTRY_PAGE_SCHEMA } from './audit-entry-response.schema';
import { GetRoute } from '../auth/route.decorators';

/** The workspace's audit log; full-access keys only (decisions.md → Scopes). */
@Controller('api/v1/audit-log')
export class AuditLogController {
  constructor(private readonly auditLog: AuditLogService) {}

  /** Entries newest first (ties by id), filtered by `action`, `actor`, `target`, `from`, `to`. */
  @GetRoute('', '*', 'Audit log entries, newest first', AUDIT_ENTRY_PAGE_SCHEMA)
  list(@Auth() auth: AuthContext, @Query() query: ListAuditLogQueryDto) {
    return this.auditLog.list(auth, query);
  }
}

import { Module } from '@nestjs/common';
import { AuditLogController } from './audit-log.controller';
import { AuditLogService } from './audit-log.service';
import { AuditRetentionTask } from './audit-retention.task';

/** `GET /api/v1/audit-log` and the audit retention timer. */
@Module({
  controllers: [AuditLogController],
  providers: [AuditLogService, AuditRetentionTask],
})
export class AuditLogModule {}

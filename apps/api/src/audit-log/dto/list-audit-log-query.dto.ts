import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { OptionalTimestamp } from '../../common/validators';
import { CURSORS } from '@svc/common';
import { PageQueryDto } from '../../common/page-query.dto';

/**
 * `GET /api/v1/audit-log` (decisions.md → Audit actions: `action`, `actor`, `target`, `from`,
 * `to`, `limit`, `cursor`). Filters match exactly; `from` is inclusive and `to` exclusive on
 * `created_at`.
 */
export class ListAuditLogQueryDto extends PageQueryDto(CURSORS.auditLog) {
  /** An action such as `job.create` or `secret.delete`. */
  @IsOptional()
  @IsString()
  @MaxLength(64)
  @Matches(/^[a-z_]+(\.[a-z_]+)*$/, { message: 'must be an action such as job.create' })
  action?: string;

  /** `key:<id>`, `user:<id>` or `system`. */
  @IsOptional()
  @IsString()
  @MaxLength(128)
  actor?: string;

  /** What the entry is about: a job, run, key or workspace id, or a secret's name. */
  @IsOptional()
  @IsString()
  @MaxLength(256)
  target?: string;

  @OptionalTimestamp()
  from?: string;

  @OptionalTimestamp()
  to?: string;
}

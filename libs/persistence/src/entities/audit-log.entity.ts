import { Entity, Index } from 'typeorm';
import { JsonColumn, TextColumn } from './columns';
import { CreatedEntity } from './timestamps';
import { WorkspaceRow } from './workspace-row';
import { JsonObject } from './json';

/**
 * An audit entry (decisions.md → Audit actions). `actor` is `user:<id>`, `key:<id>` or `system`.
 * No secret value ever goes into `details`. Ids are `aud_<ulid>`.
 *
 * List indexes (newest first, ties by id) are created by the migration with DESC orders, hence
 * `synchronize: false`.
 */
@Entity({ name: 'audit_log' })
@Index('idx_audit_log_workspace_created', { synchronize: false })
@Index('idx_audit_log_workspace_action_created', { synchronize: false })
// Retention: `AuditRepository.deleteOlderThan` finds expired entries of every workspace.
@Index('idx_audit_log_created_at', ['createdAt'])
export class AuditLogEntity extends WorkspaceRow('audit_log', CreatedEntity) {
  @TextColumn('actor')
  actor: string;

  @TextColumn('action')
  action: string;

  @TextColumn('target')
  target: string;

  @JsonColumn('details', { default: () => "'{}'" })
  details: JsonObject;
}

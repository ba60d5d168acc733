import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { JsonObject } from './json';
import { WorkspaceEntity } from './workspace.entity';

/**
 * An audit entry (decisions.md → Audit actions). `actor` is `user:<id>`, `key:<id>` or `system`.
 * No secret value ever goes into `details`.
 *
 * List indexes (newest first, ties by id) are created by the migration with DESC orders, hence
 * `synchronize: false`.
 */
@Entity({ name: 'audit_log' })
@Index('idx_audit_log_workspace_created', { synchronize: false })
@Index('idx_audit_log_workspace_action_created', { synchronize: false })
// Retention: `AuditRepository.deleteOlderThan` finds expired entries of every workspace.
@Index('idx_audit_log_created_at', ['createdAt'])
export class AuditLogEntity {
  /** `aud_<ulid>` */
  @PrimaryColumn({ name: 'id', type: 'text', primaryKeyConstraintName: 'pk_audit_log' })
  id: string;

  @Column({ name: 'workspace_id', type: 'text' })
  workspaceId: string;

  @Column({ name: 'actor', type: 'text' })
  actor: string;

  @Column({ name: 'action', type: 'text' })
  action: string;

  @Column({ name: 'target', type: 'text' })
  target: string;

  @Column({ name: 'details', type: 'jsonb', default: () => "'{}'" })
  details: JsonObject;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @ManyToOne(() => WorkspaceEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id', foreignKeyConstraintName: 'fk_audit_log_workspace' })
  workspace?: WorkspaceEntity;
}

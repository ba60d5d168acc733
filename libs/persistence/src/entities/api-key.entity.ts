import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, Unique } from 'typeorm';
import { WorkspaceEntity } from './workspace.entity';

/**
 * An API key. Only the SHA-256 of the key is stored (decisions.md → API key format); `keyHash`
 * is `select: false` so it never leaves a query by accident (style.md rule 2).
 */
@Entity({ name: 'api_keys' })
@Unique('uq_api_keys_key_hash', ['keyHash'])
@Index('idx_api_keys_workspace_id', ['workspaceId', 'id'])
export class ApiKeyEntity {
  /** `key_<ulid>` */
  @PrimaryColumn({ name: 'id', type: 'text', primaryKeyConstraintName: 'pk_api_keys' })
  id: string;

  @Column({ name: 'workspace_id', type: 'text' })
  workspaceId: string;

  @Column({ name: 'name', type: 'text' })
  name: string;

  /** `sjs_` + the key's first 8 characters after it; safe to show. */
  @Column({ name: 'prefix', type: 'text' })
  prefix: string;

  /** Hex SHA-256 of the full key. */
  @Column({ name: 'key_hash', type: 'text', select: false })
  keyHash: string;

  @Column({ name: 'scopes', type: 'text', array: true })
  scopes: string[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt: Date | null;

  @ManyToOne(() => WorkspaceEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id', foreignKeyConstraintName: 'fk_api_keys_workspace' })
  workspace?: WorkspaceEntity;
}

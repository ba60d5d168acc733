import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { WorkspaceEntity } from './workspace.entity';

/** A workspace secret for `{{secret.NAME}}` templates; the value is AES-256-GCM ciphertext. */
@Entity({ name: 'secrets' })
export class SecretEntity {
  @PrimaryColumn({ name: 'workspace_id', type: 'text', primaryKeyConstraintName: 'pk_secrets' })
  workspaceId: string;

  @PrimaryColumn({ name: 'name', type: 'text', primaryKeyConstraintName: 'pk_secrets' })
  name: string;

  /** Never selected unless asked for. */
  @Column({ name: 'value_encrypted', type: 'bytea', select: false })
  valueEncrypted: Buffer;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  @ManyToOne(() => WorkspaceEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id', foreignKeyConstraintName: 'fk_secrets_workspace' })
  workspace?: WorkspaceEntity;
}

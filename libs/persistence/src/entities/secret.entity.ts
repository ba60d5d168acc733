import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { TimestampedEntity } from './timestamps';
import { WorkspaceEntity } from './workspace.entity';

/** A workspace secret for `{{secret.NAME}}` templates; the value is AES-256-GCM ciphertext. */
@Entity({ name: 'secrets' })
export class SecretEntity extends TimestampedEntity {
  @PrimaryColumn({ name: 'workspace_id', type: 'text', primaryKeyConstraintName: 'pk_secrets' })
  workspaceId: string;

  @PrimaryColumn({ name: 'name', type: 'text', primaryKeyConstraintName: 'pk_secrets' })
  name: string;

  /** Never selected unless asked for. */
  @Column({ name: 'value_encrypted', type: 'bytea', select: false })
  valueEncrypted: Buffer;

  @ManyToOne(() => WorkspaceEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id', foreignKeyConstraintName: 'fk_secrets_workspace' })
  workspace?: WorkspaceEntity;
}

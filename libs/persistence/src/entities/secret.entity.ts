import { Column, Entity } from 'typeorm';
import { BelongsTo, KeyColumn } from './columns';
import { TimestampedEntity } from './timestamps';
import { WorkspaceEntity } from './workspace.entity';

/** A workspace secret for `{{secret.NAME}}` templates; the value is AES-256-GCM ciphertext. */
@Entity({ name: 'secrets' })
export class SecretEntity extends TimestampedEntity {
  @KeyColumn('secrets', 'workspace_id')
  workspaceId: string;

  @KeyColumn('secrets', 'name')
  name: string;

  /** Never selected unless asked for. */
  @Column({ name: 'value_encrypted', type: 'bytea', select: false })
  valueEncrypted: Buffer;

  @BelongsTo('secrets', 'workspace', () => WorkspaceEntity)
  workspace?: WorkspaceEntity;
}

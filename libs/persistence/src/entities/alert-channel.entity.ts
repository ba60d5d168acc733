import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { TimestampedEntity } from './timestamps';
import { JsonObject } from './json';
import { WorkspaceEntity } from './workspace.entity';

/** Where alerts go: `email` ({address}), `webhook` ({url}), `slack` ({webhook_url}). */
@Entity({ name: 'alert_channels' })
@Index('idx_alert_channels_workspace_id', ['workspaceId', 'id'])
export class AlertChannelEntity extends TimestampedEntity {
  /** `ch_<ulid>` */
  @PrimaryColumn({ name: 'id', type: 'text', primaryKeyConstraintName: 'pk_alert_channels' })
  id: string;

  @Column({ name: 'workspace_id', type: 'text' })
  workspaceId: string;

  @Column({ name: 'name', type: 'text' })
  name: string;

  @Column({ name: 'kind', type: 'text' })
  kind: string;

  @Column({ name: 'config', type: 'jsonb' })
  config: JsonObject;

  /** Email channels start unverified; the service sets true for the other kinds. */
  @Column({ name: 'verified', type: 'boolean', default: false })
  verified: boolean;

  /** `whsec_…` for webhook channels; never selected unless asked for. */
  @Column({ name: 'signing_secret', type: 'text', nullable: true, select: false })
  signingSecret: string | null;

  /** When the last confirmation mail was requested (email channels); resends are throttled on it. */
  @Column({ name: 'verification_sent_at', type: 'timestamptz', nullable: true })
  verificationSentAt: Date | null;

  @ManyToOne(() => WorkspaceEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id', foreignKeyConstraintName: 'fk_alert_channels_workspace' })
  workspace?: WorkspaceEntity;
}

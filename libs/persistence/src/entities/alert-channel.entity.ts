import { Entity, Index } from 'typeorm';
import { BooleanColumn, JsonColumn, TextColumn, TimestampColumn } from './columns';
import { TimestampedEntity } from './timestamps';
import { WorkspaceRow } from './workspace-row';
import { JsonObject } from './json';

/**
 * Where alerts go: `email` ({address}), `webhook` ({url}), `slack` ({webhook_url}).
 * Ids are `ch_<ulid>`.
 */
@Entity({ name: 'alert_channels' })
@Index('idx_alert_channels_workspace_id', ['workspaceId', 'id'])
export class AlertChannelEntity extends WorkspaceRow('alert_channels', TimestampedEntity) {
  @TextColumn('name')
  name: string;

  @TextColumn('kind')
  kind: string;

  @JsonColumn('config')
  config: JsonObject;

  /** Email channels start unverified; the service sets true for the other kinds. */
  @BooleanColumn('verified', { default: false })
  verified: boolean;

  /** `whsec_…` for webhook channels; never selected unless asked for. */
  @TextColumn('signing_secret', { nullable: true, select: false })
  signingSecret: string | null;

  /** When the last confirmation mail was requested (email channels); resends are throttled on it. */
  @TimestampColumn('verification_sent_at', { nullable: true })
  verificationSentAt: Date | null;
}

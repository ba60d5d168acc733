import { Entity, Index } from 'typeorm';
import { BooleanColumn, IntegerColumn, TextColumn } from './columns';
import { TimestampedEntity } from './timestamps';
import { WorkspaceRow } from './workspace-row';

/**
 * Which events go to which channels; `jobIds` / `tags` null = every job.
 * Ids are `rule_<ulid>`.
 */
@Entity({ name: 'alert_rules' })
@Index('idx_alert_rules_workspace_id', ['workspaceId', 'id'])
export class AlertRuleEntity extends WorkspaceRow('alert_rules', TimestampedEntity) {
  @TextColumn('name')
  name: string;

  @BooleanColumn('enabled', { default: true })
  enabled: boolean;

  @TextColumn('channel_ids', { array: true })
  channelIds: string[];

  /** `run.failed`, `run.sla_breached`, `job.auto_disabled`, `job.recovered`, `service.degraded`, `service.recovered` */
  @TextColumn('events', { array: true })
  events: string[];

  @TextColumn('job_ids', { array: true, nullable: true })
  jobIds: string[] | null;

  @TextColumn('tags', { array: true, nullable: true })
  tags: string[] | null;

  /** Per rule and job. */
  @IntegerColumn('cooldown_ms')
  cooldownMs: number;
}

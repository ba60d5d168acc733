import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { TimestampedEntity } from './timestamps';
import { WorkspaceEntity } from './workspace.entity';

/** Which events go to which channels; `jobIds` / `tags` null = every job. */
@Entity({ name: 'alert_rules' })
@Index('idx_alert_rules_workspace_id', ['workspaceId', 'id'])
export class AlertRuleEntity extends TimestampedEntity {
  /** `rule_<ulid>` */
  @PrimaryColumn({ name: 'id', type: 'text', primaryKeyConstraintName: 'pk_alert_rules' })
  id: string;

  @Column({ name: 'workspace_id', type: 'text' })
  workspaceId: string;

  @Column({ name: 'name', type: 'text' })
  name: string;

  @Column({ name: 'enabled', type: 'boolean', default: true })
  enabled: boolean;

  @Column({ name: 'channel_ids', type: 'text', array: true })
  channelIds: string[];

  /** `run.failed`, `run.sla_breached`, `job.auto_disabled`, `job.recovered`, `service.degraded`, `service.recovered` */
  @Column({ name: 'events', type: 'text', array: true })
  events: string[];

  @Column({ name: 'job_ids', type: 'text', array: true, nullable: true })
  jobIds: string[] | null;

  @Column({ name: 'tags', type: 'text', array: true, nullable: true })
  tags: string[] | null;

  /** Per rule and job. */
  @Column({ name: 'cooldown_ms', type: 'integer' })
  cooldownMs: number;

  @ManyToOne(() => WorkspaceEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id', foreignKeyConstraintName: 'fk_alert_rules_workspace' })
  workspace?: WorkspaceEntity;
}

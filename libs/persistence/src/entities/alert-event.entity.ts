import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { AlertRuleEntity } from './alert-rule.entity';
import { JsonObject } from './json';
import { WorkspaceEntity } from './workspace.entity';

/**
 * Something alert rules can match (docs/alerts.md): `run.failed`, `run.sla_breached`,
 * `job.auto_disabled`, `job.recovered`, and the service's own `service.degraded` /
 * `service.recovered` (no job; one row per workspace listening, id from type, workspace,
 * dependency and the streak's start). Written in the transaction that makes it true, with an id
 * derived from the run and the type, so an occurrence is recorded once however often the writing
 * step is retried. `details` is a snapshot of what a person needs to act (job name, zone, error…):
 * the job may change or be deleted before the alert leaves.
 */
@Entity({ name: 'alert_events' })
@Index('idx_alert_events_undispatched', ['createdAt'], { where: `"dispatched_at" IS NULL` })
@Index('idx_alert_events_created_at', ['createdAt'])
export class AlertEventEntity {
  /** `evt_<26 base32 chars>`, derived from (type, run id); also the alert workflow's id. */
  @PrimaryColumn({ name: 'id', type: 'text', primaryKeyConstraintName: 'pk_alert_events' })
  id: string;

  @Column({ name: 'workspace_id', type: 'text' })
  workspaceId: string;

  @Column({ name: 'type', type: 'text' })
  type: string;

  /** null for the service's own events (`service.degraded`, `service.recovered`). */
  @Column({ name: 'job_id', type: 'text', nullable: true })
  jobId: string | null;

  @Column({ name: 'run_id', type: 'text', nullable: true })
  runId: string | null;

  @Column({ name: 'occurred_at', type: 'timestamptz' })
  occurredAt: Date;

  @Column({ name: 'details', type: 'jsonb' })
  details: JsonObject;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  /** When its alert workflow was started; null rows are started again by the worker's sweeper. */
  @Column({ name: 'dispatched_at', type: 'timestamptz', nullable: true })
  dispatchedAt: Date | null;

  /** When rules and cooldowns were applied and its deliveries written (once). */
  @Column({ name: 'planned_at', type: 'timestamptz', nullable: true })
  plannedAt: Date | null;

  @ManyToOne(() => WorkspaceEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id', foreignKeyConstraintName: 'fk_alert_events_workspace' })
  workspace?: WorkspaceEntity;
}

/**
 * One alert of one event to one channel: `pending` until sent, then `sent`; `failed` when its
 * retries ran out or the channel refused it for good; `skipped` when the channel was deleted or
 * is an unverified address by the time of sending.
 */
@Entity({ name: 'alert_deliveries' })
export class AlertDeliveryEntity {
  @PrimaryColumn({ name: 'event_id', type: 'text', primaryKeyConstraintName: 'pk_alert_deliveries' })
  eventId: string;

  @PrimaryColumn({ name: 'channel_id', type: 'text', primaryKeyConstraintName: 'pk_alert_deliveries' })
  channelId: string;

  @Column({ name: 'workspace_id', type: 'text' })
  workspaceId: string;

  /** The (first) rule that routed the event here. */
  @Column({ name: 'rule_id', type: 'text' })
  ruleId: string;

  @Column({ name: 'status', type: 'text' })
  status: string;

  @Column({ name: 'attempts', type: 'integer', default: 0 })
  attempts: number;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError: string | null;

  @Column({ name: 'sent_at', type: 'timestamptz', nullable: true })
  sentAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @ManyToOne(() => AlertEventEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'event_id', foreignKeyConstraintName: 'fk_alert_deliveries_event' })
  event?: AlertEventEntity;
}

/**
 * The cooldown of a rule for a job and an event type: when it last let an alert through. Read and
 * moved in one statement by whichever process plans an event, so the window holds across workers.
 */
@Entity({ name: 'alert_cooldowns' })
export class AlertCooldownEntity {
  @PrimaryColumn({ name: 'rule_id', type: 'text', primaryKeyConstraintName: 'pk_alert_cooldowns' })
  ruleId: string;

  @PrimaryColumn({ name: 'job_id', type: 'text', primaryKeyConstraintName: 'pk_alert_cooldowns' })
  jobId: string;

  @PrimaryColumn({ name: 'event_type', type: 'text', primaryKeyConstraintName: 'pk_alert_cooldowns' })
  eventType: string;

  @Column({ name: 'last_event_id', type: 'text' })
  lastEventId: string;

  /** Occurrence time of the last event that went out. */
  @Column({ name: 'last_alerted_at', type: 'timestamptz' })
  lastAlertedAt: Date;

  @ManyToOne(() => AlertRuleEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'rule_id', foreignKeyConstraintName: 'fk_alert_cooldowns_rule' })
  rule?: AlertRuleEntity;
}

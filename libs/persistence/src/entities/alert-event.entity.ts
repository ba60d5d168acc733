import { Entity, Index } from 'typeorm';
import { BelongsTo, IntegerColumn, JsonColumn, KeyColumn, TextColumn, TimestampColumn } from './columns';
import { CreatedEntity } from './timestamps';
import { WorkspaceRow } from './workspace-row';
import { AlertRuleEntity } from './alert-rule.entity';
import { JsonObject } from './json';

/**
 * Something alert rules can match (docs/alerts.md): `run.failed`, `run.sla_breached`,
 * `job.auto_disabled`, `job.recovered`, and the service's own `service.degraded` /
 * `service.recovered` (no job; one row per workspace listening, id from type, workspace,
 * dependency and the streak's start). Written in the transaction that makes it true, with an id
 * derived from the run and the type (`evt_<26 base32 chars>`, also the alert workflow's id), so
 * an occurrence is recorded once however often the writing step is retried. `details` is a
 * snapshot of what a person needs to act (job name, zone, error…): the job may change or be
 * deleted before the alert leaves.
 */
@Entity({ name: 'alert_events' })
@Index('idx_alert_events_undispatched', ['createdAt'], { where: `"dispatched_at" IS NULL` })
@Index('idx_alert_events_created_at', ['createdAt'])
export class AlertEventEntity extends WorkspaceRow('alert_events', CreatedEntity) {
  @TextColumn('type')
  type: string;

  /** null for the service's own events (`service.degraded`, `service.recovered`). */
  @TextColumn('job_id', { nullable: true })
  jobId: string | null;

  @TextColumn('run_id', { nullable: true })
  runId: string | null;

  @TimestampColumn('occurred_at')
  occurredAt: Date;

  @JsonColumn('details')
  details: JsonObject;

  /** When its alert workflow was started; null rows are started again by the worker's sweeper. */
  @TimestampColumn('dispatched_at', { nullable: true })
  dispatchedAt: Date | null;

  /** When rules and cooldowns were applied and its deliveries written (once). */
  @TimestampColumn('planned_at', { nullable: true })
  plannedAt: Date | null;
}

/**
 * One alert of one event to one channel: `pending` until sent, then `sent`; `failed` when its
 * retries ran out or the channel refused it for good; `skipped` when the channel was deleted or
 * is an unverified address by the time of sending.
 */
@Entity({ name: 'alert_deliveries' })
export class AlertDeliveryEntity extends CreatedEntity {
  @KeyColumn('alert_deliveries', 'event_id')
  eventId: string;

  @KeyColumn('alert_deliveries', 'channel_id')
  channelId: string;

  @TextColumn('workspace_id')
  workspaceId: string;

  /** The (first) rule that routed the event here. */
  @TextColumn('rule_id')
  ruleId: string;

  @TextColumn('status')
  status: string;

  @IntegerColumn('attempts', { default: 0 })
  attempts: number;

  @TextColumn('last_error', { nullable: true })
  lastError: string | null;

  @TimestampColumn('sent_at', { nullable: true })
  sentAt: Date | null;

  @BelongsTo('alert_deliveries', 'event', () => AlertEventEntity)
  event?: AlertEventEntity;
}

/**
 * The cooldown of a rule for a job and an event type: when it last let an alert through. Read and
 * moved in one statement by whichever process plans an event, so the window holds across workers.
 */
@Entity({ name: 'alert_cooldowns' })
export class AlertCooldownEntity {
  @KeyColumn('alert_cooldowns', 'rule_id')
  ruleId: string;

  @KeyColumn('alert_cooldowns', 'job_id')
  jobId: string;

  @KeyColumn('alert_cooldowns', 'event_type')
  eventType: string;

  @TextColumn('last_event_id')
  lastEventId: string;

  /** Occurrence time of the last event that went out. */
  @TimestampColumn('last_alerted_at')
  lastAlertedAt: Date;

  @BelongsTo('alert_cooldowns', 'rule', () => AlertRuleEntity)
  rule?: AlertRuleEntity;
}

import {
  type AlertEventDetails,
  type AlertEventType,
  isServiceDetails,
  newAlertEvent,
  type NewAlertEvent,
  newServiceAlertEvent,
  ruleMatches,
  type ServiceAlertDetails,
  type ServiceAlertEventType,
} from '@svc/common/alert-events';
import { DataSource, EntityManager } from 'typeorm';
import type { AlertChannelWithSecret } from './alert-channels.repository';
import { deleteCreatedBefore } from './delete-created-before';
import { returnedRows } from './query-result';

/** A recorded event as the alert workflow's activities read it: what was recorded. */
export type StoredAlertEvent = NewAlertEvent;

export type AlertDeliveryStatus = 'pending' | 'sent' | 'failed' | 'skipped';

/** What sending one alert needs: the delivery, its event and its channel (with its secret). */
export interface AlertDeliveryContext {
  status: AlertDeliveryStatus;
  attempts: number;
  event: StoredAlertEvent;
  /** null when the channel was deleted since the event was planned. */
  channel: AlertChannelWithSecret | null;
}

/** Events older than this are deleted by `deleteOlderThan` batches of this size. */
export const ALERT_EVENT_PURGE_BATCH = 5_000;

interface RawEvent {
  id: string;
  workspace_id: string;
  type: AlertEventType;
  job_id: string | null;
  run_id: string | null;
  occurred_at: Date;
  details: AlertEventDetails | ServiceAlertDetails;
  planned_at: Date | null;
}

/**
 * Alert events, their deliveries and the rules' cooldowns (docs/alerts.md). Every write is
 * idempotent: events by their derived id, deliveries by (event, channel), planning once per event
 * (`planned_at` under the event's row lock), so Temporal's at-least-once activities and several
 * worker processes never record or send an occurrence twice.
 */
export class AlertEventsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Records events in the caller's transaction (the one that made them true). Only events some
   * enabled rule of the workspace listens for are kept — the rest could never be sent, and a
   * failing job in a workspace without alerting then costs no row and no workflow. An id that
   * exists already is left alone. Returns the ids inserted now.
   */
  async record(events: readonly NewAlertEvent[], manager: EntityManager = this.dataSource.manager): Promise<string[]> {
    if (events.length === 0) {
      return [];
    }
    const rows: Array<{ id: string }> = await manager.query(
      `INSERT INTO alert_events (id, workspace_id, type, job_id, run_id, occurred_at, details)
       SELECT e.id, e.workspace_id, e.type, e.job_id, e.run_id, e.occurred_at, e.details
         FROM jsonb_to_recordset($1::jsonb) AS e(id text, workspace_id text, type text, job_id text, run_id text,
              occurred_at timestamptz, details jsonb)
        WHERE EXISTS (SELECT 1 FROM alert_rules r
                       WHERE r.workspace_id = e.workspace_id AND r.enabled AND e.type = ANY(r.events))
       ON CONFLICT (id) DO NOTHING
       RETURNING id`,
      [
        JSON.stringify(
          events.map((e) => ({
            id: e.id,
            workspace_id: e.workspaceId,
            type: e.type,
            job_id: e.jobId,
            run_id: e.runId,
            occurred_at: e.occurredAt.toISOString(),
            details: e.details,
          })),
        ),
      ],
    );
    return rows.map((row) => row.id);
  }

  /**
   * Records a service event (docs/alerts.md → Service events) in every workspace with an enabled
   * rule listing its type, one row each, with ids derived from type, workspace, dependency and the
   * streak's start: recording the same transition again (a flush retried after PostgreSQL came
   * back, a second call) inserts nothing. Returns the ids inserted now.
   */
  async recordServiceEvent(type: ServiceAlertEventType, at: Date, details: ServiceAlertDetails): Promise<string[]> {
    const workspaces: Array<{ workspace_id: string }> = await this.dataSource.manager.query(
      `SELECT DISTINCT workspace_id FROM alert_rules WHERE enabled AND $1 = ANY(events) ORDER BY workspace_id`,
      [type],
    );
    return this.record(workspaces.map((row) => newServiceAlertEvent(type, row.workspace_id, at, details)));
  }

  /**
   * The SLA watch (decisions.md → sla_threshold: checked while running): marks runs still
   * `running` or `deferred` past `scheduled_at + sla_threshold` as breached and records their
   * `run.sla_breached` events, in one transaction, at most `limit` runs. Rows another transaction
   * holds (a run being closed right now) are skipped: closing computes the breach itself. Several
   * workers may run this at once; each run is marked by one of them. Returns how many runs were
   * marked and the ids of the events recorded (those some rule listens for).
   */
  async markSlaBreachesInFlight(
    now: Date,
    defaultSlaMs: number,
    limit: number,
  ): Promise<{ marked: number; eventIds: string[] }> {
    return this.dataSource.transaction(async (manager) => {
      const rows = returnedRows<{
        id: string;
        workspace_id: string;
        job_id: string;
        scheduled_at: Date;
        trigger: string;
        status: string;
        attempts_count: number;
        last_error: string | null;
        job_name: string;
        timezone: string;
        tags: string[];
        sla_threshold_ms: number;
      }>(
        await manager.query(
          `UPDATE runs r SET sla_breached = true, updated_at = now()
             FROM jobs j
            WHERE r.id IN (
                    SELECT r2.id FROM runs r2 JOIN jobs j2 ON j2.id = r2.job_id
                     WHERE r2.status IN ('running', 'deferred') AND NOT r2.sla_breached AND r2.scheduled_at < $1
                       AND COALESCE(r2.planned_at, r2.scheduled_at) + (COALESCE(j2.sla_threshold_ms, $2::int) * interval '1 millisecond') < $1
                     ORDER BY r2.scheduled_at LIMIT $3
                       FOR UPDATE OF r2 SKIP LOCKED)
              AND j.id = r.job_id
          RETURNING r.id, r.workspace_id, r.job_id, r.scheduled_at, r.trigger, r.status, r.attempts_count,
                    r.last_error, j.name AS job_name, j.schedule_timezone AS timezone, j.tags,
                    COALESCE(j.sla_threshold_ms, $2::int) AS sla_threshold_ms`,
          [now, defaultSlaMs, limit],
        ),
      );
      const events = rows.map((row) =>
        newAlertEvent('run.sla_breached', now, {
          workspaceId: row.workspace_id,
          job: { id: row.job_id, name: row.job_name, timezone: row.timezone, tags: row.tags },
          run: {
            id: row.id,
            scheduled_at: row.scheduled_at.toISOString(),
            trigger: row.trigger,
            status: row.status,
            attempts: row.attempts_count,
            last_error: row.last_error,
            finished_at: null,
          },
          sla_threshold_ms: row.sla_threshold_ms,
          still_running: true,
        }),
      );
      return { marked: rows.length, eventIds: await this.record(events, manager) };
    });
  }

  /** Events whose workflow was not started (a crash between commit and start), oldest first. */
  async undispatched(createdBefore: Date, limit: number): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.dataSource.manager.query(
      `SELECT id FROM alert_events WHERE dispatched_at IS NULL AND created_at < $1 ORDER BY created_at LIMIT $2`,
      [createdBefore, limit],
    );
    return rows.map((row) => row.id);
  }

  async markDispatched(ids: readonly string[], at: Date): Promise<void> {
    if (ids.length === 0) {
      return;
    }
    await this.dataSource.manager.query(
      `UPDATE alert_events SET dispatched_at = $2 WHERE id = ANY($1::text[]) AND dispatched_at IS NULL`,
      [[...ids], at],
    );
  }

  /**
   * Decides where an event goes, once: under the event's row lock, the first call matches the
   * workspace's enabled rules (`ruleMatches`), moves each matching rule's cooldown for the job and
   * event type when it has passed (a rule still cooling down sends nothing), and writes one
   * `pending` delivery per verified channel of the rules that passed. Later calls (a retried
   * activity) find it planned and change nothing. Returns the channels still to send to, or null
   * when the event no longer exists.
   */
  async plan(eventId: string): Promise<{ event: StoredAlertEvent; pendingChannelIds: string[] } | null> {
    return this.dataSource.transaction(async (manager) => {
      const found: RawEvent[] = await manager.query(
        `SELECT id, workspace_id, type, job_id, run_id, occurred_at, details, planned_at
           FROM alert_events WHERE id = $1 FOR UPDATE`,
        [eventId],
      );
      if (found.length === 0) {
        return null;
      }
      const raw = found[0];
      const event = toStoredEvent(raw);
      if (raw.planned_at === null) {
        await this.planOnce(event, manager);
      }
      const pending: Array<{ channel_id: string }> = await manager.query(
        `SELECT channel_id FROM alert_deliveries WHERE event_id = $1 AND status = 'pending' ORDER BY channel_id`,
        [eventId],
      );
      return { event, pendingChannelIds: pending.map((row) => row.channel_id) };
    });
  }

  private async planOnce(event: StoredAlertEvent, manager: EntityManager): Promise<void> {
    const rules: Array<{
      id: string;
      enabled: boolean;
      channel_ids: string[];
      events: string[];
      job_ids: string[] | null;
      tags: string[] | null;
      cooldown_ms: number;
    }> = await manager.query(
      `SELECT id, enabled, channel_ids, events, job_ids, tags, cooldown_ms FROM alert_rules
        WHERE workspace_id = $1 AND enabled AND $2 = ANY(events) ORDER BY id`,
      [event.workspaceId, event.type],
    );
    const routes = new Map<string, string>();
    for (const rule of rules) {
      const filter = { enabled: rule.enabled, events: rule.events, jobIds: rule.job_ids, tags: rule.tags };
      const tags = isServiceDetails(event.details) ? [] : event.details.job.tags;
      if (!ruleMatches(filter, event.type, event.jobId, tags) || rule.channel_ids.length === 0) {
        continue;
      }
      if (rule.cooldown_ms > 0 && !(await this.passCooldown(rule.id, rule.cooldown_ms, event, manager))) {
        continue;
      }
      for (const channelId of rule.channel_ids) {
        if (!routes.has(channelId)) {
          routes.set(channelId, rule.id);
        }
      }
    }
    if (routes.size > 0) {
      // Existing, verified channels of the workspace only: unverified addresses get nothing but
      // their confirmation mail (decisions.md → Alert channels).
      await manager.query(
        `INSERT INTO alert_deliveries (event_id, channel_id, workspace_id, rule_id, status)
         SELECT $1, c.id, c.workspace_id, r.rule_id, 'pending'
           FROM jsonb_to_recordset($3::jsonb) AS r(channel_id text, rule_id text)
           JOIN alert_channels c ON c.id = r.channel_id AND c.workspace_id = $2 AND c.verified
         ON CONFLICT (event_id, channel_id) DO NOTHING`,
        [
          event.id,
          event.workspaceId,
          JSON.stringify([...routes].map(([channelId, ruleId]) => ({ channel_id: channelId, rule_id: ruleId }))),
        ],
      );
    }
    await manager.query(`UPDATE alert_events SET planned_at = now() WHERE id = $1`, [event.id]);
  }

  /**
   * Lets the event through a rule's cooldown for its job and type when the last event let through
   * occurred at least `cooldownMs` before this one, and moves the window to this event — in one
   * statement, so two workers planning events of the same job at once cannot both pass. A service
   * event's window is per dependency (`service:<dependency>` in place of the job): a second worker
   * telling the same outage moments later is held back by it too.
   */
  private async passCooldown(
    ruleId: string,
    cooldownMs: number,
    event: StoredAlertEvent,
    manager: EntityManager,
  ): Promise<boolean> {
    const rows = returnedRows(
      await manager.query(
        `INSERT INTO alert_cooldowns AS c (rule_id, job_id, event_type, last_event_id, last_alerted_at)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (rule_id, job_id, event_type) DO UPDATE
           SET last_event_id = EXCLUDED.last_event_id, last_alerted_at = EXCLUDED.last_alerted_at
         WHERE c.last_alerted_at + ($6::int * interval '1 millisecond') <= EXCLUDED.last_alerted_at
         RETURNING 1`,
        [ruleId, cooldownSubject(event), event.type, event.id, event.occurredAt, cooldownMs],
      ),
    );
    return rows.length > 0;
  }

  /** The delivery of `eventId` to `channelId` with its event and channel; null when unknown. */
  async deliveryContext(eventId: string, channelId: string): Promise<AlertDeliveryContext | null> {
    const rows: Array<RawEvent & { status: AlertDeliveryStatus; attempts: number }> =
      await this.dataSource.manager.query(
        `SELECT e.id, e.workspace_id, e.type, e.job_id, e.run_id, e.occurred_at, e.details, e.planned_at,
                d.status, d.attempts
           FROM alert_deliveries d JOIN alert_events e ON e.id = d.event_id
          WHERE d.event_id = $1 AND d.channel_id = $2`,
        [eventId, channelId],
      );
    if (rows.length === 0) {
      return null;
    }
    const event = toStoredEvent(rows[0]);
    const channels: Array<{
      id: string;
      workspace_id: string;
      name: string;
      kind: string;
      config: Record<string, string>;
      verified: boolean;
      signing_secret: string | null;
      verification_sent_at: Date | null;
      created_at: Date;
      updated_at: Date;
    }> = await this.dataSource.manager.query(`SELECT * FROM alert_channels WHERE id = $1 AND workspace_id = $2`, [
      channelId,
      event.workspaceId,
    ]);
    const c = channels[0];
    return {
      status: rows[0].status,
      attempts: rows[0].attempts,
      event,
      channel: c
        ? {
            id: c.id,
            workspaceId: c.workspace_id,
            name: c.name,
            kind: c.kind,
            config: c.config,
            verified: c.verified,
            signingSecret: c.signing_secret,
            verificationSentAt: c.verification_sent_at,
            createdAt: c.created_at,
            updatedAt: c.updated_at,
          }
        : null,
    };
  }

  /** Counts an attempt to send; `outcome` closes the delivery (`sent`, `failed`, `skipped`) or keeps it pending. */
  async recordAttempt(
    eventId: string,
    channelId: string,
    outcome: { status: AlertDeliveryStatus; error: string | null; at: Date },
  ): Promise<void> {
    await this.dataSource.manager.query(
      `UPDATE alert_deliveries SET status = $3, last_error = $4, attempts = attempts + 1,
              sent_at = CASE WHEN $3 = 'sent' THEN $5::timestamptz ELSE sent_at END
        WHERE event_id = $1 AND channel_id = $2 AND status = 'pending'`,
      [eventId, channelId, outcome.status, outcome.error, outcome.at],
    );
  }

  /** Closes a delivery still pending as `failed` (its retries ran out), keeping its attempt count. */
  async markFailed(eventId: string, channelId: string, error: string): Promise<void> {
    await this.dataSource.manager.query(
      `UPDATE alert_deliveries SET status = 'failed', last_error = $3
        WHERE event_id = $1 AND channel_id = $2 AND status = 'pending'`,
      [eventId, channelId, error],
    );
  }

  /** Deliveries of an event by channel (tests and diagnostics). */
  async deliveries(
    eventId: string,
  ): Promise<Array<{ channelId: string; status: AlertDeliveryStatus; attempts: number; lastError: string | null }>> {
    const rows: Array<{
      channel_id: string;
      status: AlertDeliveryStatus;
      attempts: number;
      last_error: string | null;
    }> = await this.dataSource.manager.query(
      `SELECT channel_id, status, attempts, last_error FROM alert_deliveries WHERE event_id = $1 ORDER BY channel_id`,
      [eventId],
    );
    return rows.map((r) => ({
      channelId: r.channel_id,
      status: r.status,
      attempts: r.attempts,
      lastError: r.last_error,
    }));
  }

  /** Retention: deletes events (and their deliveries) created before `cutoff`, in batches. */
  async deleteOlderThan(cutoff: Date, batchSize = ALERT_EVENT_PURGE_BATCH): Promise<number> {
    return deleteCreatedBefore(this.dataSource.manager, 'alert_events', cutoff, batchSize);
  }
}

/** What a rule's cooldown window is kept per, beside the rule and the type. */
function cooldownSubject(event: StoredAlertEvent): string {
  return isServiceDetails(event.details) ? `service:${event.details.service.dependency}` : (event.jobId ?? '');
}

function toStoredEvent(raw: RawEvent): StoredAlertEvent {
  return {
    id: raw.id,
    workspaceId: raw.workspace_id,
    type: raw.type,
    jobId: raw.job_id,
    runId: raw.run_id,
    occurredAt: raw.occurred_at,
    details: raw.details,
  };
}

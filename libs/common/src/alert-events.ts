/**
 * Alert events (docs/alerts.md; decisions.md → Alert rules): their types, the id an occurrence
 * gets, the snapshot an event carries, and which rules match it. Pure; imported as
 * `@svc/common/alert-events` (it uses node:crypto, so it stays out of the index that workflow
 * code may reach).
 */
import { createHash } from 'node:crypto';

/** Events of a job's run: each tied to one run. */
export const JOB_ALERT_EVENT_TYPES = ['run.failed', 'run.sla_breached', 'job.auto_disabled', 'job.recovered'] as const;
export type JobAlertEventType = (typeof JOB_ALERT_EVENT_TYPES)[number];
/**
 * Events of the service itself (docs/alerts.md → Service events): a dependency degraded, then
 * recovered. Tied to no job; rules' `job_ids` and `tags` do not narrow them.
 */
export const SERVICE_ALERT_EVENT_TYPES = ['service.degraded', 'service.recovered'] as const;
export type ServiceAlertEventType = (typeof SERVICE_ALERT_EVENT_TYPES)[number];
/** Every event a rule may list. */
export const ALERT_EVENT_TYPES = [...JOB_ALERT_EVENT_TYPES, ...SERVICE_ALERT_EVENT_TYPES] as const;
export type AlertEventType = (typeof ALERT_EVENT_TYPES)[number];

export function isServiceEventType(type: string): type is ServiceAlertEventType {
  return (SERVICE_ALERT_EVENT_TYPES as readonly string[]).includes(type);
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * The id of an occurrence of `type` caused by run `runId`: `evt_` + 26 Crockford base32 characters
 * of SHA-256(type, run id). Every event is tied to one run (the run that failed, breached, tipped
 * the job into auto-disable, or first succeeded after failures), and each type happens at most once
 * per run, so the same occurrence always gets the same id: a retried activity or a second worker
 * inserts the same primary key and records nothing new, and the alert workflow started with this
 * id coalesces duplicate starts. Receivers see it as `webhook-id` / `Svc-Event-Id`.
 */
export function alertEventId(type: AlertEventType, runId: string): string {
  return eventIdOf(`${type}\n${runId}`);
}

/**
 * The id of a service event in one workspace: derived from the type, the workspace, the
 * dependency and the instant its failing streak began, so recording it again (a retried flush
 * after PostgreSQL came back) inserts nothing new.
 */
export function serviceAlertEventId(
  type: ServiceAlertEventType,
  workspaceId: string,
  dependency: string,
  beganAt: Date,
): string {
  return eventIdOf(`${type}\n${workspaceId}\n${dependency}\n${beganAt.toISOString()}`);
}

function eventIdOf(key: string): string {
  const digest = createHash('sha256').update(key, 'utf8').digest();
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of digest) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < 26) {
      out += CROCKFORD[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    if (out.length === 26) {
      break;
    }
  }
  return `evt_${out}`;
}

/** What an event remembers of its job and run: enough to write an alert a person can act on. */
export interface AlertEventDetails {
  job: { id: string; name: string; timezone: string; tags: string[] };
  run: {
    id: string;
    scheduled_at: string;
    trigger: string;
    status: string;
    /** Attempts made so far. */
    attempts: number;
    last_error: string | null;
    finished_at: string | null;
  };
  /** `run.sla_breached`: the threshold in ms and whether the run was still in flight. */
  sla_threshold_ms?: number;
  still_running?: boolean;
  /** `job.auto_disabled` / `run.failed`: the failure streak after this run. */
  consecutive_failures?: number;
  /** `job.recovered`: the streak this success ended. */
  previous_failures?: number;
  disabled_reason?: string;
}

/**
 * What a service event says (docs/alerts.md → Service events): which dependency, why, when its
 * failing streak began, when it counted as degraded and, once known, when it ended. A
 * `service.degraded` recorded only after the dependency came back (PostgreSQL itself was out, so
 * the event could not be recorded earlier) carries its `ended_at` too.
 */
export interface ServiceAlertDetails {
  service: {
    dependency: string;
    /** The last failure's cause. */
    cause: string | null;
    began_at: string;
    /** When it had failed long enough to count as degraded. */
    degraded_at: string;
    ended_at: string | null;
    /** `ended_at - began_at`, when ended. */
    duration_ms: number | null;
    /** The worker process that saw it (host:pid). */
    observed_by: string;
  };
}

export function isServiceDetails(details: AlertEventDetails | ServiceAlertDetails): details is ServiceAlertDetails {
  return 'service' in details;
}

/** An event to record: type, where, when, and its snapshot. */
export interface NewAlertEvent {
  id: string;
  workspaceId: string;
  type: AlertEventType;
  /** null for service events. */
  jobId: string | null;
  runId: string | null;
  occurredAt: Date;
  details: AlertEventDetails | ServiceAlertDetails;
}

/** Builds the event of `type` for a run (its id derived from both). */
export function newAlertEvent(
  type: JobAlertEventType,
  at: Date,
  details: AlertEventDetails & { workspaceId: string },
): NewAlertEvent {
  const { workspaceId, ...rest } = details;
  return {
    id: alertEventId(type, rest.run.id),
    workspaceId,
    type,
    jobId: rest.job.id,
    runId: rest.run.id,
    occurredAt: at,
    details: rest,
  };
}

/** The parts of a rule that decide whether it matches an event. */
export interface AlertRuleFilter {
  enabled: boolean;
  events: readonly string[];
  /** null or empty: every job. */
  jobIds: readonly string[] | null;
  /** null or empty: every tag. */
  tags: readonly string[] | null;
}

/** A service event of one workspace, its id derived from type, workspace, dependency and start. */
export function newServiceAlertEvent(
  type: ServiceAlertEventType,
  workspaceId: string,
  at: Date,
  details: ServiceAlertDetails,
): NewAlertEvent {
  return {
    id: serviceAlertEventId(type, workspaceId, details.service.dependency, new Date(details.service.began_at)),
    workspaceId,
    type,
    jobId: null,
    runId: null,
    occurredAt: at,
    details,
  };
}

/**
 * Whether a rule matches an event of `type` for a job with `jobId` and `jobTags`: the rule is
 * enabled, lists the type, and each filter it sets holds — `job_ids` contains the job, `tags`
 * shares at least one tag with it. Filters left out (or empty) match every job. Service events
 * (no job) match every enabled rule that lists them: the filters narrow jobs, not the service.
 */
export function ruleMatches(
  rule: AlertRuleFilter,
  type: string,
  jobId: string | null,
  jobTags: readonly string[],
): boolean {
  if (!rule.enabled || !rule.events.includes(type)) {
    return false;
  }
  if (isServiceEventType(type) || jobId === null) {
    return true;
  }
  if (rule.jobIds && rule.jobIds.length > 0 && !rule.jobIds.includes(jobId)) {
    return false;
  }
  if (rule.tags && rule.tags.length > 0 && !rule.tags.some((tag) => jobTags.includes(tag))) {
    return false;
  }
  return true;
}

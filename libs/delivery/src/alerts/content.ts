/**
 * What an alert says (docs/alerts.md → Content): one message composed from an event's snapshot,
 * then written out for email (text and HTML), Slack (Block Kit) and webhooks (JSON). Pure: the
 * links are computed by the caller from the configuration, the time zone comes with the event.
 */
import { formatDuration } from '@svc/common';
import {
  type AlertEventDetails,
  type AlertEventType,
  isServiceDetails,
  type ServiceAlertDetails,
} from '@svc/common/alert-events';
import { DateTime } from 'luxon';

/** Type of the synthetic event `POST /alert-channels/{id}/test` sends. */
export const TEST_ALERT_TYPE = 'alert.test';

/** An event as alerts are written from it. */
export interface AlertEventView {
  id: string;
  type: AlertEventType;
  occurredAt: Date | string;
  details: AlertEventDetails | ServiceAlertDetails;
}

export interface AlertLinks {
  /** The run in the dashboard (served by the API at `public_url`). */
  run: string | null;
  /** The run in the API (`GET /api/v1/runs/{id}`). */
  runApi: string | null;
  /** The run's workflow in the Temporal Web UI, when `temporal.ui_url` is set. */
  temporal: string | null;
  /** The job in the dashboard. */
  job: string | null;
}

export interface LinkSettings {
  public_url: string;
  temporal: { ui_url: string | null; namespace: string };
}

/** Links of an event's run and job (run workflow id = run id; architecture.md). */
export function alertLinks(settings: LinkSettings, jobId: string | null, runId: string | null): AlertLinks {
  const base = settings.public_url.replace(/\/+$/, '');
  const ui = settings.temporal.ui_url?.replace(/\/+$/, '') ?? null;
  return {
    run: runId ? `${base}/runs/${encodeURIComponent(runId)}` : null,
    runApi: runId ? `${base}/api/v1/runs/${encodeURIComponent(runId)}` : null,
    temporal:
      ui && runId
        ? `${ui}/namespaces/${encodeURIComponent(settings.temporal.namespace)}/workflows/${encodeURIComponent(runId)}`
        : null,
    job: jobId ? `${base}/jobs/${encodeURIComponent(jobId)}` : null,
  };
}

/** A composed alert, before it is written for a channel. */
export interface AlertMessage {
  eventId: string;
  type: string;
  /** One line: what happened to which job. */
  title: string;
  /** Label → value, in reading order; the first rows are the ones to act on. */
  facts: Array<[string, string]>;
  /** What to do next, when there is something specific. */
  hint: string | null;
  links: AlertLinks;
  occurredAt: string;
}

/**
 * `2026-11-22 09:00:00 +01:00 (Europe/Berlin)`: an instant in the job's zone, with its UTC offset
 * and the zone's name, so the reader sees the time the schedule was written in (offsets rather
 * than abbreviations: those depend on the ICU data of the host).
 */
export function formatInZone(instant: Date | string, zone: string): string {
  const dt = DateTime.fromJSDate(new Date(instant), { zone });
  if (!dt.isValid) {
    return `${new Date(instant).toISOString()} (UTC)`;
  }
  return `${dt.toFormat('yyyy-MM-dd HH:mm:ss ZZ')} (${zone})`;
}

function quoted(name: string): string {
  return `"${name}"`;
}

/** What each dependency of the service is called in an alert. */
const DEPENDENCY_NAMES: Record<string, string> = {
  temporal: 'Temporal',
  postgres: 'PostgreSQL',
  worker_polling: 'No worker polling the task queue',
  schedule_lag: 'Schedule lag',
};

function dependencyTitle(dependency: string, type: string): string {
  const degraded = type === 'service.degraded';
  switch (dependency) {
    case 'temporal':
      return degraded ? 'Temporal is unreachable' : 'Temporal is reachable again';
    case 'postgres':
      return degraded ? 'PostgreSQL is unreachable' : 'PostgreSQL is reachable again';
    case 'worker_polling':
      return degraded ? 'no worker polls the task queue' : 'a worker polls the task queue again';
    case 'schedule_lag':
      return degraded ? 'schedules run late' : 'schedules run on time again';
    default:
      return degraded ? `${dependency} is out` : `${dependency} is back`;
  }
}

/** An event's message: its id, type and time around what was composed for it. */
function eventMessage(
  event: AlertEventView,
  composed: Pick<AlertMessage, 'title' | 'facts' | 'hint' | 'links'>,
): AlertMessage {
  return { eventId: event.id, type: event.type, ...composed, occurredAt: new Date(event.occurredAt).toISOString() };
}

/** The message of a service event: what is out, why, since when and (once known) until when. */
function composeServiceAlert(
  event: AlertEventView,
  details: ServiceAlertDetails,
  links: AlertLinks,
  serviceName: string,
): AlertMessage {
  const s = details.service;
  const duration = s.duration_ms !== null ? formatDuration(Math.round(s.duration_ms / 1000) * 1000) : null;
  const degraded = event.type === 'service.degraded';
  let title = `${serviceName} ${degraded ? 'degraded' : 'recovered'}: ${dependencyTitle(s.dependency, event.type)}`;
  if (!degraded && duration) {
    title += ` after ${duration}`;
  }
  const facts: Array<[string, string]> = [['Dependency', DEPENDENCY_NAMES[s.dependency] ?? s.dependency]];
  if (s.cause) {
    facts.push([degraded ? 'Cause' : 'It was', s.cause]);
  }
  facts.push(['Began', s.began_at], ['Degraded since', s.degraded_at]);
  if (s.ended_at) {
    facts.push(['Ended', s.ended_at]);
  }
  if (duration) {
    facts.push(['Duration', duration]);
  }
  facts.push(['Seen by', s.observed_by]);
  const hint =
    degraded && s.ended_at
      ? 'Told only now: it could not be recorded while it lasted (alert rules live in PostgreSQL). It has ended.'
      : degraded
        ? 'Check the dependency (svc doctor, /readyz); a recovery alert follows when it is back.'
        : null;
  return eventMessage(event, { title, facts, hint, links });
}

/** The message of an event: title, facts (job, occurrence in the job's zone, error, attempts), links. */
export function composeAlert(event: AlertEventView, links: AlertLinks, serviceName = 'The service'): AlertMessage {
  const { details } = event;
  if (isServiceDetails(details)) {
    return composeServiceAlert(event, details, links, serviceName);
  }
  const job = details.job;
  const run = details.run;
  const zone = job.timezone || 'UTC';
  const sla = details.sla_threshold_ms !== undefined ? formatDuration(details.sla_threshold_ms) : null;
  let title: string;
  let hint: string | null = null;
  switch (event.type) {
    case 'run.failed':
      title = `Job ${quoted(job.name)} failed`;
      break;
    case 'run.sla_breached':
      title = details.still_running
        ? `Job ${quoted(job.name)} is late: its run has not finished within ${sla}`
        : `Job ${quoted(job.name)} breached its SLA: the run took longer than ${sla}`;
      break;
    case 'job.auto_disabled':
      title = `Job ${quoted(job.name)} was disabled after ${details.consecutive_failures ?? '?'} consecutive failed runs`;
      hint = `It runs again once it is enabled: fix the target, then POST /api/v1/jobs/${job.id}/enable (or Enable in the dashboard).`;
      break;
    case 'job.recovered':
      title = `Job ${quoted(job.name)} recovered after ${details.previous_failures ?? '?'} failed run${details.previous_failures === 1 ? '' : 's'}`;
      break;
    default:
      title = `Job ${quoted(job.name)}: ${event.type}`;
  }
  const facts: Array<[string, string]> = [
    ['Job', `${job.name} (${job.id})`],
    ['Occurrence', formatInZone(run.scheduled_at, zone)],
  ];
  if (run.last_error && event.type !== 'job.recovered') {
    facts.push(['Last error', run.last_error]);
  }
  facts.push(['Attempts', String(run.attempts)]);
  facts.push(['Run', `${run.id} (${run.status}, trigger ${run.trigger})`]);
  if (sla) {
    facts.push(['SLA', `${sla} after the occurrence`]);
  }
  if (details.consecutive_failures !== undefined && event.type !== 'job.recovered') {
    facts.push(['Consecutive failures', String(details.consecutive_failures)]);
  }
  if (details.disabled_reason) {
    facts.push(['Disabled reason', details.disabled_reason]);
  }
  return eventMessage(event, { title, facts, hint, links });
}

/** The message of a channel test. */
export function composeTestAlert(eventId: string, channelName: string, serviceName: string, at: Date): AlertMessage {
  return {
    eventId,
    type: TEST_ALERT_TYPE,
    title: `Test alert from ${serviceName}: channel ${quoted(channelName)} works`,
    facts: [['Sent', at.toISOString()]],
    hint: 'Alerts for failed runs, SLA breaches, auto-disabled and recovered jobs arrive here like this one.',
    links: { run: null, runApi: null, temporal: null, job: null },
    occurredAt: at.toISOString(),
  };
}

function linkLines(links: AlertLinks): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  if (links.run) {
    out.push(['Run in the dashboard', links.run]);
  }
  if (links.temporal) {
    out.push(['Workflow in Temporal', links.temporal]);
  }
  if (links.runApi) {
    out.push(['Run in the API', links.runApi]);
  }
  return out;
}

export interface EmailContent {
  subject: string;
  text: string;
  html: string;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
function html(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}

/** Subject, plain text and HTML of an alert mail. Everything from the event is escaped in the HTML. */
export function emailContent(message: AlertMessage, serviceName: string): EmailContent {
  const links = linkLines(message.links);
  const textLines = [
    message.title,
    '',
    ...message.facts.map(([label, value]) => `${label}: ${value}`),
    ...(message.hint ? ['', message.hint] : []),
    ...(links.length > 0 ? ['', ...links.map(([label, url]) => `${label}: ${url}`)] : []),
    '',
    `Event ${message.eventId} (${message.type}) from ${serviceName}.`,
  ];
  const rows = message.facts
    .map(
      ([label, value]) =>
        `<tr><th align="left" style="padding-right:12px">${html(label)}</th><td>${html(value)}</td></tr>`,
    )
    .join('');
  const htmlBody = [
    `<p><strong>${html(message.title)}</strong></p>`,
    `<table>${rows}</table>`,
    message.hint ? `<p>${html(message.hint)}</p>` : '',
    links.length > 0
      ? `<p>${links.map(([label, url]) => `<a href="${html(url)}">${html(label)}</a>`).join(' &middot; ')}</p>`
      : '',
    `<p style="color:#666">Event ${html(message.eventId)} (${html(message.type)}) from ${html(serviceName)}.</p>`,
  ].join('\n');
  return { subject: `[${serviceName}] ${message.title}`, text: textLines.join('\n'), html: htmlBody };
}

/** Slack's mrkdwn needs only these three escaped (api.slack.com: formatting text). */
function mrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Section text is limited to 3000 characters by Block Kit; long errors are cut. */
function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * An incoming-webhook payload: `text` (the notification line and the fallback) and Block Kit
 * blocks with the title, the facts, the hint, the links to the run in the dashboard and in the
 * Temporal Web UI, and the event id.
 */
export function slackPayload(message: AlertMessage, serviceName: string): { text: string; blocks: unknown[] } {
  const facts = message.facts.map(([label, value]) => `*${mrkdwn(label)}:* ${mrkdwn(cut(value, 1500))}`).join('\n');
  const links = linkLines(message.links).map(([label, url]) => `<${url}|${mrkdwn(label)}>`);
  const blocks: unknown[] = [
    { type: 'section', text: { type: 'mrkdwn', text: `*${mrkdwn(message.title)}*` } },
    { type: 'section', text: { type: 'mrkdwn', text: cut(facts, 3000) } },
  ];
  if (message.hint) {
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: mrkdwn(message.hint) } });
  }
  if (links.length > 0) {
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: links.join('  •  ') } });
  }
  blocks.push({
    type: 'context',
    elements: [{ type: 'mrkdwn', text: mrkdwn(`${serviceName} · ${message.type} · event ${message.eventId}`) }],
  });
  return { text: message.title, blocks };
}

/**
 * The JSON body of a webhook alert, in the Standard Webhooks shape `{type, timestamp, data}`;
 * `data` carries the event's snapshot, the readable title and occurrence time, and the links.
 */
export function webhookAlertBody(message: AlertMessage, event: AlertEventView | null): string {
  const data: Record<string, unknown> = {
    event_id: message.eventId,
    title: message.title,
    occurred_at: message.occurredAt,
    links: {
      run: message.links.run,
      run_api: message.links.runApi,
      temporal: message.links.temporal,
      job: message.links.job,
    },
  };
  const details = event?.details;
  if (details && isServiceDetails(details)) {
    data.service = details.service;
  } else if (details) {
    data.job = details.job;
    data.run = details.run;
    data.scheduled_at_local = formatInZone(details.run.scheduled_at, details.job.timezone || 'UTC');
    for (const key of [
      'sla_threshold_ms',
      'still_running',
      'consecutive_failures',
      'previous_failures',
      'disabled_reason',
    ] as const) {
      if (details[key] !== undefined) {
        data[key] = details[key];
      }
    }
  }
  return JSON.stringify({ type: message.type, timestamp: message.occurredAt, data });
}

/**
 * The dashboard's only way to the API: the typed client generated from the server's OpenAPI
 * document (`@svc/api-client`: openapi-fetch over openapi-typescript's types; docs/api.md → Typed
 * client), same origin, the `svc_session` cookie (HttpOnly, so never seen here), the active
 * workspace in `Svc-Workspace`, and the session's CSRF token on every request that changes data
 * (spec → Authentication 4). Every type below is the document's; none is written by hand.
 */
import { type ApiErrorEnvelope, createApiClient, type operations, type Schema } from '@svc/api-client';

export type ApiErrorBody = ApiErrorEnvelope['error'];
export type ScheduleError = Schema<'ScheduleError'>;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
  ) {
    super(body.message);
  }
}

const session = { csrf: null as string | null, workspace: null as string | null };
let onSignedOut: () => void = () => undefined;

export function setSession(csrf: string | null, workspace: string | null): void {
  session.csrf = csrf;
  session.workspace = workspace;
}

export function whenSignedOut(listener: () => void): void {
  onSignedOut = listener;
}

/**
 * The typed client, for calls by path template: `client.GET('/api/v1/jobs/{id}', {params: {path:
 * {id}}})` checks path, parameters, body and response against the document. Its middleware adds
 * the session's headers and signs the page out on a 401.
 */
export const client = createApiClient({ baseUrl: '', credentials: 'same-origin' });
client.use({
  onRequest({ request }) {
    request.headers.set('accept', 'application/json');
    if (session.workspace) {
      request.headers.set('svc-workspace', session.workspace);
    }
    if (request.method !== 'GET' && session.csrf) {
      request.headers.set('x-csrf-token', session.csrf);
    }
    return request;
  },
  onResponse({ request, response }) {
    if (response.status === 401 && !new URL(request.url).pathname.startsWith('/api/v1/auth/')) {
      onSignedOut();
    }
    return undefined;
  },
});

/** The data of a typed call, or its error envelope thrown as `ApiError`. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) {
    throw new ApiError(
      response.status,
      (error as { error?: ApiErrorBody } | undefined)?.error ?? {
        code: 'internal',
        message: `HTTP ${response.status}`,
      },
    );
  }
  return data as T;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * A call by concrete URL (`/api/v1/jobs/job_…/pause`), through the same client and middleware:
 * what the pages use; `T` is one of the document's types below.
 */
export async function api<T = unknown>(method: Method, path: string, body?: unknown): Promise<T> {
  const [pathname, search] = path.split('?', 2);
  const init = {
    ...(body === undefined ? {} : { body }),
    // The query string is already encoded: pass it through as it is.
    querySerializer: () => search ?? '',
  };
  // The URL is concrete, not a template of the document: its types come from `T`.
  const request = client.request as unknown as (
    method: Method,
    url: string,
    init: object,
  ) => Promise<{ data?: T; error?: unknown; response: Response }>;
  return unwrap(request(method, pathname, init));
}

/** `?a=1&b=2` from the defined, non-empty values. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') {
      search.set(key, String(value));
    }
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** The list envelope (spec → Conventions). */
export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

export type Me = Schema<'Me'>;
export type Workspace = Me['workspaces'][number];
export type Features = Schema<'Features'>;
/**
 * A job; its sink config is read by kind where it is shown (the document's per-kind `oneOf` is
 * a union the pages would have to narrow at every use).
 */
export type Job = Omit<Schema<'Job'>, 'sink'> & { sink: { kind: string; config: Record<string, unknown> } };
export type Attempt = Schema<'Attempt'>;
/** A run: with its attempts (`GET /runs/{id}`) or their count (lists). */
export type Run = Schema<'Run'> | Schema<'RunSummary'>;
export type RunSummary = Schema<'RunSummary'>;
export type StuckInfo = Schema<'StuckRun'>;
export type ValidateResponse = Schema<'ScheduleValidation'>;
export type PreviewResponse = Schema<'SchedulePreview'>;
export type DashboardConfig = operations['dashboard.settings']['responses'][200]['content']['application/json'];
export type ApiKey = Schema<'ApiKey'> & { key?: string };
export type Secret = Schema<'Secret'>;
export type Backfill = Schema<'Backfill'>;
export type BackfillAccepted = Schema<'BackfillAccepted'>;
export type Usage = Schema<'Usage'>;
export type Stats = Schema<'StatsOverview'>;
export type SinkTestResult = Schema<'SinkTestResult'>;
export type JobHourlyStats = Schema<'JobHourlyStats'>;
/** Every registered sink kind (docs/extending.md): the form renders the fields of the others. */
export type SinkKindInfo = NonNullable<Features['sink_kinds']>[number];
export type SinkFormField = SinkKindInfo['fields'][number];
/** The workflow a `temporal_workflow` sink started (docs/extending.md). */
export type StartedWorkflow = NonNullable<Schema<'Attempt'>['started_workflow']>;

/** Alert channels, rules, the audit log and the workspace: the document's types. */
export type AlertChannel = Schema<'AlertChannel'> & {
  /** Webhook channels, in the create response only. */
  signing_secret?: string;
};
export type AlertChannelKind = AlertChannel['kind'];

/** The one configuration key of each kind (docs/alerts.md → Channels). */
export const CHANNEL_CONFIG_KEY: Record<AlertChannelKind, 'address' | 'url' | 'webhook_url'> = {
  email: 'address',
  webhook: 'url',
  slack: 'webhook_url',
};

export type AlertChannelInput = Schema<'CreateAlertChannelDto'>;
export type AlertChannelTestResult = Schema<'AlertChannelTestResult'>;
export type AlertRule = Schema<'AlertRule'>;
export type AlertEvent = AlertRule['events'][number];
export const ALERT_EVENTS = [
  'run.failed',
  'run.sla_breached',
  'job.auto_disabled',
  'job.recovered',
  'service.degraded',
  'service.recovered',
] as const satisfies readonly AlertEvent[];
export type AlertRuleInput = Schema<'CreateAlertRuleDto'>;
export type AuditEntry = Schema<'AuditEntry'>;

/** `GET /audit-log` filters: exact `action`, `actor`, `target`; `from` inclusive, `to` exclusive. */
export interface AuditFilter {
  action?: string;
  actor?: string;
  target?: string;
  from?: string;
  to?: string;
  cursor?: string;
  limit?: number;
}

export type WorkspaceDetail = Schema<'Workspace'>;

const channelPath = (id: string) => `/api/v1/alert-channels/${encodeURIComponent(id)}`;
const rulePath = (id: string) => `/api/v1/alert-rules/${encodeURIComponent(id)}`;

export function listAlertChannels(): Promise<Page<AlertChannel>> {
  return api<Page<AlertChannel>>('GET', '/api/v1/alert-channels?limit=200');
}

export function createAlertChannel(body: AlertChannelInput): Promise<AlertChannel> {
  return api<AlertChannel>('POST', '/api/v1/alert-channels', body);
}

export function updateAlertChannel(
  id: string,
  body: { name?: string; config?: Record<string, string> },
): Promise<AlertChannel> {
  return api<AlertChannel>('PATCH', channelPath(id), body);
}

export function deleteAlertChannel(id: string): Promise<void> {
  return api<void>('DELETE', channelPath(id));
}

export function testAlertChannel(id: string): Promise<AlertChannelTestResult> {
  return api<AlertChannelTestResult>('POST', `${channelPath(id)}/test`);
}

/** Mails a new confirmation link to an unverified email channel (`202`). */
export function resendAlertChannelVerification(id: string): Promise<{ channel_id: string; address: string }> {
  return api<{ channel_id: string; address: string }>('POST', `${channelPath(id)}/verify`);
}

export function listAlertRules(): Promise<Page<AlertRule>> {
  return api<Page<AlertRule>>('GET', '/api/v1/alert-rules?limit=200');
}

export function createAlertRule(body: AlertRuleInput): Promise<AlertRule> {
  return api<AlertRule>('POST', '/api/v1/alert-rules', body);
}

export function updateAlertRule(id: string, body: Partial<AlertRuleInput>): Promise<AlertRule> {
  return api<AlertRule>('PATCH', rulePath(id), body);
}

export function deleteAlertRule(id: string): Promise<void> {
  return api<void>('DELETE', rulePath(id));
}

export function listAuditLog(filter: AuditFilter): Promise<Page<AuditEntry>> {
  return api<Page<AuditEntry>>('GET', `/api/v1/audit-log${query({ ...filter })}`);
}

export function getWorkspace(id: string): Promise<WorkspaceDetail> {
  return api<WorkspaceDetail>('GET', `/api/v1/workspaces/${encodeURIComponent(id)}`);
}

export function updateWorkspace(
  id: string,
  body: { name?: string; slug?: string; temporal_workflow_task_queues?: string[] | null },
): Promise<WorkspaceDetail> {
  return api<WorkspaceDetail>('PATCH', `/api/v1/workspaces/${encodeURIComponent(id)}`, body);
}

/** Up to 200 jobs by name, for pickers (alert rule filters). */
export function listJobChoices(): Promise<Page<Pick<Job, 'id' | 'name' | 'tags'>>> {
  return api<Page<Job>>('GET', '/api/v1/jobs?limit=200');
}

/** Workspace calendars: the list's items (count and range) and one with its dates. */
export type CalendarListItem = Schema<'CalendarList'>['data'][number];
export type Calendar = Schema<'Calendar'>;

const calendarPath = (name: string) => `/api/v1/calendars/${encodeURIComponent(name)}`;

export async function listCalendars(): Promise<CalendarListItem[]> {
  return (await api<Schema<'CalendarList'>>('GET', '/api/v1/calendars')).data;
}

export function getCalendar(name: string): Promise<Calendar> {
  return api<Calendar>('GET', calendarPath(name));
}

/** Creates or replaces the calendar's dates (`PUT`): a list of `YYYY-MM-DD` or an iCalendar text. */
export function putCalendar(name: string, body: { dates: string[] } | { ical: string }): Promise<Calendar> {
  return api<Calendar>('PUT', calendarPath(name), body);
}

export function deleteCalendar(name: string): Promise<void> {
  return api<void>('DELETE', calendarPath(name));
}

export type Readiness = Schema<'Readiness'>;

/** `/readyz`, ready (200) or not (503): both answers carry the breakdown. */
export async function readiness(): Promise<Readiness> {
  const { data, error } = await client.GET('/readyz');
  return (data ?? error) as Readiness;
}

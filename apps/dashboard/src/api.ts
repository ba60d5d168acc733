/**
 * The dashboard's only way to the API: same origin, the `svc_session` cookie (HttpOnly, so never
 * seen here), the active workspace in `Svc-Workspace`, and the session's CSRF token on every
 * request that changes data (spec → Authentication 4).
 */
export interface ApiErrorBody {
  code: string;
  message: string;
  fields?: Record<string, string>;
  errors?: ScheduleError[];
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
  ) {
    super(body.message);
  }
}

export interface ScheduleError {
  kind: string;
  position: number;
  length: number;
  message: string;
  suggestion: string | null;
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

export async function api<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
  }
  if (session.workspace) {
    headers['svc-workspace'] = session.workspace;
  }
  if (method !== 'GET' && session.csrf) {
    headers['x-csrf-token'] = session.csrf;
  }
  const response = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const parsed: unknown = text && response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : null;
  if (!response.ok) {
    const error = (parsed as { error?: ApiErrorBody } | null)?.error ?? {
      code: 'internal',
      message: `HTTP ${response.status}`,
    };
    if (response.status === 401 && !path.startsWith('/api/v1/auth/')) {
      onSignedOut();
    }
    throw new ApiError(response.status, error);
  }
  return parsed as T;
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

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

export interface Workspace {
  id: string;
  name: string;
  slug: string;
  plan: string;
  role: string;
}

export interface Me {
  user: { id: string; email: string; name: string } | null;
  workspaces: Workspace[];
  csrf_token?: string;
}

export interface Features {
  public_url: string;
  auth: { providers: string[]; dev_login: boolean };
  sinks: Record<string, boolean>;
  /** Every registered sink kind (docs/extending.md): the form renders the fields of the others. */
  sink_kinds?: SinkKindInfo[];
}

export interface SinkFormField {
  name: string;
  label: string;
  type: 'text' | 'textarea' | 'number' | 'select' | 'checkbox' | 'json' | 'lines' | 'map';
  required?: boolean;
  options?: string[];
  placeholder?: string;
  help?: string;
}

export interface SinkKindInfo {
  kind: string;
  label: string;
  description: string;
  enabled: boolean;
  fields: SinkFormField[];
}

export interface Job {
  id: string;
  name: string;
  description: string;
  tags: string[];
  schedule: {
    expr: string;
    kind: string;
    canonical: string;
    description: string;
    timezone: string;
    starts_at: string | null;
    ends_at: string | null;
    count: number | null;
  };
  sink: { kind: string; config: Record<string, unknown> };
  retry: {
    max_attempts: number;
    backoff: string;
    initial_interval: string;
    max_interval: string;
    multiplier: number;
    jitter: number;
  };
  timeout: string;
  sla_threshold: string | null;
  misfire_policy: string;
  overlap_policy: string;
  auto_disable_threshold: number | null;
  state: 'active' | 'paused' | 'disabled' | 'completed';
  disabled_reason: string | null;
  consecutive_failures: number;
  next_run_at: string | null;
  next_runs?: string[];
  stats_24h?: {
    runs: number;
    succeeded: number;
    failed: number;
    sla_breached: number;
    p95_start_lag_ms: number | null;
  };
  last_run_at: string | null;
  last_run_status: string | null;
  version: number;
  signing_secret?: string;
}

export interface Attempt {
  n: number;
  started_at: string;
  finished_at: string | null;
  duration_ms: number | null;
  outcome: string | null;
  status_code: number | null;
  error: string | null;
  request_summary: string;
  response_body: string | null;
  /** The workflow a `temporal_workflow` sink started (docs/extending.md). */
  started_workflow?: StartedWorkflow | null;
}

export interface StartedWorkflow {
  namespace: string;
  workflow_id: string;
  run_id: string;
  /** Its page in the Temporal UI, when the server knows the UI's address. */
  ui_url: string | null;
}

export interface Run {
  id: string;
  job_id: string;
  scheduled_at: string;
  trigger: string;
  status: string;
  attempts: number | Attempt[];
  started_at: string | null;
  finished_at: string | null;
  next_attempt_at: string | null;
  start_lag_ms: number | null;
  e2e_ms: number | null;
  sla_breached: boolean;
  last_error: string | null;
  skip_reason?: string | null;
  /** A manual retry's failed run (`trigger = retry_manual`). */
  retry_of?: string | null;
  started_workflow?: StartedWorkflow | null;
  /** In `?stuck=true` lists only. */
  stuck?: StuckInfo;
}

/** Why a run is stuck and what Temporal says it waits on (`GET /api/v1/runs?stuck=true`). */
export interface StuckInfo {
  reasons: Array<'past_retry_budget' | 'no_heartbeat'>;
  explanation: string;
  deadline: string;
  silent_for_ms: number | null;
  temporal: {
    namespace: string;
    workflow_id: string;
    ui_url: string | null;
    describe_command: string;
    pending_activity: {
      activity_type: string;
      state: string;
      attempt: number;
      scheduled_at: string | null;
      last_started_at: string | null;
      last_heartbeat_at: string | null;
      last_failure: string | null;
    } | null;
  };
}

export interface ValidateResponse {
  valid: boolean;
  kind_detected: string;
  canonical?: string;
  description?: string;
  errors: ScheduleError[];
}

export interface PreviewResponse {
  kind_detected: string;
  canonical: string;
  description: string;
  timezone: string;
  next: string[];
}

export interface DashboardConfig {
  temporal: { ui_url: string; namespace: string } | null;
}

/*
 * Alerts, audit log and workspace settings (issue #23): one small typed function per operation,
 * so the pages never spell a path or a body shape themselves.
 */

export type AlertChannelKind = 'email' | 'webhook' | 'slack';

/** The one configuration key of each kind (docs/alerts.md → Channels). */
export const CHANNEL_CONFIG_KEY: Record<AlertChannelKind, 'address' | 'url' | 'webhook_url'> = {
  email: 'address',
  webhook: 'url',
  slack: 'webhook_url',
};

export interface AlertChannel {
  id: string;
  name: string;
  kind: AlertChannelKind;
  /** `{address}`, `{url}` or `{webhook_url}` (a Slack URL shown up to its first path segment). */
  config: Record<string, string>;
  verified: boolean;
  created_at: string;
  updated_at: string;
  /** Webhook channels, in the create response only. */
  signing_secret?: string;
}

export interface AlertChannelInput {
  name: string;
  kind: AlertChannelKind;
  config: Record<string, string>;
}

export interface AlertChannelTestResult {
  delivered: boolean;
  error: string | null;
}

export const ALERT_EVENTS = ['run.failed', 'run.sla_breached', 'job.auto_disabled', 'job.recovered'] as const;
export type AlertEvent = (typeof ALERT_EVENTS)[number];

export interface AlertRule {
  id: string;
  name: string;
  enabled: boolean;
  channel_ids: string[];
  events: AlertEvent[];
  job_ids: string[] | null;
  tags: string[] | null;
  cooldown: string;
  created_at: string;
  updated_at: string;
}

export type AlertRuleInput = Pick<AlertRule, 'name' | 'enabled' | 'channel_ids' | 'events' | 'job_ids' | 'tags'> & {
  cooldown?: string;
};

export interface AuditEntry {
  id: string;
  actor: string;
  action: string;
  target: string;
  details: Record<string, unknown>;
  created_at: string;
}

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

export interface WorkspaceDetail {
  id: string;
  name: string;
  slug: string;
  plan: string;
  created_at: string;
}

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

export function updateWorkspace(id: string, body: { name?: string; slug?: string }): Promise<WorkspaceDetail> {
  return api<WorkspaceDetail>('PATCH', `/api/v1/workspaces/${encodeURIComponent(id)}`, body);
}

/** Up to 200 jobs by name, for pickers (alert rule filters). */
export function listJobChoices(): Promise<Page<Pick<Job, 'id' | 'name' | 'tags'>>> {
  return api<Page<Job>>('GET', '/api/v1/jobs?limit=200');
}

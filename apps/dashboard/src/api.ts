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

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
export type Job = Schema<'Job'>;
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
export type Usage = Schema<'Usage'>;
export type Stats = Schema<'StatsOverview'>;
export type AlertChannel = Schema<'AlertChannel'>;
export type AlertRule = Schema<'AlertRule'>;
export type AuditEntry = Schema<'AuditEntry'>;
export type SinkTestResult = Schema<'SinkTestResult'>;
export type JobHourlyStats = Schema<'JobHourlyStats'>;

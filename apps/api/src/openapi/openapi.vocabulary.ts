/** The OpenAPI document's shared vocabulary: common headers and parameters, error and tag descriptions. */
import { PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX } from '@svc/common';
import { IF_MATCH_PATTERN } from '../jobs/job-key.pipe';

export const JSON_TYPE = 'application/json';

/** Headers every response carries, and the rate-limit ones of limited routes (spec → Errors, Limits). */
export const HEADERS = {
  XRequestId: {
    description: 'The request id: the client’s `X-Request-ID` when well-formed, else a new UUID.',
    required: true,
    schema: { type: 'string' },
  },
  RateLimitLimit: {
    description: 'Requests allowed per window.',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  RateLimitRemaining: {
    description: 'Requests left in the current window.',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  RateLimitReset: {
    description: 'Seconds until the window resets.',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  RetryAfter: {
    description: 'Seconds to wait before retrying.',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
};

export const PARAMETERS = {
  RequestId: {
    name: 'X-Request-ID',
    in: 'header',
    required: false,
    description:
      'Echoed in the response’s `X-Request-ID` when it is 1–200 characters of `[A-Za-z0-9_.:@/+=-]`; otherwise the server makes one.',
    schema: { type: 'string' },
  },
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Replays the first successful response for the same key and body within 24 hours; another body is `409 idempotency_conflict`.',
    schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' },
  },
  // The preconditions of `PUT /jobs/by-key/{key}`: the patterns its parser applies.
  IfMatch: {
    name: 'If-Match',
    in: 'header',
    required: false,
    description:
      'Write only if the job is at this version (its `ETag`, `"<version>"`), or `*`: only if it exists; else `412`.',
    schema: { type: 'string', pattern: IF_MATCH_PATTERN.source },
  },
  IfNoneMatch: {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description: '`*`: create only (`412` when the key exists).',
    // The one value IF_NONE_MATCH_PATTERN takes (HTTP strips the spaces around a header value).
    schema: { type: 'string', enum: ['*'] },
  },
};

/** Request headers with a component of their own (lowercase name → component). */
export const HEADER_PARAMETERS: Record<string, string> = {
  'idempotency-key': 'IdempotencyKey',
  'if-match': 'IfMatch',
  'if-none-match': 'IfNoneMatch',
};

/** Descriptions of the paging parameters every list endpoint shares (spec → Endpoints). */
export const QUERY_DESCRIPTIONS: Record<string, string> = {
  limit: `Page size: default ${PAGE_LIMIT_DEFAULT}, maximum ${PAGE_LIMIT_MAX}.`,
  cursor: 'The `next_cursor` of the previous page.',
};

export const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: '`validation_failed`: `error.fields` names each bad input.',
  401: '`unauthorized`: missing, invalid or revoked API key.',
  403: '`forbidden` (scope), `workspace_suspended` or `limit_exceeded`.',
  404: '`not_found`: no such resource in this workspace.',
  429: '`rate_limited` (wait for `Retry-After`) or `limit_exceeded`.',
  503: '`unavailable`: a dependency is down; retry.',
};

/**
 * Every tag with what it holds, in the order the API reference shows them: the jobs
 * first, then their runs, then the rest by how often a newcomer needs them.
 * openapi.spec.ts fails on a tag missing here.
 */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  jobs: 'Scheduled jobs: a schedule, a sink and policies.',
  runs: 'Occurrences of jobs and their attempts.',
  operations:
    'Bulk actions on jobs (pause with a note and a maintenance window, resume, trigger, delete, enable) and the ' +
    'recover of failed runs: one tracked, cancelable operation each.',
  backfills:
    'Backfills: a past range of a job’s occurrences run again with their nominal times, tracked and cancelable.',
  schedules: 'Schedule validation and preview; no authentication.',
  'occurrence-skips': 'Skip one upcoming occurrence of a job with a note, or undo the skip.',
  secrets: 'Write-only values for `{{secret.NAME}}` templates.',
  calendars: 'Named sets of dates (holidays, closures) whose days schedules exclude.',
  destinations:
    'Limits per destination (a webhook’s `host:port` or a named destination) shared by every job and worker: ' +
    'attempts in flight, per minute, and a hold on `Retry-After`.',
  'alert-rules':
    'Which events alert (a failed run, an SLA breach, a job disabled or recovered) and through which channels.',
  'alert-channels': 'Where alerts go: email, Slack or a signed webhook; each can send a test.',
  stats: 'The workspace at a glance.',
  usage: 'The monthly run counter.',
  'audit-log': 'Who changed what, kept 30 days.',
  'api-keys': 'API keys of the workspace.',
  workspaces: 'The caller’s workspace.',
  me: 'The caller.',
  auth: 'Dashboard sign-in and sessions (cookies); API clients use API keys instead.',
  health: 'Liveness, readiness, version and server features; no authentication.',
  'open-api': 'This document, and the JSON Schema of a jobs file.',
  codec: 'Temporal’s codec-server protocol: encrypt and decrypt Temporal payloads for the Temporal Web UI.',
  dashboard: 'The dashboard’s pages and assets (a browser app, not an API).',
};

/** The document's tags in `TAG_DESCRIPTIONS` order; a tag not listed there goes last. */
export function orderedTags(tags: Set<string>): { name: string; description: string }[] {
  const order = Object.keys(TAG_DESCRIPTIONS);
  const rank = (name: string) => (order.includes(name) ? order.indexOf(name) : order.length);
  return [...tags]
    .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))
    .map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? name }));
}

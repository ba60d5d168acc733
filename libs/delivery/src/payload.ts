/**
 * The standard webhook payload and the headers of a webhook request (spec: Events → Webhook
 * request). Pure: every time value is a parameter.
 */
import { isReservedHeader } from './headers';
import { WEBHOOK_ID_HEADER, WEBHOOK_SIGNATURE_HEADER, WEBHOOK_TIMESTAMP_HEADER, signWebhook } from './signing';

/** Timestamps are accepted as `Date`, epoch milliseconds or an RFC 3339 string. */
export type TimestampInput = Date | number | string;

/**
 * RFC 3339 UTC text of a timestamp (spec: Conventions → Timestamps): `2025-01-02T03:04:05Z`,
 * with `.mmm` only when the milliseconds are not zero. Strings are parsed and re-emitted in UTC.
 * @throws RangeError for an invalid date.
 */
export function formatTimestamp(value: TimestampInput): string {
  const date = value instanceof Date ? value : new Date(value);
  const iso = date.toISOString(); // throws RangeError on an invalid date
  return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso;
}

export interface StandardPayloadInput {
  runId: string;
  jobId: string;
  jobName: string;
  /** The occurrence time (nominal), `Svc-Scheduled-At`. */
  scheduledAt: TimestampInput;
  /**
   * When the occurrence was planned to fire, for a job with a start window: adds
   * `planned_at` after `scheduled_at`. Absent or null: the spec's payload, unchanged.
   */
  plannedAt?: TimestampInput | null;
  /** When this attempt was sent. */
  firedAt: TimestampInput;
  /** 0-based attempt number, equal to `Svc-Attempt` (decisions: Payload attempt). */
  attempt: number;
}

/** The standard payload object, keys in the documented order. */
export interface StandardPayload {
  run_id: string;
  job_id: string;
  job_name: string;
  scheduled_at: string;
  /** Only for a job with a start window. */
  planned_at?: string;
  fired_at: string;
  attempt: number;
}

/** The standard payload `{run_id, job_id, job_name, scheduled_at, fired_at, attempt}`. */
export function standardPayload(input: StandardPayloadInput): StandardPayload {
  if (!Number.isSafeInteger(input.attempt) || input.attempt < 0) {
    throw new RangeError('attempt must be a non-negative integer (0 for the first try)');
  }
  return {
    run_id: input.runId,
    job_id: input.jobId,
    job_name: input.jobName,
    scheduled_at: formatTimestamp(input.scheduledAt),
    ...(input.plannedAt === undefined || input.plannedAt === null
      ? {}
      : { planned_at: formatTimestamp(input.plannedAt) }),
    fired_at: formatTimestamp(input.firedAt),
    attempt: input.attempt,
  };
}

/** The standard payload serialized as compact JSON: the body sent when `sink.config.body` is unset. */
export function serializeStandardPayload(input: StandardPayloadInput): string {
  return JSON.stringify(standardPayload(input));
}

export interface WebhookHeadersInput {
  /** Run id: `Idempotency-Key` and `webhook-id`, identical on every retry of the run. */
  runId: string;
  jobId: string;
  scheduledAt: TimestampInput;
  /** A start window's planned time: `Svc-Planned-At`. */
  plannedAt?: TimestampInput | null;
  /** 0-based attempt number (`Svc-Attempt`). */
  attempt: number;
  /** Whole Unix seconds at which this attempt is sent (`webhook-timestamp`). */
  timestampSec: number;
  /** The exact body that will be sent (signed as is). Use `''` for a request without a body. */
  body: string | Uint8Array;
  /** Signing secrets in effect (two during rotation overlap). */
  secrets: readonly string[];
  /** `User-Agent` is `<serviceName>/<version>`. */
  serviceName: string;
  version: string;
  /**
   * The user's custom headers with templates already rendered. Reserved names are dropped here
   * as a second line of defence (the API rejects them at create time).
   */
  customHeaders?: Readonly<Record<string, string>>;
  /** A sink test (`POST /jobs/{id}/test`, `POST /jobs/test`): adds `Svc-Test: true`. */
  test?: boolean;
}

/**
 * All request headers of one webhook attempt: the service's own headers (`Content-Type`,
 * `User-Agent`, `Idempotency-Key`, `webhook-id`, `webhook-timestamp`, `webhook-signature`,
 * `Svc-Attempt`, `Svc-Job-Id`, `Svc-Scheduled-At`, `Svc-Planned-At` with a start window, and
 * `Svc-Test: true` on sink tests) merged
 * with the custom headers, where a custom header can never replace a reserved one.
 */
export function buildWebhookHeaders(input: WebhookHeadersInput): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.customHeaders ?? {})) {
    if (!isReservedHeader(name)) {
      headers[name] = value;
    }
  }
  Object.assign(headers, {
    'Content-Type': 'application/json',
    'User-Agent': `${input.serviceName}/${input.version}`,
    'Idempotency-Key': input.runId,
    [WEBHOOK_ID_HEADER]: input.runId,
    [WEBHOOK_TIMESTAMP_HEADER]: String(input.timestampSec),
    [WEBHOOK_SIGNATURE_HEADER]: signWebhook({
      msgId: input.runId,
      timestampSec: input.timestampSec,
      body: input.body,
      secrets: input.secrets,
    }),
    'Svc-Attempt': String(input.attempt),
    'Svc-Job-Id': input.jobId,
    'Svc-Scheduled-At': formatTimestamp(input.scheduledAt),
  });
  if (input.plannedAt !== undefined && input.plannedAt !== null) {
    headers['Svc-Planned-At'] = formatTimestamp(input.plannedAt);
  }
  if (input.test) {
    headers['Svc-Test'] = 'true';
  }
  return headers;
}

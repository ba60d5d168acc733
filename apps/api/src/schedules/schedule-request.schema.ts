import { ValidationFailedError } from '@svc/common';
import { REQUESTED_SCHEDULE_KINDS, type RequestedScheduleKind } from '@svc/schedule';
import Ajv, { type ErrorObject } from 'ajv';

/** Spec → Limits: "Schedule expression: 4096 bytes". */
export const MAX_EXPR_BYTES = 4096;
export const MIN_PREVIEW_COUNT = 1;
export const MAX_PREVIEW_COUNT = 100;
export const DEFAULT_PREVIEW_COUNT = 10;

/** Body of `POST /api/v1/schedules/validate`. */
export interface ValidateScheduleBody {
  /** Natural language, Quartz, 5-field cron or RRULE; at most 4096 UTF-8 bytes. */
  expr: string;
  /** Format to parse as; `auto` (default) detects. */
  kind?: RequestedScheduleKind | null;
  /** IANA time zone; default `UTC`. */
  timezone?: string | null;
}

/** Body of `POST /api/v1/schedules/preview`. */
export interface PreviewScheduleBody extends ValidateScheduleBody {
  /** Number of fire times, 1 to 100; default 10. */
  count?: number | null;
  /** RFC 3339 instant: fire times strictly after it, and the reference for relative expressions. */
  after?: string | null;
}

const validateProperties = {
  expr: { type: 'string' },
  kind: { enum: [...REQUESTED_SCHEDULE_KINDS, null] },
  timezone: { type: ['string', 'null'], maxLength: 64 },
};

// Strict on purpose: no coercion ("5" is not a count), no silently dropped unknown fields.
const ajv = new Ajv({ allErrors: true, coerceTypes: false, useDefaults: false, removeAdditional: false });
/** JSON schemas of the two bodies (also their request bodies in the OpenAPI document). */
export const VALIDATE_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['expr'],
  properties: validateProperties,
};
export const PREVIEW_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['expr'],
  properties: {
    ...validateProperties,
    count: { type: ['integer', 'null'], minimum: MIN_PREVIEW_COUNT, maximum: MAX_PREVIEW_COUNT },
    after: { type: ['string', 'null'] },
  },
};
const checkValidateBody = ajv.compile<ValidateScheduleBody>(VALIDATE_BODY_SCHEMA);
const checkPreviewBody = ajv.compile<PreviewScheduleBody>(PREVIEW_BODY_SCHEMA);

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * An RFC 3339 instant whose calendar date and time exist as written (`Date.parse` rolls
 * `2026-02-30` over to March 2nd; RFC 3339 calls it invalid).
 */
export function isRfc3339Instant(value: string): boolean {
  const m = RFC3339.exec(value);
  if (!m) {
    return false;
  }
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  const probe = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  return (
    probe.getUTCFullYear() === year &&
    probe.getUTCMonth() === month - 1 &&
    probe.getUTCDate() === day &&
    hour < 24 &&
    minute < 60 &&
    second < 60
  );
}

interface PropertySchema {
  type?: string | string[];
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  maxLength?: number;
}

/**
 * What a field accepts, as the end of a sentence ("must be an integer from 1 to 100, or null"),
 * from its schema: the same wording as the DTO-validated routes (common/validation-messages.ts)
 * instead of Ajv's ("must be string").
 */
function describeSchema(schema: PropertySchema | undefined): string {
  if (!schema) {
    return 'must be a JSON object';
  }
  if (schema.enum) {
    const values = schema.enum.filter((v) => v !== null);
    return `must be one of ${values.join(', ')}${values.length < schema.enum.length ? ', or null' : ''}`;
  }
  const types = ([] as string[]).concat(schema.type ?? []);
  const nullable = types.includes('null') ? ', or null' : '';
  if (types.includes('integer')) {
    const range =
      schema.minimum !== undefined && schema.maximum !== undefined
        ? ` from ${schema.minimum} to ${schema.maximum}`
        : '';
    return `must be an integer${range}${nullable}`;
  }
  const length = schema.maxLength !== undefined ? ` of at most ${schema.maxLength} characters` : '';
  return `must be a string${length}${nullable}`;
}

/** Ajv's errors as the envelope's `fields`: input path → message. */
function toFields(
  errors: ErrorObject[] | null | undefined,
  properties: Record<string, PropertySchema>,
): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const error of errors ?? []) {
    if (error.keyword === 'additionalProperties') {
      fields[String(error.params.additionalProperty)] = 'unknown field';
    } else if (error.keyword === 'required') {
      fields[String(error.params.missingProperty)] = 'is required';
    } else {
      const path = error.instancePath.replace(/^\//, '').replace(/\//g, '.') || 'body';
      fields[path] ??= describeSchema(path === 'body' ? undefined : properties[path]);
    }
  }
  return fields;
}

function checkExpr(body: ValidateScheduleBody | null, fields: Record<string, string>): void {
  if (typeof body?.expr === 'string' && !fields.expr && Buffer.byteLength(body.expr, 'utf8') > MAX_EXPR_BYTES) {
    fields.expr = `must be at most ${MAX_EXPR_BYTES} bytes`;
  }
}

/** Parses a validate body or throws `400 validation_failed` naming every bad field. */
export function parseValidateBody(body: unknown): ValidateScheduleBody {
  const fields = checkValidateBody(body) ? {} : toFields(checkValidateBody.errors, VALIDATE_BODY_SCHEMA.properties);
  checkExpr(body as ValidateScheduleBody, fields);
  if (Object.keys(fields).length > 0) {
    throw new ValidationFailedError(fields);
  }
  return body as ValidateScheduleBody;
}

/** Parses a preview body or throws `400 validation_failed` naming every bad field. */
export function parsePreviewBody(body: unknown): PreviewScheduleBody {
  const fields = checkPreviewBody(body) ? {} : toFields(checkPreviewBody.errors, PREVIEW_BODY_SCHEMA.properties);
  checkExpr(body as PreviewScheduleBody, fields);
  const after = (body as PreviewScheduleBody | null)?.after;
  if (typeof after === 'string' && !isRfc3339Instant(after)) {
    fields.after = 'must be an RFC 3339 timestamp, e.g. 2026-12-01T09:00:00Z';
  }
  if (Object.keys(fields).length > 0) {
    throw new ValidationFailedError(fields);
  }
  return body as PreviewScheduleBody;
}

import type { FastifyRouteDoc } from '../common/openapi/openapi.decorators';
import { named } from '../common/openapi/schema';
import { MAX_EXPR_BYTES, PREVIEW_BODY_SCHEMA, VALIDATE_BODY_SCHEMA } from './schedule-request.schema';
import { PREVIEW_RESPONSE_SCHEMA, VALIDATE_RESPONSE_SCHEMA } from './schedule-response.schema';

/** The byte limit of `expr` is checked beside the schema; the document states it. */
function withExprLimit<T extends { properties: Record<string, unknown> }>(schema: T): T {
  const expr = {
    type: 'string',
    maxLength: MAX_EXPR_BYTES,
    description: `Natural language, Quartz, 5-field cron or RRULE; at most ${MAX_EXPR_BYTES} bytes of UTF-8.`,
  };
  return { ...schema, properties: { ...schema.properties, expr } };
}

/**
 * The schedule endpoints in the OpenAPI document (`config.openapi` of their Fastify routes): the
 * body and response schemas are the ones the routes check and serialize with.
 */
export const VALIDATE_ROUTE_DOC: FastifyRouteDoc = {
  operationId: 'schedules.validate',
  tag: 'schedules',
  summary: 'Validate a schedule expression (invalid input is still 200, with its errors)',
  public: true,
  rateLimit: 'schedules',
  requestBody: named('ValidateScheduleBody', {
    ...withExprLimit(VALIDATE_BODY_SCHEMA),
    examples: [{ expr: 'every weekday at 9am', timezone: 'Europe/Berlin' }],
  }),
  responses: { 200: named('ScheduleValidation', VALIDATE_RESPONSE_SCHEMA) },
  serverChecks: { expr: `at most ${MAX_EXPR_BYTES} bytes of UTF-8` },
};

export const PREVIEW_ROUTE_DOC: FastifyRouteDoc = {
  operationId: 'schedules.preview',
  tag: 'schedules',
  summary: 'The next fire times of a schedule expression',
  public: true,
  rateLimit: 'schedules',
  requestBody: named('PreviewScheduleBody', {
    ...withExprLimit(PREVIEW_BODY_SCHEMA),
    examples: [{ expr: '0 9 * * 1-5', timezone: 'America/New_York', count: 5, after: '2026-12-01T00:00:00Z' }],
  }),
  responses: { 200: named('SchedulePreview', PREVIEW_RESPONSE_SCHEMA) },
  serverChecks: {
    expr: `a schedule that parses, at most ${MAX_EXPR_BYTES} bytes of UTF-8 (\`POST /api/v1/schedules/validate\` says why not)`,
    timezone: 'an IANA time zone',
    after: 'an RFC 3339 timestamp',
  },
};

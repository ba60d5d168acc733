import { ERROR_CODES } from '@svc/common';
import { SCHEDULE_ERROR_SCHEMA } from '../schedules/schedule-response.schema';
import { arrayOf, enumOf, named, string } from '../common/openapi/schema';

/** The spec's error envelope (spec → Errors), the body of every error response. */
export const ERROR_SCHEMA = named('Error', {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: enumOf(ERROR_CODES),
        message: string,
        fields: {
          type: 'object',
          additionalProperties: string,
          description: 'On `validation_failed`: input path (e.g. `schedule.expr`) → what is wrong with it.',
        },
        errors: {
          ...arrayOf(named('ScheduleError', SCHEDULE_ERROR_SCHEMA)),
          description: 'Structured schedule errors, on schedule parse failures.',
        },
        limit: { type: 'string', description: 'On `limit_exceeded`: which limit.' },
        value: { type: ['number', 'string'], description: 'On `limit_exceeded`: its value.' },
      },
    },
  },
});

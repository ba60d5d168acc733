/**
 * JSON schemas of the schedule endpoints' `200` bodies (dto/schedule-response.dto.ts), given to
 * Fastify as route response schemas so it serializes them with a compiled serializer instead of
 * `JSON.stringify` (these routes are hot; docs/benchmarks.md). Fields not in a schema are dropped,
 * so a schema must list every field of its DTO.
 */
import { SCHEDULE_KINDS } from '@svc/schedule';

const KIND_DETECTED = { type: 'string', enum: [...SCHEDULE_KINDS] } as const;

export const SCHEDULE_ERROR_SCHEMA = {
  type: 'object',
  required: ['kind', 'position', 'length', 'message', 'suggestion'],
  properties: {
    kind: { type: 'string' },
    position: { type: 'integer' },
    length: { type: 'integer' },
    message: { type: 'string' },
    suggestion: { type: ['string', 'null'] },
  },
} as const;

export const VALIDATE_RESPONSE_SCHEMA = {
  type: 'object',
  required: ['valid', 'kind_detected', 'errors'],
  properties: {
    valid: { type: 'boolean' },
    kind_detected: KIND_DETECTED,
    canonical: { type: 'string' },
    description: { type: 'string' },
    errors: { type: 'array', items: SCHEDULE_ERROR_SCHEMA },
  },
} as const;

export const PREVIEW_RESPONSE_SCHEMA = {
  type: 'object',
  required: ['kind_detected', 'canonical', 'description', 'timezone', 'next'],
  properties: {
    kind_detected: KIND_DETECTED,
    canonical: { type: 'string' },
    description: { type: 'string' },
    timezone: { type: 'string' },
    next: { type: 'array', items: { type: 'string' } },
  },
} as const;

import { DESTINATION_MAX_LENGTH, DESTINATION_PATTERN } from '@svc/delivery';
import { arrayOf, enumOf, integer, named, nullable, object, timestamp } from '../common/openapi/schema';

const destination = { type: 'string', maxLength: DESTINATION_MAX_LENGTH, pattern: DESTINATION_PATTERN.source };

/** A destination's limits with its shared state (`GET /destinations/{destination}`, `PUT`). */
export const DESTINATION_SCHEMA = named(
  'Destination',
  object({
    destination: {
      ...destination,
      description: 'A webhook URL’s `host:port`, or a name a sink sets (`sink.config.destination`).',
    },
    max_in_flight: nullable(integer),
    per_minute: nullable(integer),
    on_429: nullable(enumOf(['pause_destination'])),
    in_flight: { ...integer, description: 'Attempts holding a lease now (every worker).' },
    waiting: { ...integer, description: 'Runs `deferred` waiting for the destination now.' },
    held_until: { ...nullable(timestamp), description: 'Until when a `Retry-After` holds every attempt (`on_429`).' },
    starts_last_minute: { ...integer, description: 'Attempts started in the last 60 s.' },
    created_at: timestamp,
    updated_at: timestamp,
  }),
);

/** `GET /destinations`: every destination of the workspace with limits, by name. */
export const DESTINATION_LIST_SCHEMA = named('DestinationList', object({ data: arrayOf(DESTINATION_SCHEMA) }));

import type { DestinationLimitRow } from '@svc/persistence';

export function toDestinationResponse(row: DestinationLimitRow) {
  return {
    destination: row.destination,
    max_in_flight: row.maxInFlight,
    per_minute: row.perMinute,
    on_429: row.on429,
    in_flight: row.inFlight,
    waiting: row.waiting,
    held_until: row.heldUntil ? row.heldUntil.toISOString() : null,
    starts_last_minute: row.startsLastMinute,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

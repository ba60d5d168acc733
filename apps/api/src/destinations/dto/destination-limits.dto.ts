import { IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';

/** The largest `max_in_flight`. */
export const MAX_IN_FLIGHT_LIMIT = 10_000;
/** The largest `per_minute` (the starts of the last minute are kept on the destination's row). */
export const PER_MINUTE_LIMIT = 6_000;
export const ON_429_ACTIONS = ['pause_destination'] as const;
const AT_LEAST_ONE = 'at least one of `max_in_flight`, `per_minute` and `on_429`';

/** `PUT /api/v1/destinations/{destination}`: the destination's limits, replaced whole. */
export class DestinationLimitsDto {
  /** Attempts to the destination in flight at once, across every job and worker of the workspace. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_IN_FLIGHT_LIMIT)
  @JSONSchema({ 'x-server-check': AT_LEAST_ONE })
  max_in_flight?: number | null;

  /** Attempts started towards the destination in any 60 seconds. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(PER_MINUTE_LIMIT)
  @JSONSchema({ 'x-server-check': AT_LEAST_ONE })
  per_minute?: number | null;

  /**
   * `pause_destination`: a 429 or 503 answered with `Retry-After` holds every job's attempts to the
   * destination until then (at most an hour), not only the attempt that got it.
   */
  @IsOptional()
  @IsIn(ON_429_ACTIONS)
  @JSONSchema({ 'x-server-check': AT_LEAST_ONE })
  on_429?: (typeof ON_429_ACTIONS)[number] | null;
}

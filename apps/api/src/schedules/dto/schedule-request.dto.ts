import {
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  registerDecorator,
  ValidationOptions,
} from 'class-validator';
import { IsTimestamp, MaxBytes } from '../../common/validators';

export const SCHEDULE_KINDS = ['auto', 'natural', 'quartz', 'cron', 'rrule'] as const;
export type RequestedScheduleKind = (typeof SCHEDULE_KINDS)[number];

/** Spec → Limits: "Schedule expression: 4096 bytes". */
export const MAX_EXPR_BYTES = 4096;
export const MIN_PREVIEW_COUNT = 1;
export const MAX_PREVIEW_COUNT = 100;
export const DEFAULT_PREVIEW_COUNT = 10;

/**
 * The calendar date and time in an RFC 3339 string exist as written (`Date.parse` rolls
 * `2026-02-30` over to March 2nd; RFC 3339 calls it invalid).
 */
function IsRealCalendarDate(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isRealCalendarDate',
      target: target.constructor,
      propertyName,
      options: { message: 'must be an RFC 3339 timestamp, e.g. 2026-12-01T09:00:00Z', ...options },
      validator: {
        validate(value: unknown) {
          if (typeof value !== 'string') {
            return false;
          }
          const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})/i.exec(value);
          if (!m) {
            return false;
          }
          const [year, month, day, hour, minute, second] = m.slice(1).map(Number);
          const probe = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
          return (
            probe.getUTCFullYear() === year &&
            probe.getUTCMonth() === month - 1 &&
            probe.getUTCDate() === day &&
            hour < 24 &&
            minute < 60 &&
            second < 60
          );
        },
      },
    });
}

/** Body of `POST /api/v1/schedules/validate`. Unknown fields are rejected (global pipe). */
export class ValidateScheduleDto {
  /** The expression: natural language, Quartz, 5-field cron or RRULE; at most 4096 UTF-8 bytes. */
  // Listed in reverse: the envelope reports the first failing rule, and decorators apply bottom-up.
  @MaxBytes(MAX_EXPR_BYTES)
  @IsString()
  expr: string;

  /** Format to parse as; `auto` (default) detects. */
  @IsOptional()
  @IsIn(SCHEDULE_KINDS)
  kind?: RequestedScheduleKind | null;

  /** IANA time zone; default `UTC`. An unknown zone is a schedule error (with a suggestion). */
  @IsOptional()
  @IsString()
  @MaxLength(64)
  timezone?: string | null;
}

/** Body of `POST /api/v1/schedules/preview`. */
export class PreviewScheduleDto extends ValidateScheduleDto {
  /** Number of fire times, 1 to 100; default 10. */
  @IsOptional()
  @IsInt()
  @Min(MIN_PREVIEW_COUNT)
  @Max(MAX_PREVIEW_COUNT)
  count?: number | null;

  /**
   * RFC 3339 instant; fire times are strictly after it, and it is the reference that anchors
   * relative expressions (`in 20 minutes`) and interval phases. Default: the server clock.
   */
  @IsOptional()
  @IsTimestamp()
  @IsRealCalendarDate()
  after?: string | null;
}

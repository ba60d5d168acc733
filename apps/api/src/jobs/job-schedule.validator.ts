import { Injectable } from '@nestjs/common';
import { formatDuration, LimitExceededError, ValidationFailedError } from '@svc/common';
import { type CalendarDates, type JobScheduleColumns, usesCalendars } from '@svc/orchestration';
import { CalendarsRepository } from '@svc/persistence';
import { validateSchedule, type CompiledSchedule } from '@svc/schedule';
import type { ScheduleDto } from './dto/job-body.dto';

/** A job's schedule once validated: what the job row stores, and the schedule compiled from it. */
export interface ValidatedSchedule {
  columns: JobScheduleColumns;
  /**
   * Compiled here once: the create and PATCH answers read their next run from it
   * (`nextFireTimes`) instead of compiling the stored columns again.
   */
  compiled: CompiledSchedule;
}

/**
 * Turns a job's schedule input into what the job row stores, or the spec's errors: a bad
 * schedule is `400 validation_failed` (`fields['schedule.expr']`, `errors`), a gap below the
 * plan's minimum interval is `403 limit_exceeded` with `limit = min_interval`. The stored kind is
 * the compiled one (`auto` resolved), so the job workflow compiles the same format.
 */
@Injectable()
export class JobScheduleValidator {
  constructor(private readonly calendars: CalendarsRepository) {}

  /**
   * `validate` with the workspace's calendars, read only when the schedule excludes some
   * (`schedule.exclude_calendars`, or `except <calendar>` in the expression).
   */
  async validateIn(
    workspaceId: string,
    input: ScheduleDto,
    anchor: Date,
    minIntervalMs: number,
  ): Promise<ValidatedSchedule> {
    const needed = usesCalendars({
      scheduleExpr: input.expr,
      // The kind is only known once compiled; an RRULE or cron expression never names a calendar.
      scheduleKind: 'natural',
      excludeCalendars: input.exclude_calendars ?? [],
    });
    return this.validate(
      input,
      anchor,
      minIntervalMs,
      needed ? await this.calendars.datesByName(workspaceId) : undefined,
    );
  }

  validate(input: ScheduleDto, anchor: Date, minIntervalMs: number, calendars?: CalendarDates): ValidatedSchedule {
    const startsAt = input.starts_at ? new Date(input.starts_at) : null;
    const endsAt = input.ends_at ? new Date(input.ends_at) : null;
    if (startsAt && endsAt && endsAt <= startsAt) {
      throw new ValidationFailedError({ 'schedule.ends_at': 'must be after starts_at' });
    }
    const result = validateSchedule(
      {
        expr: input.expr,
        kind: input.kind ?? 'auto',
        timezone: input.timezone ?? 'UTC',
        startsAt,
        endsAt,
        count: input.count ?? null,
        reference: anchor,
        // A job always checks the calendars it names (none given: none exist).
        calendars: calendars ?? {},
        excludeCalendars: input.exclude_calendars ?? [],
      },
      // The spec's 100 ms cooperative budget, measured on the monotonic clock.
      { minIntervalMs, now: () => performance.now() },
    );
    if (!result.valid || !result.schedule) {
      const gap = result.errors.find((e) => e.kind === 'min_interval');
      if (gap && result.errors.length === 1) {
        throw new LimitExceededError(
          'min_interval',
          formatDuration(minIntervalMs),
          `The schedule fires more often than the plan's minimum interval of ${formatDuration(minIntervalMs)}`,
        );
      }
      const timezoneError = result.errors.find((e) => e.kind === 'unknown_timezone');
      const fields: Record<string, string> = {};
      if (timezoneError) {
        fields['schedule.timezone'] = timezoneError.message;
      }
      // An unknown calendar of `exclude_calendars` has no place in the expression (position 0, length 0).
      const fieldCalendar = (e: { kind: string; length: number }) => e.kind === 'unknown_calendar' && e.length === 0;
      const calendarErrors = result.errors.filter(fieldCalendar);
      if (calendarErrors.length > 0) {
        fields['schedule.exclude_calendars'] = calendarErrors.map((e) => e.message).join('; ');
      }
      const exprErrors = result.errors.filter(
        (e) => e.kind !== 'unknown_timezone' && e.kind !== 'min_interval' && !fieldCalendar(e),
      );
      if (exprErrors.length > 0) {
        fields['schedule.expr'] = exprErrors.map((e) => e.message).join('; ');
      }
      throw new ValidationFailedError(fields, 'Invalid schedule', result.errors);
    }
    const compiled = result.schedule;
    return {
      columns: {
        scheduleExpr: input.expr,
        scheduleKind: compiled.kind,
        scheduleCanonical: compiled.canonical,
        scheduleDescription: compiled.description,
        scheduleTimezone: compiled.timezone,
        scheduleStartsAt: startsAt,
        scheduleEndsAt: endsAt,
        scheduleCount: input.count ?? null,
        scheduleAnchor: anchor,
        excludeCalendars: [...new Set(input.exclude_calendars ?? [])],
      },
      compiled,
    };
  }
}

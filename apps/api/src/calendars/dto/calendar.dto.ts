import { ArrayMaxSize, IsArray, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { CALENDAR_DATE_PATTERN, CALENDAR_NAME_MAX_LENGTH, CALENDAR_NAME_PATTERN } from '@svc/schedule';

/** Dates one calendar holds at most. */
export const CALENDAR_MAX_DATES = 5_000;
const DATES_OR_ICAL = 'exactly one of `dates` and `ical`';

/** `PUT /api/v1/calendars/{name}`: the calendar's dates, as a list or an iCalendar file. */
export class CalendarDatesDto {
  /** The dates (`YYYY-MM-DD`), any order, duplicates ignored. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(CALENDAR_MAX_DATES)
  @Matches(CALENDAR_DATE_PATTERN, { each: true, message: 'each must be a date YYYY-MM-DD' })
  @JSONSchema({ 'x-server-check': `real dates; ${DATES_OR_ICAL}` })
  dates?: string[];

  /** An iCalendar file (`.ics` text): each event's days, recurring events refused. */
  @IsOptional()
  @IsString()
  @JSONSchema({ 'x-server-check': `an iCalendar file whose events are not recurring; ${DATES_OR_ICAL}` })
  ical?: string;
}

/** `POST /api/v1/calendars`: a new calendar. */
export class CreateCalendarDto extends CalendarDatesDto {
  /** `holidays:de-berlin`: lowercase words of letters, digits, `-` and `_`, joined by `:`. */
  @IsString()
  @MaxLength(CALENDAR_NAME_MAX_LENGTH)
  @Matches(CALENDAR_NAME_PATTERN, { message: 'must be lowercase words joined by `:`, such as holidays:de-berlin' })
  name: string;
}

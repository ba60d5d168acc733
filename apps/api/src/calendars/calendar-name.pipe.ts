import { CALENDAR_NAME_PATTERN, isCalendarName } from '@svc/schedule';
import { nameParamPipes } from '../common/name-param.pipe';

/** The `{name}` path parameter of the calendar routes (`400` on `PUT`, `404` elsewhere). */
const calendarNamePipes = nameParamPipes({
  what: 'Calendar',
  field: 'name',
  rule: 'must be lowercase words joined by `:`, such as holidays:de-berlin (at most 64 characters)',
  jsonSchema: { type: 'string', pattern: CALENDAR_NAME_PATTERN.source },
  isValid: isCalendarName,
});

export const CalendarNameToWritePipe = calendarNamePipes.toWrite;
export const CalendarNameToFindPipe = calendarNamePipes.toFind;

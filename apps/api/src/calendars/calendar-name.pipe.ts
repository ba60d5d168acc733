import { Injectable, PipeTransform } from '@nestjs/common';
import { NotFoundError, ValidationFailedError } from '@svc/common';
import { CALENDAR_NAME_PATTERN, isCalendarName } from '@svc/schedule';

const NAME_RULE = 'must be lowercase words joined by `:`, such as holidays:de-berlin (at most 64 characters)';

/**
 * The `{name}` path parameter of the calendar routes: `PUT` creates under it, so a malformed one is
 * `400` (field `name`); elsewhere no calendar can have it: `404`, like a malformed id.
 */
@Injectable()
export class CalendarNamePipe implements PipeTransform<string, string> {
  readonly jsonSchema = { type: 'string', pattern: CALENDAR_NAME_PATTERN.source };

  constructor(private readonly onInvalid: 'validation_failed' | 'not_found') {}

  transform(value: string): string {
    if (isCalendarName(value)) {
      return value;
    }
    if (this.onInvalid === 'not_found') {
      throw new NotFoundError('Calendar');
    }
    throw new ValidationFailedError({ name: NAME_RULE });
  }
}

export const CalendarNameToWritePipe = new CalendarNamePipe('validation_failed');
export const CalendarNameToFindPipe = new CalendarNamePipe('not_found');

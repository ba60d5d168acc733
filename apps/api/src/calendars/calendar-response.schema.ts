import { arrayOf, integer, named, object, timestamp } from '../common/openapi/schema';
import { CALENDAR_DATE_PATTERN, CALENDAR_NAME_PATTERN } from '@svc/schedule';

const name = { type: 'string', pattern: CALENDAR_NAME_PATTERN.source };

/** A workspace calendar with its dates (`GET /calendars/{name}`, create, replace). */
export const CALENDAR_SCHEMA = named(
  'Calendar',
  object({
    name,
    dates: { ...arrayOf({ type: 'string', pattern: CALENDAR_DATE_PATTERN.source }), description: 'Ascending, unique.' },
    created_at: timestamp,
    updated_at: timestamp,
  }),
);

/** `GET /calendars`: every calendar of the workspace by name, with its number of dates. */
export const CALENDAR_LIST_SCHEMA = named(
  'CalendarList',
  object({
    data: arrayOf(
      object({
        name,
        date_count: integer,
        first_date: { type: ['string', 'null'] },
        last_date: { type: ['string', 'null'] },
        created_at: timestamp,
        updated_at: timestamp,
      }),
    ),
  }),
);

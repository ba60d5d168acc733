/**
 * Workspace calendars as exclusions (issue 45): `… except holidays:de-berlin` in natural language
 * and `excludeCalendars`, the days taken in the schedule's zone, the calendars given as data.
 */
import { calendarDay, compileSchedule, isCalendarName, splitCalendarExclusions, type ScheduleInput } from '../src';
import { bytePos, errs, fires, ok, REF } from './natural-helpers';

const CALENDARS = {
  'holidays:de-berlin': ['2026-12-24', '2026-12-25', '2026-12-26', '2026-12-31', '2027-01-01'],
  'office-closed': ['2026-12-02'],
};

function compile(expr: string, extra: Partial<ScheduleInput> = {}) {
  return compileSchedule({ expr, timezone: 'Europe/Berlin', reference: REF, calendars: CALENDARS, ...extra });
}

describe('calendar names and dates', () => {
  test.each([
    ['holidays:de-berlin', true],
    ['office-closed', true],
    ['company:eu:closures_2027', true],
    ['Holidays', false],
    ['1st', false],
    ['a:', false],
    ['x'.repeat(65), false],
  ])('isCalendarName(%j) is %s', (name, valid) => {
    expect(isCalendarName(name)).toBe(valid);
  });

  test('dates are YYYY-MM-DD days of the proleptic calendar', () => {
    expect(calendarDay('1970-01-02')).toBe(1);
    expect(calendarDay('2028-02-29')).not.toBeNull();
    expect(calendarDay('2027-02-29')).toBeNull();
    expect(calendarDay('2027-1-2')).toBeNull();
  });
});

describe('natural language: except <calendar>', () => {
  test('a final except naming calendars is split off; except weekends stays the grammar’s', () => {
    expect(splitCalendarExclusions('every weekday at 9am except holidays:de-berlin')).toEqual({
      expr: 'every weekday at 9am',
      calendars: [{ name: 'holidays:de-berlin', start: 28, end: 46 }],
    });
    expect(
      splitCalendarExclusions('every day at 9am except calendar office-closed and holidays:de-berlin')?.calendars.map(
        (c) => c.name,
      ),
    ).toEqual(['office-closed', 'holidays:de-berlin']);
    expect(splitCalendarExclusions('every day at 9am except weekends')).toBeNull();
    expect(splitCalendarExclusions('every day at 9am except holidays:de-berlin tomorrow')).toBeNull();
  });

  test('the calendar’s days have no occurrence, in the schedule’s zone, and the description says so', () => {
    const s = ok(compile('every day at 9am except holidays:de-berlin'));
    expect(fires(s, 3, new Date('2026-12-23T12:00:00Z'))).toEqual([
      '2026-12-27T08:00:00Z',
      '2026-12-28T08:00:00Z',
      '2026-12-29T08:00:00Z',
    ]);
    expect(s.description).toBe('Every day at 09:00, except the days of holidays:de-berlin (Europe/Berlin)');
  });

  test('a day is the zone’s: 00:30 in Berlin on 2026-12-24 is 2026-12-23 in UTC, and excluded', () => {
    const s = ok(compile('every day at 00:30 except holidays:de-berlin'));
    expect(fires(s, 2, new Date('2026-12-22T00:00:00Z'))).toEqual(['2026-12-22T23:30:00Z', '2026-12-26T23:30:00Z']);
  });

  test('a sub-daily schedule goes past excluded days without walking through them (within the step budget)', () => {
    const { createStepBudget } = require('../src') as typeof import('../src');
    const s = ok(
      compile('every second except closed:week', {
        timezone: 'UTC',
        calendars: { 'closed:week': ['2026-12-01', '2026-12-02', '2026-12-03', '2026-12-04', '2026-12-05'] },
      }),
    );
    const after = new Date('2026-11-30T23:59:58Z');
    expect(s.next(after, 3, createStepBudget(20_000)).map((d) => d.toISOString())).toEqual([
      '2026-11-30T23:59:59.000Z',
      '2026-12-06T00:00:00.000Z',
      '2026-12-06T00:00:01.000Z',
    ]);
  });

  test('an unknown calendar is an error at its name', () => {
    const expr = 'every weekday at 9am except holidays:fr';
    expect(errs(compile(expr))).toEqual([
      expect.objectContaining({ kind: 'unknown_calendar', position: bytePos(expr, 'holidays:fr'), length: 11 }),
    ]);
    // Without calendar data (a stateless preview) the names are neither checked nor applied.
    const preview = ok(compile('every day at 9am except calendar office-closed', { calendars: undefined }));
    expect(fires(preview, 1, new Date('2026-12-01T12:00:00Z'))).toEqual(['2026-12-02T08:00:00Z']);
    expect(preview.description).toContain('except the days of office-closed');
  });
});

describe('excludeCalendars (a job’s exclude_calendars)', () => {
  test('excludes the days of the named calendars from any kind of schedule', () => {
    const cron = ok(compile('0 9 * * *', { excludeCalendars: ['office-closed'] }));
    expect(fires(cron, 2, new Date('2026-12-01T12:00:00Z'))).toEqual(['2026-12-03T08:00:00Z', '2026-12-04T08:00:00Z']);
    expect(cron.description).toContain('except the days of office-closed');
    const quartz = ok(compile('0 0 9 * * ?', { excludeCalendars: ['office-closed', 'holidays:de-berlin'] }));
    expect(fires(quartz, 1, new Date('2026-12-01T12:00:00Z'))).toEqual(['2026-12-03T08:00:00Z']);
    expect(quartz.description).toContain('except the days of office-closed and holidays:de-berlin');
  });

  test('a count counts the occurrences that remain', () => {
    const s = ok(
      compile('0 9 * * *', {
        excludeCalendars: ['office-closed'],
        startsAt: new Date('2026-12-01T00:00:00Z'),
        count: 3,
      }),
    );
    expect(fires(s, 5, new Date('2026-11-01T00:00:00Z'))).toEqual([
      '2026-12-01T08:00:00Z',
      '2026-12-03T08:00:00Z',
      '2026-12-04T08:00:00Z',
    ]);
  });

  test('an unknown calendar is an error at position 0', () => {
    expect(errs(compile('0 9 * * *', { excludeCalendars: ['nope'] }))[0]).toMatchObject({
      kind: 'unknown_calendar',
      position: 0,
      length: 0,
    });
  });
});

describe('icalDates (a calendar imported from an iCalendar file)', () => {
  const { icalDates } = require('../src') as typeof import('../src');
  const ics = (events: string) => `BEGIN:VCALENDAR\r\nVERSION:2.0\r\n${events}END:VCALENDAR\r\n`;

  test('each event’s DTSTART day, and the days before an all-day DTEND', () => {
    const text = ics(
      'BEGIN:VEVENT\r\nSUMMARY:Heiligabend\r\nDTSTART;VALUE=DATE:20261224\r\nDTEND;VALUE=DATE:20261227\r\nEND:VEVENT\r\n' +
        'BEGIN:VEVENT\r\nDTSTART;TZID=Europe/Berlin:20261231T140000\r\nDTEND;TZID=Europe/Berlin:20261231T180000\r\nEND:VEVENT\r\n' +
        'BEGIN:VEVENT\r\nDTSTART;VALUE=DATE:2027\r\n 0101\r\nEND:VEVENT\r\n',
    );
    expect(icalDates(text)).toEqual({
      ok: true,
      dates: ['2026-12-24', '2026-12-25', '2026-12-26', '2026-12-31', '2027-01-01'],
    });
  });

  test.each([
    ['not a calendar', 'hello', /VCALENDAR/],
    ['recurring', ics('BEGIN:VEVENT\nDTSTART;VALUE=DATE:20261224\nRRULE:FREQ=YEARLY\nEND:VEVENT\n'), /recurring/],
    ['no DTSTART', ics('BEGIN:VEVENT\nSUMMARY:x\nEND:VEVENT\n'), /no DTSTART/],
    ['bad date', ics('BEGIN:VEVENT\nDTSTART;VALUE=DATE:20261332\nEND:VEVENT\n'), /line 4/],
  ])('refuses %s', (_, text, message) => {
    const result = icalDates(text);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toMatch(message);
  });
});

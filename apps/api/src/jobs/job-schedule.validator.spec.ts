import { LimitExceededError, ValidationFailedError } from '@svc/common';
import { nextFireTimes } from '@svc/orchestration';
import type { CalendarsRepository } from '@svc/persistence';
import { JobScheduleValidator } from './job-schedule.validator';

const NOW = new Date('2026-03-10T08:15:30.250Z');
const CALENDARS = { 'holidays:de-berlin': ['2026-03-11'] };
const calendars = { datesByName: jest.fn(async () => CALENDARS) };
const validator = new JobScheduleValidator(calendars as unknown as CalendarsRepository);

describe('JobScheduleValidator', () => {
  it('should return the columns the row stores, with the detected kind instead of auto', () => {
    const { columns } = validator.validate(
      { expr: '0 9 * * 1-5', timezone: 'Europe/Berlin', starts_at: '2026-04-01T00:00:00Z', count: 10 },
      NOW,
      0,
    );
    expect(columns).toEqual({
      scheduleExpr: '0 9 * * 1-5',
      scheduleKind: 'cron',
      scheduleCanonical: expect.any(String),
      scheduleDescription: expect.any(String),
      scheduleTimezone: 'Europe/Berlin',
      scheduleStartsAt: new Date('2026-04-01T00:00:00Z'),
      scheduleEndsAt: null,
      scheduleCount: 10,
      scheduleAnchor: NOW,
      excludeCalendars: [],
    });
  });

  // The create and PATCH answers take next_run_at from the validator's compiled schedule; GET
  // compiles the stored row as the job workflow does. They must agree.
  it.each([
    ['every 5 minutes', 'UTC'],
    ['in 20 minutes', 'UTC'],
    ['every weekday at 9am', 'America/New_York'],
    ['0 30 2 ? * SUN', 'Europe/Berlin'],
    ['*/15 * * * *', 'Australia/Sydney'],
    ['RRULE:FREQ=WEEKLY;BYDAY=MO,WE;BYHOUR=7;BYMINUTE=0', 'Asia/Kolkata'],
  ])('should compile %s (%s) to the fire times the stored row compiles to', (expr, timezone) => {
    const { columns, compiled } = validator.validate({ expr, timezone }, NOW, 60_000);
    expect(nextFireTimes(columns, NOW, 5, compiled)).toEqual(nextFireTimes(columns, NOW, 5));
    expect(nextFireTimes(columns, NOW, 5).length).toBeGreaterThan(0);
  });

  it('should refuse a bad schedule with 400 and a too frequent one with 403', () => {
    expect(() => validator.validate({ expr: 'every blursday' }, NOW, 0)).toThrow(ValidationFailedError);
    expect(() => validator.validate({ expr: 'every minute' }, NOW, 3_600_000)).toThrow(LimitExceededError);
  });

  describe('calendars (issue 45)', () => {
    it('should read the workspace calendars only for a schedule that names some, and exclude their days', async () => {
      calendars.datesByName.mockClear();
      await validator.validateIn('ws_1', { expr: '0 9 * * *', timezone: 'Europe/Berlin' }, NOW, 0);
      expect(calendars.datesByName).not.toHaveBeenCalled();
      const named = await validator.validateIn(
        'ws_1',
        { expr: 'every day at 9am except holidays:de-berlin', timezone: 'Europe/Berlin' },
        NOW,
        0,
      );
      expect(calendars.datesByName).toHaveBeenCalledWith('ws_1');
      expect(nextFireTimes(named.columns, NOW, 2, named.compiled).map((d) => d.toISOString())).toEqual([
        '2026-03-12T08:00:00.000Z',
        '2026-03-13T08:00:00.000Z',
      ]);
      const field = await validator.validateIn(
        'ws_1',
        { expr: '0 9 * * *', timezone: 'Europe/Berlin', exclude_calendars: ['holidays:de-berlin'] },
        NOW,
        0,
      );
      expect(field.columns.excludeCalendars).toEqual(['holidays:de-berlin']);
      expect(field.columns.scheduleDescription).toContain('except the days of holidays:de-berlin');
    });

    it('should name an unknown calendar in the field that names it', async () => {
      await expect(
        validator.validateIn('ws_1', { expr: '0 9 * * *', exclude_calendars: ['holidays:fr'] }, NOW, 0),
      ).rejects.toMatchObject({ body: { fields: { 'schedule.exclude_calendars': 'unknown calendar "holidays:fr"' } } });
      await expect(
        validator.validateIn('ws_1', { expr: 'every day at 9am except holidays:fr' }, NOW, 0),
      ).rejects.toMatchObject({ body: { fields: { 'schedule.expr': 'unknown calendar "holidays:fr"' } } });
    });
  });
});

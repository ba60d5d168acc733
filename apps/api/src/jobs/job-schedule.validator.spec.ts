import { LimitExceededError, ValidationFailedError } from '@svc/common';
import { nextFireTimes } from '@svc/orchestration';
import { JobScheduleValidator } from './job-schedule.validator';

const NOW = new Date('2026-03-10T08:15:30.250Z');
const validator = new JobScheduleValidator();

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
});

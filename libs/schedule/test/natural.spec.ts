/**
 * Natural-language schedules (kind `natural`), grouped by the grammar sections of
 * docs/schedules.md "Natural language". Reference instant: Monday 2026-11-30 10:17:23.456 UTC.
 */
import { REF, fires, natural, ok } from './natural-helpers';

type Case = [expr: string, canonical: string, description: string, zone: string, next3: string[]];

function table(cases: Case[]): void {
  test.each(cases)('%s', (expr, canonical, description, zone, next3) => {
    const s = ok(natural(expr, zone));
    expect(s.kind).toBe('natural');
    expect(s.canonical).toBe(canonical);
    expect(s.description).toBe(description);
    expect(s.timezone).toBe(zone);
    expect(s.oneOff).toBe(false);
    expect(fires(s, next3.length)).toEqual(next3);
  });
}

describe('intervals', () => {
  describe('sub-day intervals are fixed and phased from the reference (to the second)', () => {
    table([
      [
        'every 30 seconds',
        'FREQ=SECONDLY;INTERVAL=30',
        'Every 30 seconds (UTC)',
        'UTC',
        ['2026-11-30T10:17:53Z', '2026-11-30T10:18:23Z', '2026-11-30T10:18:53Z'],
      ],
      [
        'every 2 seconds',
        'FREQ=SECONDLY;INTERVAL=2',
        'Every 2 seconds (UTC)',
        'UTC',
        ['2026-11-30T10:17:25Z', '2026-11-30T10:17:27Z'],
      ],
      ['every second', 'FREQ=SECONDLY', 'Every second (UTC)', 'UTC', ['2026-11-30T10:17:24Z', '2026-11-30T10:17:25Z']],
      [
        'every 5 minutes',
        'FREQ=MINUTELY;INTERVAL=5',
        'Every 5 minutes (Europe/Berlin)',
        'Europe/Berlin',
        ['2026-11-30T10:22:23Z', '2026-11-30T10:27:23Z', '2026-11-30T10:32:23Z'],
      ],
      ['every minute', 'FREQ=MINUTELY', 'Every minute (UTC)', 'UTC', ['2026-11-30T10:18:23Z']],
      [
        'every half hour',
        'FREQ=MINUTELY;INTERVAL=30',
        'Every 30 minutes (UTC)',
        'UTC',
        ['2026-11-30T10:47:23Z', '2026-11-30T11:17:23Z'],
      ],
      [
        'every half an hour',
        'FREQ=MINUTELY;INTERVAL=30',
        'Every 30 minutes (UTC)',
        'UTC',
        ['2026-11-30T10:47:23Z', '2026-11-30T11:17:23Z'],
      ],
      [
        'Every Quarter of an Hour',
        'FREQ=MINUTELY;INTERVAL=15',
        'Every 15 minutes (UTC)',
        'UTC',
        ['2026-11-30T10:32:23Z', '2026-11-30T10:47:23Z'],
      ],
      [
        'every 2 hours',
        'FREQ=HOURLY;INTERVAL=2',
        'Every 2 hours (Asia/Kolkata)',
        'Asia/Kolkata',
        ['2026-11-30T12:17:23Z', '2026-11-30T14:17:23Z'],
      ],
      [
        'hourly',
        'FREQ=HOURLY',
        'Every hour (America/New_York)',
        'America/New_York',
        ['2026-11-30T11:17:23Z', '2026-11-30T12:17:23Z'],
      ],
      ['every hour', 'FREQ=HOURLY', 'Every hour (UTC)', 'UTC', ['2026-11-30T11:17:23Z']],
      ['Every 10 Mins', 'FREQ=MINUTELY;INTERVAL=10', 'Every 10 minutes (UTC)', 'UTC', ['2026-11-30T10:27:23Z']],
      [
        'every 5 minutes on weekdays',
        'FREQ=MINUTELY;INTERVAL=5;BYDAY=MO,TU,WE,TH,FR',
        'Every 5 minutes on weekdays (UTC)',
        'UTC',
        ['2026-11-30T10:22:23Z'],
      ],
    ]);

    test('the phase follows the reference: a different reference shifts every fire time', () => {
      const s = ok(natural('every 5 minutes', 'UTC', new Date('2026-11-30T10:00:02Z')));
      expect(fires(s, 2, new Date('2026-11-30T12:00:00Z'))).toEqual(['2026-11-30T12:00:02Z', '2026-11-30T12:05:02Z']);
    });

    test('startsAt (input bound) phases the interval instead of the reference', () => {
      const s = ok(natural('every 15 minutes', 'UTC', REF, { startsAt: new Date('2026-12-01T00:00:10Z') }));
      expect(fires(s, 2)).toEqual(['2026-12-01T00:00:10Z', '2026-12-01T00:15:10Z']);
    });
  });

  describe('daily, every N days: calendar days at 00:00 unless a time is given', () => {
    table([
      [
        'daily',
        'FREQ=DAILY;BYHOUR=0;BYMINUTE=0;BYSECOND=0',
        'Every day at 00:00 (Europe/Berlin)',
        'Europe/Berlin',
        ['2026-11-30T23:00:00Z', '2026-12-01T23:00:00Z'],
      ],
      [
        'every day',
        'FREQ=DAILY;BYHOUR=0;BYMINUTE=0;BYSECOND=0',
        'Every day at 00:00 (UTC)',
        'UTC',
        ['2026-12-01T00:00:00Z'],
      ],
      [
        'every 3 days',
        'FREQ=DAILY;INTERVAL=3;BYHOUR=0;BYMINUTE=0;BYSECOND=0',
        'Every 3 days at 00:00 (Europe/Berlin)',
        'Europe/Berlin',
        ['2026-12-02T23:00:00Z', '2026-12-05T23:00:00Z', '2026-12-08T23:00:00Z'],
      ],
      [
        'every other day at 7am',
        'FREQ=DAILY;INTERVAL=2;BYHOUR=7;BYMINUTE=0;BYSECOND=0',
        'Every 2 days at 07:00 (UTC)',
        'UTC',
        ['2026-12-02T07:00:00Z', '2026-12-04T07:00:00Z'],
      ],
    ]);
  });
});

describe('times of day', () => {
  table([
    [
      'every day at 9:30',
      'FREQ=DAILY;BYHOUR=9;BYMINUTE=30;BYSECOND=0',
      'Every day at 09:30 (Europe/Berlin)',
      'Europe/Berlin',
      ['2026-12-01T08:30:00Z', '2026-12-02T08:30:00Z'],
    ],
    [
      'at noon',
      'FREQ=DAILY;BYHOUR=12;BYMINUTE=0;BYSECOND=0',
      'Every day at 12:00 (America/New_York)',
      'America/New_York',
      ['2026-11-30T17:00:00Z', '2026-12-01T17:00:00Z'],
    ],
    [
      'midnight',
      'FREQ=DAILY;BYHOUR=0;BYMINUTE=0;BYSECOND=0',
      'Every day at 00:00 (Asia/Tokyo)',
      'Asia/Tokyo',
      ['2026-11-30T15:00:00Z'],
    ],
    [
      '9am',
      'FREQ=DAILY;BYHOUR=9;BYMINUTE=0;BYSECOND=0',
      'Every day at 09:00 (Asia/Kolkata)',
      'Asia/Kolkata',
      ['2026-12-01T03:30:00Z'],
    ],
    [
      '5:30 p.m.',
      'FREQ=DAILY;BYHOUR=17;BYMINUTE=30;BYSECOND=0',
      'Every day at 17:30 (UTC)',
      'UTC',
      ['2026-11-30T17:30:00Z'],
    ],
    [
      '5:30 PM',
      'FREQ=DAILY;BYHOUR=17;BYMINUTE=30;BYSECOND=0',
      'Every day at 17:30 (UTC)',
      'UTC',
      ['2026-11-30T17:30:00Z'],
    ],
    [
      'every day at 12am',
      'FREQ=DAILY;BYHOUR=0;BYMINUTE=0;BYSECOND=0',
      'Every day at 00:00 (UTC)',
      'UTC',
      ['2026-12-01T00:00:00Z'],
    ],
    [
      'every day at 12 pm',
      'FREQ=DAILY;BYHOUR=12;BYMINUTE=0;BYSECOND=0',
      'Every day at 12:00 (UTC)',
      'UTC',
      ['2026-11-30T12:00:00Z'],
    ],
    [
      '17:00',
      'FREQ=DAILY;BYHOUR=17;BYMINUTE=0;BYSECOND=0',
      'Every day at 17:00 (UTC)',
      'UTC',
      ['2026-11-30T17:00:00Z'],
    ],
    [
      "every day at 6 o'clock",
      'FREQ=DAILY;BYHOUR=6;BYMINUTE=0;BYSECOND=0',
      'Every day at 06:00 (UTC)',
      'UTC',
      ['2026-12-01T06:00:00Z'],
    ],
    [
      'every day at 10:15:30',
      'FREQ=DAILY;BYHOUR=10;BYMINUTE=15;BYSECOND=30',
      'Every day at 10:15:30 (UTC)',
      'UTC',
      ['2026-12-01T10:15:30Z'],
    ],
  ]);

  describe('several times', () => {
    table([
      [
        'every day at 8am and 8pm',
        'FREQ=DAILY;BYHOUR=8,20;BYMINUTE=0;BYSECOND=0',
        'Every day at 08:00 and 20:00 (Europe/Berlin)',
        'Europe/Berlin',
        ['2026-11-30T19:00:00Z', '2026-12-01T07:00:00Z', '2026-12-01T19:00:00Z'],
      ],
      [
        'every day at 9, 12 and 18',
        'FREQ=DAILY;BYHOUR=9,12,18;BYMINUTE=0;BYSECOND=0',
        'Every day at 09:00, 12:00 and 18:00 (UTC)',
        'UTC',
        ['2026-11-30T12:00:00Z', '2026-11-30T18:00:00Z', '2026-12-01T09:00:00Z'],
      ],
      // times that do not form a BYHOUR x BYMINUTE grid select from the grid with BYSETPOS
      [
        'every day at 8:00 and 20:30',
        'FREQ=DAILY;BYHOUR=8,20;BYMINUTE=0,30;BYSECOND=0;BYSETPOS=1,4',
        'Every day at 08:00 and 20:30 (UTC)',
        'UTC',
        ['2026-11-30T20:30:00Z', '2026-12-01T08:00:00Z', '2026-12-01T20:30:00Z'],
      ],
      [
        'every weekday at 8am and 8:30pm',
        'FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=8,20;BYMINUTE=0,30;BYSECOND=0;BYSETPOS=1,4',
        'Every weekday at 08:00 and 20:30 (UTC)',
        'UTC',
        ['2026-11-30T20:30:00Z', '2026-12-01T08:00:00Z'],
      ],
      [
        'every 2 weeks on monday and friday at 9:15 and 17:00',
        'FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,FR;BYHOUR=9,17;BYMINUTE=0,15;BYSECOND=0;BYSETPOS=2,3,6,7',
        'Every 2 weeks on Monday and Friday at 09:15 and 17:00 (UTC)',
        'UTC',
        ['2026-11-30T17:00:00Z', '2026-12-04T09:15:00Z', '2026-12-04T17:00:00Z', '2026-12-14T09:15:00Z'],
      ],
    ]);
  });
});

describe('weekdays and lists', () => {
  table([
    [
      'every weekday at 9am',
      'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9;BYMINUTE=0;BYSECOND=0',
      'Every weekday at 09:00 (Europe/Berlin)',
      'Europe/Berlin',
      ['2026-12-01T08:00:00Z', '2026-12-02T08:00:00Z'],
    ],
    [
      'every weekday at 9am',
      'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9;BYMINUTE=0;BYSECOND=0',
      'Every weekday at 09:00 (America/New_York)',
      'America/New_York',
      ['2026-11-30T14:00:00Z', '2026-12-01T14:00:00Z'],
    ],
    [
      'every monday and thursday at 17:00',
      'FREQ=WEEKLY;BYDAY=MO,TH;BYHOUR=17;BYMINUTE=0;BYSECOND=0',
      'Every Monday and Thursday at 17:00 (Europe/Berlin)',
      'Europe/Berlin',
      ['2026-11-30T16:00:00Z', '2026-12-03T16:00:00Z', '2026-12-07T16:00:00Z'],
    ],
    [
      'weekends at 10',
      'FREQ=WEEKLY;BYDAY=SA,SU;BYHOUR=10;BYMINUTE=0;BYSECOND=0',
      'Every weekend day at 10:00 (UTC)',
      'UTC',
      ['2026-12-05T10:00:00Z', '2026-12-06T10:00:00Z', '2026-12-12T10:00:00Z'],
    ],
    [
      'Every Mon, Wed and Fri at 7:15',
      'FREQ=WEEKLY;BYDAY=MO,WE,FR;BYHOUR=7;BYMINUTE=15;BYSECOND=0',
      'Every Monday, Wednesday and Friday at 07:15 (UTC)',
      'UTC',
      ['2026-12-02T07:15:00Z', '2026-12-04T07:15:00Z'],
    ],
    [
      'mondays at 9',
      'FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0;BYSECOND=0',
      'Every Monday at 09:00 (UTC)',
      'UTC',
      ['2026-12-07T09:00:00Z'],
    ],
    [
      'every tue-thu at 6pm',
      'FREQ=WEEKLY;BYDAY=TU,WE,TH;BYHOUR=18;BYMINUTE=0;BYSECOND=0',
      'Every Tuesday, Wednesday and Thursday at 18:00 (UTC)',
      'UTC',
      ['2026-12-01T18:00:00Z'],
    ],
    [
      'on monday through friday at 8',
      'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=8;BYMINUTE=0;BYSECOND=0',
      'Every weekday at 08:00 (UTC)',
      'UTC',
      ['2026-12-01T08:00:00Z'],
    ],
    [
      'every sunday',
      'FREQ=WEEKLY;BYDAY=SU;BYHOUR=0;BYMINUTE=0;BYSECOND=0',
      'Every Sunday at 00:00 (UTC)',
      'UTC',
      ['2026-12-06T00:00:00Z'],
    ],
  ]);

  describe('steps over weeks count from the reference week', () => {
    table([
      [
        'every 2 weeks on friday at 18:00',
        'FREQ=WEEKLY;INTERVAL=2;BYDAY=FR;BYHOUR=18;BYMINUTE=0;BYSECOND=0',
        'Every 2 weeks on Friday at 18:00 (Europe/Berlin)',
        'Europe/Berlin',
        ['2026-12-04T17:00:00Z', '2026-12-18T17:00:00Z', '2027-01-01T17:00:00Z'],
      ],
      [
        'every 2 weeks',
        'FREQ=WEEKLY;INTERVAL=2;BYHOUR=0;BYMINUTE=0;BYSECOND=0',
        'Every 2 weeks at 00:00 (UTC)',
        'UTC',
        ['2026-12-14T00:00:00Z', '2026-12-28T00:00:00Z'],
      ],
    ]);
  });
});

describe('months and days', () => {
  table([
    [
      'the last weekday of every month at 9am',
      'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9;BYMINUTE=0;BYSECOND=0;BYSETPOS=-1',
      'The last weekday of every month at 09:00 (Europe/Berlin)',
      'Europe/Berlin',
      // 2027-01-31 is a Sunday: the last weekday of January is Friday the 29th
      ['2026-12-31T08:00:00Z', '2027-01-29T08:00:00Z', '2027-02-26T08:00:00Z'],
    ],
    [
      'at 9:15 and 17:45 on the first and last weekday of the month',
      'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9,17;BYMINUTE=15,45;BYSECOND=0;BYSETPOS=1,4,-4,-1',
      'The first and last weekday of every month at 09:15 and 17:45 (UTC)',
      'UTC',
      ['2026-11-30T17:45:00Z', '2026-12-01T09:15:00Z', '2026-12-01T17:45:00Z', '2026-12-31T09:15:00Z'],
    ],
    [
      'the last weekend day of the month',
      'FREQ=MONTHLY;BYDAY=SA,SU;BYHOUR=0;BYMINUTE=0;BYSECOND=0;BYSETPOS=-1',
      'The last weekend day of every month at 00:00 (UTC)',
      'UTC',
      ['2026-12-27T00:00:00Z', '2027-01-31T00:00:00Z'],
    ],
    [
      'the first and third monday of the month',
      'FREQ=MONTHLY;BYDAY=1MO,3MO;BYHOUR=0;BYMINUTE=0;BYSECOND=0',
      'Every first Monday and third Monday of the month at 00:00 (UTC)',
      'UTC',
      ['2026-12-07T00:00:00Z', '2026-12-21T00:00:00Z'],
    ],
    [
      'on 25 december at 8am',
      'FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=25;BYHOUR=8;BYMINUTE=0;BYSECOND=0',
      'Every year on December 25 at 08:00 (UTC)',
      'UTC',
      ['2026-12-25T08:00:00Z', '2027-12-25T08:00:00Z'],
    ],
    [
      'every 3 mar at noon',
      'FREQ=YEARLY;BYMONTH=3;BYMONTHDAY=3;BYHOUR=12;BYMINUTE=0;BYSECOND=0',
      'Every year on March 3 at 12:00 (UTC)',
      'UTC',
      ['2027-03-03T12:00:00Z', '2028-03-03T12:00:00Z'],
    ],
    [
      'every month on the 1st at 00:00',
      'FREQ=MONTHLY;BYMONTHDAY=1;BYHOUR=0;BYMINUTE=0;BYSECOND=0',
      'On the 1st of every month at 00:00 (Europe/Berlin)',
      'Europe/Berlin',
      ['2026-11-30T23:00:00Z', '2026-12-31T23:00:00Z', '2027-01-31T23:00:00Z'],
    ],
    [
      'on the 15th and last day of every month',
      'FREQ=MONTHLY;BYMONTHDAY=15,-1;BYHOUR=0;BYMINUTE=0;BYSECOND=0',
      'On the 15th and the last day of every month at 00:00 (UTC)',
      'UTC',
      [
        '2026-12-15T00:00:00Z',
        '2026-12-31T00:00:00Z',
        '2027-01-15T00:00:00Z',
        '2027-01-31T00:00:00Z',
        '2027-02-15T00:00:00Z',
        '2027-02-28T00:00:00Z',
      ],
    ],
    [
      'every first monday of the month at 10am',
      'FREQ=MONTHLY;BYDAY=1MO;BYHOUR=10;BYMINUTE=0;BYSECOND=0',
      'Every first Monday of the month at 10:00 (Europe/Berlin)',
      'Europe/Berlin',
      ['2026-12-07T09:00:00Z', '2027-01-04T09:00:00Z', '2027-02-01T09:00:00Z'],
    ],
    [
      'every last friday',
      'FREQ=MONTHLY;BYDAY=-1FR;BYHOUR=0;BYMINUTE=0;BYSECOND=0',
      'Every last Friday of the month at 00:00 (UTC)',
      'UTC',
      ['2026-12-25T00:00:00Z', '2027-01-29T00:00:00Z', '2027-02-26T00:00:00Z'],
    ],
    [
      'on the second tuesday of every month at 14:00',
      'FREQ=MONTHLY;BYDAY=2TU;BYHOUR=14;BYMINUTE=0;BYSECOND=0',
      'Every second Tuesday of the month at 14:00 (UTC)',
      'UTC',
      ['2026-12-08T14:00:00Z', '2027-01-12T14:00:00Z'],
    ],
    [
      'last day of every month',
      'FREQ=MONTHLY;BYMONTHDAY=-1;BYHOUR=0;BYMINUTE=0;BYSECOND=0',
      'On the last day of every month at 00:00 (UTC)',
      'UTC',
      ['2026-12-31T00:00:00Z', '2027-01-31T00:00:00Z', '2027-02-28T00:00:00Z'],
    ],
    [
      'every 3 months on the 1st at 9am',
      'FREQ=MONTHLY;INTERVAL=3;BYMONTHDAY=1;BYHOUR=9;BYMINUTE=0;BYSECOND=0',
      'On the 1st of every 3 months at 09:00 (UTC)',
      'UTC',
      ['2027-02-01T09:00:00Z', '2027-05-01T09:00:00Z'],
    ],
    [
      'every 15th at noon',
      'FREQ=MONTHLY;BYMONTHDAY=15;BYHOUR=12;BYMINUTE=0;BYSECOND=0',
      'On the 15th of every month at 12:00 (UTC)',
      'UTC',
      ['2026-12-15T12:00:00Z'],
    ],
    [
      'every year on march 15 at noon',
      'FREQ=YEARLY;BYMONTH=3;BYMONTHDAY=15;BYHOUR=12;BYMINUTE=0;BYSECOND=0',
      'Every year on March 15 at 12:00 (Europe/Berlin)',
      'Europe/Berlin',
      ['2027-03-15T11:00:00Z', '2028-03-15T11:00:00Z'],
    ],
    [
      'every mar 15th',
      'FREQ=YEARLY;BYMONTH=3;BYMONTHDAY=15;BYHOUR=0;BYMINUTE=0;BYSECOND=0',
      'Every year on March 15 at 00:00 (UTC)',
      'UTC',
      ['2027-03-15T00:00:00Z'],
    ],
    [
      'on the 1st of january at 8am',
      'FREQ=YEARLY;BYMONTH=1;BYMONTHDAY=1;BYHOUR=8;BYMINUTE=0;BYSECOND=0',
      'Every year on January 1 at 08:00 (UTC)',
      'UTC',
      ['2027-01-01T08:00:00Z', '2028-01-01T08:00:00Z'],
    ],
    [
      'every day at 9am in march and april',
      'FREQ=DAILY;BYMONTH=3,4;BYHOUR=9;BYMINUTE=0;BYSECOND=0',
      'Every day in March and April at 09:00 (UTC)',
      'UTC',
      ['2027-03-01T09:00:00Z', '2027-03-02T09:00:00Z'],
    ],
    [
      'every friday on the 13th',
      'FREQ=MONTHLY;BYMONTHDAY=13;BYDAY=FR;BYHOUR=0;BYMINUTE=0;BYSECOND=0',
      'On the 13th of every month when it is a Friday at 00:00 (UTC)',
      'UTC',
      ['2027-08-13T00:00:00Z', '2028-10-13T00:00:00Z'],
    ],
  ]);
});

describe('windows', () => {
  table([
    [
      'every 15 minutes between 9am and 5pm on weekdays',
      'FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9,10,11,12,13,14,15,16;BYMINUTE=0,15,30,45;BYSECOND=0',
      'Every 15 minutes between 09:00 and 17:00 (last at 16:45) on weekdays (Europe/Berlin)',
      'Europe/Berlin',
      ['2026-11-30T10:30:00Z', '2026-11-30T10:45:00Z', '2026-11-30T11:00:00Z'],
    ],
    [
      'every hour from 9:00 to 12:00',
      'FREQ=DAILY;BYHOUR=9,10,11;BYMINUTE=0;BYSECOND=0',
      'Every hour between 09:00 and 12:00 (last at 11:00) (UTC)',
      'UTC',
      ['2026-11-30T11:00:00Z', '2026-12-01T09:00:00Z'],
    ],
    [
      'every 20 minutes between 10pm and 1am',
      'FREQ=DAILY;BYHOUR=0,22,23;BYMINUTE=0,20,40;BYSECOND=0',
      'Every 20 minutes between 22:00 and 01:00 (last at 00:40) (UTC)',
      'UTC',
      ['2026-11-30T22:00:00Z', '2026-11-30T22:20:00Z'],
    ],
    [
      'every 7 minutes between 9:30 and 10',
      'FREQ=DAILY;BYHOUR=9;BYMINUTE=30,37,44,51,58;BYSECOND=0',
      'Every 7 minutes between 09:30 and 10:00 (last at 09:58) (UTC)',
      'UTC',
      ['2026-12-01T09:30:00Z', '2026-12-01T09:37:00Z'],
    ],
  ]);
});

describe('bounds', () => {
  table([
    [
      'every day at 9am starting 2026-12-04 until 2027-06-30',
      'FREQ=DAILY;BYHOUR=9;BYMINUTE=0;BYSECOND=0;UNTIL=20270630T235959;DTSTART=20261204T000000',
      'Every day at 09:00, starting 2026-12-04, until 2027-06-30 (Europe/Berlin)',
      'Europe/Berlin',
      ['2026-12-04T08:00:00Z', '2026-12-05T08:00:00Z'],
    ],
    [
      'every day at 9am 10 times',
      'FREQ=DAILY;BYHOUR=9;BYMINUTE=0;BYSECOND=0;COUNT=10',
      'Every day at 09:00, 10 times (UTC)',
      'UTC',
      ['2026-12-01T09:00:00Z', '2026-12-02T09:00:00Z'],
    ],
    [
      'every 5 minutes starting 2026-12-04 at 09:02',
      'FREQ=MINUTELY;INTERVAL=5;DTSTART=20261204T090200',
      'Every 5 minutes, starting 2026-12-04 09:02 (UTC)',
      'UTC',
      ['2026-12-04T09:02:00Z', '2026-12-04T09:07:00Z'],
    ],
  ]);

  test('until includes the whole last day and then stops', () => {
    const s = ok(natural('every day at 23:30 until 2026-12-02', 'America/New_York'));
    expect(fires(s, 5)).toEqual(['2026-12-01T04:30:00Z', '2026-12-02T04:30:00Z', '2026-12-03T04:30:00Z']);
  });

  test('10 times counts from the start of the series, not from `after`', () => {
    const s = ok(natural('every day at 9am 10 times', 'UTC'));
    const all = fires(s, 100);
    expect(all).toHaveLength(10);
    expect(all[9]).toBe('2026-12-10T09:00:00Z');
    expect(fires(s, 100, new Date('2026-12-08T12:00:00Z'))).toEqual(['2026-12-09T09:00:00Z', '2026-12-10T09:00:00Z']);
  });

  test('bounds combine with weekdays and intervals', () => {
    const s = ok(natural('every 2 weeks on friday at 18:00 starting 2027-01-01 3 times', 'UTC'));
    expect(s.canonical).toBe(
      'FREQ=WEEKLY;INTERVAL=2;BYDAY=FR;BYHOUR=18;BYMINUTE=0;BYSECOND=0;COUNT=3;DTSTART=20270101T000000',
    );
    expect(fires(s, 10)).toEqual(['2027-01-01T18:00:00Z', '2027-01-15T18:00:00Z', '2027-01-29T18:00:00Z']);
  });

  test('input bounds (startsAt, endsAt, count) apply on top of the expression', () => {
    const s = ok(natural('every day at noon', 'UTC', REF, { endsAt: new Date('2026-12-02T12:00:00Z') }));
    expect(fires(s, 10)).toEqual(['2026-11-30T12:00:00Z', '2026-12-01T12:00:00Z', '2026-12-02T12:00:00Z']);
    const c = ok(natural('every day at noon', 'UTC', REF, { count: 2, startsAt: new Date('2026-12-05T00:00:00Z') }));
    expect(fires(c, 10)).toEqual(['2026-12-05T12:00:00Z', '2026-12-06T12:00:00Z']);
  });
});

describe('one-offs are evaluated against the reference in the zone', () => {
  test.each([
    [
      'in 20 minutes',
      'UTC',
      'FREQ=DAILY;COUNT=1;DTSTART=20261130T103723Z',
      'Once at 2026-11-30 10:37:23 (UTC)',
      '2026-11-30T10:37:23Z',
    ],
    [
      'in 2 hours',
      'Europe/Berlin',
      'FREQ=DAILY;COUNT=1;DTSTART=20261130T121723Z',
      'Once at 2026-11-30 13:17:23 (Europe/Berlin)',
      '2026-11-30T12:17:23Z',
    ],
    [
      'at 2026-12-01 09:00',
      'Europe/Berlin',
      'FREQ=DAILY;COUNT=1;DTSTART=20261201T080000Z',
      'Once at 2026-12-01 09:00 (Europe/Berlin)',
      '2026-12-01T08:00:00Z',
    ],
    [
      'on 2026-12-24 at 6pm',
      'America/New_York',
      'FREQ=DAILY;COUNT=1;DTSTART=20261224T230000Z',
      'Once at 2026-12-24 18:00 (America/New_York)',
      '2026-12-24T23:00:00Z',
    ],
    [
      '2026-12-01T09:00',
      'UTC',
      'FREQ=DAILY;COUNT=1;DTSTART=20261201T090000Z',
      'Once at 2026-12-01 09:00 (UTC)',
      '2026-12-01T09:00:00Z',
    ],
    [
      'tomorrow at 9am',
      'Europe/Berlin',
      'FREQ=DAILY;COUNT=1;DTSTART=20261201T080000Z',
      'Once at 2026-12-01 09:00 (Europe/Berlin)',
      '2026-12-01T08:00:00Z',
    ],
    [
      'tomorrow at 9am',
      'Asia/Tokyo',
      'FREQ=DAILY;COUNT=1;DTSTART=20261201T000000Z',
      'Once at 2026-12-01 09:00 (Asia/Tokyo)',
      '2026-12-01T00:00:00Z',
    ],
    // 10:17 UTC is already 2026-12-01 00:17 in Kiritimati (+14): tomorrow is the 2nd there
    [
      'tomorrow at 9am',
      'Pacific/Kiritimati',
      'FREQ=DAILY;COUNT=1;DTSTART=20261201T190000Z',
      'Once at 2026-12-02 09:00 (Pacific/Kiritimati)',
      '2026-12-01T19:00:00Z',
    ],
    [
      'today at 5pm',
      'UTC',
      'FREQ=DAILY;COUNT=1;DTSTART=20261130T170000Z',
      'Once at 2026-11-30 17:00 (UTC)',
      '2026-11-30T17:00:00Z',
    ],
    // REF is a Monday: `next monday` is a week later, never the same day
    [
      'next monday',
      'UTC',
      'FREQ=DAILY;COUNT=1;DTSTART=20261207T000000Z',
      'Once at 2026-12-07 00:00 (UTC)',
      '2026-12-07T00:00:00Z',
    ],
    [
      'next friday at 9am',
      'Europe/Berlin',
      'FREQ=DAILY;COUNT=1;DTSTART=20261204T080000Z',
      'Once at 2026-12-04 09:00 (Europe/Berlin)',
      '2026-12-04T08:00:00Z',
    ],
    [
      'next tue at 5:30 p.m.',
      'America/New_York',
      'FREQ=DAILY;COUNT=1;DTSTART=20261201T223000Z',
      'Once at 2026-12-01 17:30 (America/New_York)',
      '2026-12-01T22:30:00Z',
    ],
    // already Tuesday 2026-12-01 in Kiritimati (+14): its next Monday is the 7th there
    [
      'next monday',
      'Pacific/Kiritimati',
      'FREQ=DAILY;COUNT=1;DTSTART=20261206T100000Z',
      'Once at 2026-12-07 00:00 (Pacific/Kiritimati)',
      '2026-12-06T10:00:00Z',
    ],
    [
      'in 3 days at noon',
      'UTC',
      'FREQ=DAILY;COUNT=1;DTSTART=20261203T120000Z',
      'Once at 2026-12-03 12:00 (UTC)',
      '2026-12-03T12:00:00Z',
    ],
  ])('%s (%s)', (expr, zone, canonical, description, at) => {
    const s = ok(natural(expr, zone));
    expect(s.oneOff).toBe(true);
    expect(s.canonical).toBe(canonical);
    expect(s.description).toBe(description);
    expect(fires(s, 5)).toEqual([at]);
    expect(fires(s, 5, new Date(at))).toEqual([]);
  });
});

describe('case, abbreviations and ordinals', () => {
  test.each([
    ['EVERY MONDAY AT 9AM', 'FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0;BYSECOND=0'],
    ['every mon at 9 a.m.', 'FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0;BYSECOND=0'],
    ['every tues and thurs at 9pm', 'FREQ=WEEKLY;BYDAY=TU,TH;BYHOUR=21;BYMINUTE=0;BYSECOND=0'],
    ['every year on jan 1st', 'FREQ=YEARLY;BYMONTH=1;BYMONTHDAY=1;BYHOUR=0;BYMINUTE=0;BYSECOND=0'],
    ['every month on the 2nd and 3rd', 'FREQ=MONTHLY;BYMONTHDAY=2,3;BYHOUR=0;BYMINUTE=0;BYSECOND=0'],
    ['each 1st monday of the month', 'FREQ=MONTHLY;BYDAY=1MO;BYHOUR=0;BYMINUTE=0;BYSECOND=0'],
    ['every sept 22nd at 6 P.M.', 'FREQ=YEARLY;BYMONTH=9;BYMONTHDAY=22;BYHOUR=18;BYMINUTE=0;BYSECOND=0'],
  ])('%s', (expr, canonical) => {
    expect(ok(natural(expr)).canonical).toBe(canonical);
  });
});

describe('through the public dispatcher (compileSchedule / validateSchedule)', () => {
  // imported lazily so this file also documents the end-to-end path

  const { compileSchedule, validateSchedule } = require('../src') as typeof import('../src');

  test('auto detects natural; `N times` counts fires after the reference', () => {
    const r = compileSchedule({ expr: 'every 2 seconds 3 times', reference: REF });
    expect(r.ok && r.kindDetected).toBe('natural');
    const s = ok(r);
    expect(fires(s, 10)).toEqual(['2026-11-30T10:17:25Z', '2026-11-30T10:17:27Z', '2026-11-30T10:17:29Z']);
  });

  test('input count with the reference as anchor: the reference itself is not an occurrence', () => {
    const s = ok(compileSchedule({ expr: 'every 5 minutes', reference: new Date('2026-11-30T10:00:00Z'), count: 2 }));
    expect(fires(s, 10, new Date('2026-11-30T09:00:00Z'))).toEqual(['2026-11-30T10:05:00Z', '2026-11-30T10:10:00Z']);
  });

  test('validate: a natural schedule below the minimum gap, and a one-off exempt from it', () => {
    const v = validateSchedule({ expr: 'every 2 seconds', reference: REF }, { minIntervalMs: 60_000 });
    expect(v.valid).toBe(false);
    expect(v.errors.map((e) => e.kind)).toContain('min_interval');
    expect(validateSchedule({ expr: 'in 20 minutes', reference: REF }, { minIntervalMs: 60_000 }).valid).toBe(true);
  });

  test('validate: a natural error comes back structured', () => {
    const v = validateSchedule({ expr: 'every mondy at 9', reference: REF });
    expect(v).toMatchObject({ valid: false, kindDetected: 'natural' });
    expect(v.errors[0]).toMatchObject({ kind: 'unknown_word', position: 6, length: 5, suggestion: 'monday' });
  });
});

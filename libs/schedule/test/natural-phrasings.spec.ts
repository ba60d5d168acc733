/**
 * Schedules as people write them (issue #24): the table, and phrasings users of Temporal
 * Schedules, EventBridge `rate()`, Cloud Scheduler's English-like format (groc) and Quartz ask for.
 * Each is checked by its canonical form, its description and its fire times after the reference.
 */
import { validateSchedule } from '@svc/schedule';

const REF = new Date('2026-11-30T10:17:23.456Z'); // a Monday

function check(expr: string, timezone = 'UTC', n = 5) {
  const r = validateSchedule({ expr, timezone, reference: REF }, { sampleCount: n, minIntervalMs: 1000 });
  if (!r.valid) {
    throw new Error(`${expr}: ${JSON.stringify(r.errors)}`);
  }
  return {
    canonical: r.canonical,
    description: r.description,
    next: r.sample!.slice(0, n).map((t) => new Date(t).toISOString().replace('.000Z', 'Z')),
  };
}

describe('the issue #24 table', () => {
  it.each([
    [
      'every 90 minutes',
      'FREQ=MINUTELY;INTERVAL=90',
      'Every 90 minutes (UTC)',
      ['2026-11-30T11:47:23Z', '2026-11-30T13:17:23Z'],
    ],
    [
      'every 36 hours',
      'FREQ=HOURLY;INTERVAL=36',
      'Every 36 hours (UTC)',
      ['2026-12-01T22:17:23Z', '2026-12-03T10:17:23Z'],
    ],
    [
      'every 90 seconds',
      'FREQ=SECONDLY;INTERVAL=90',
      'Every 90 seconds (UTC)',
      ['2026-11-30T10:18:53Z', '2026-11-30T10:20:23Z'],
    ],
    [
      'every 120 seconds',
      'FREQ=MINUTELY;INTERVAL=2',
      'Every 2 minutes (UTC)',
      ['2026-11-30T10:19:23Z', '2026-11-30T10:21:23Z'],
    ],
    ['every 60 seconds', 'FREQ=MINUTELY', 'Every minute (UTC)', ['2026-11-30T10:18:23Z', '2026-11-30T10:19:23Z']],
    [
      'every 90 minutes between 9am and 5pm on weekdays',
      'FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9,10,12,13,15,16;BYMINUTE=0,30;BYSECOND=0;BYSETPOS=1,4,5,8,9,12',
      'Every 90 minutes between 09:00 and 17:00 (last at 16:30) on weekdays (UTC)',
      [
        '2026-11-30T10:30:00Z',
        '2026-11-30T12:00:00Z',
        '2026-11-30T13:30:00Z',
        '2026-11-30T15:00:00Z',
        '2026-11-30T16:30:00Z',
      ],
    ],
    [
      'every 6 hours starting at 2am',
      'FREQ=DAILY;BYHOUR=2,8,14,20;BYMINUTE=0;BYSECOND=0',
      'Every 6 hours from 02:00 (at 02:00, 08:00, 14:00 and 20:00) (UTC)',
      ['2026-11-30T14:00:00Z', '2026-11-30T20:00:00Z', '2026-12-01T02:00:00Z'],
    ],
    [
      'twice a day',
      'FREQ=DAILY;BYHOUR=0,12;BYMINUTE=0;BYSECOND=0',
      'Every day at 00:00 and 12:00 (UTC)',
      ['2026-11-30T12:00:00Z', '2026-12-01T00:00:00Z'],
    ],
    [
      'at 9am every day except weekends',
      'FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9;BYMINUTE=0;BYSECOND=0',
      'Every weekday at 09:00 (UTC)',
      [
        '2026-12-01T09:00:00Z',
        '2026-12-02T09:00:00Z',
        '2026-12-03T09:00:00Z',
        '2026-12-04T09:00:00Z',
        '2026-12-07T09:00:00Z',
      ],
    ],
    [
      'every 18 months',
      'FREQ=MONTHLY;INTERVAL=18;BYHOUR=0;BYMINUTE=0;BYSECOND=0',
      'Every 18 months at 00:00 (UTC)',
      ['2028-05-30T00:00:00Z', '2029-11-30T00:00:00Z'],
    ],
  ] as Array<[string, string, string, string[]]>)('%s', (expr, canonical, description, next) => {
    const got = check(expr);
    expect(got.canonical).toBe(canonical);
    expect(got.description).toBe(description);
    expect(got.next.slice(0, next.length)).toEqual(next);
  });
});

describe('more phrasings people ask for', () => {
  it.each([
    // EventBridge rate(): elapsed time from the reference, days included
    ['rate(5 minutes)', 'FREQ=MINUTELY;INTERVAL=5', ['2026-11-30T10:22:23Z']],
    ['rate(1 hour)', 'FREQ=HOURLY', ['2026-11-30T11:17:23Z']],
    ['rate(2 days)', 'FREQ=HOURLY;INTERVAL=48', ['2026-12-02T10:17:23Z']],
    // Temporal / Go durations
    ['every 1h30m', 'FREQ=MINUTELY;INTERVAL=90', ['2026-11-30T11:47:23Z']],
    ['every 1 hour and 30 minutes', 'FREQ=MINUTELY;INTERVAL=90', ['2026-11-30T11:47:23Z']],
    ['every 45s', 'FREQ=SECONDLY;INTERVAL=45', ['2026-11-30T10:18:08Z']],
    // groc (Cloud Scheduler)
    [
      'every 2 hours synchronized',
      'FREQ=DAILY;BYHOUR=0,2,4,6,8,10,12,14,16,18,20,22;BYMINUTE=0;BYSECOND=0',
      ['2026-11-30T12:00:00Z'],
    ],
    [
      'every 2 hours from 08:00 to 18:00',
      'FREQ=DAILY;BYHOUR=8,10,12,14,16;BYMINUTE=0;BYSECOND=0',
      ['2026-11-30T12:00:00Z', '2026-11-30T14:00:00Z', '2026-11-30T16:00:00Z', '2026-12-01T08:00:00Z'],
    ],
    ['every mon,wed,fri 09:00', 'FREQ=WEEKLY;BYDAY=MO,WE,FR;BYHOUR=9;BYMINUTE=0;BYSECOND=0', ['2026-12-02T09:00:00Z']],
    // Quartz-style
    [
      'every monday, wednesday and friday at noon',
      'FREQ=WEEKLY;BYDAY=MO,WE,FR;BYHOUR=12;BYMINUTE=0;BYSECOND=0',
      ['2026-11-30T12:00:00Z', '2026-12-02T12:00:00Z'],
    ],
    [
      'on the first monday of the month',
      'FREQ=MONTHLY;BYDAY=1MO;BYHOUR=0;BYMINUTE=0;BYSECOND=0',
      ['2026-12-07T00:00:00Z', '2027-01-04T00:00:00Z'],
    ],
    [
      'last day of the month',
      'FREQ=MONTHLY;BYMONTHDAY=-1;BYHOUR=0;BYMINUTE=0;BYSECOND=0',
      ['2026-12-31T00:00:00Z', '2027-01-31T00:00:00Z', '2027-02-28T00:00:00Z'],
    ],
    [
      'last business day of the month at 5pm',
      'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=17;BYMINUTE=0;BYSECOND=0;BYSETPOS=-1',
      ['2026-11-30T17:00:00Z', '2026-12-31T17:00:00Z'],
    ],
    ['every 15 minutes on weekdays', 'FREQ=MINUTELY;INTERVAL=15;BYDAY=MO,TU,WE,TH,FR', ['2026-11-30T10:32:23Z']],
    [
      'every hour at minute 30',
      'FREQ=DAILY;BYHOUR=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23;BYMINUTE=30;BYSECOND=0',
      ['2026-11-30T10:30:00Z', '2026-11-30T11:30:00Z'],
    ],
    [
      'every 2 hours at 15 minutes past',
      'FREQ=DAILY;BYHOUR=0,2,4,6,8,10,12,14,16,18,20,22;BYMINUTE=15;BYSECOND=0',
      ['2026-11-30T12:15:00Z'],
    ],
    // several times a day, exceptions
    [
      'three times a day',
      'FREQ=DAILY;BYHOUR=0,8,16;BYMINUTE=0;BYSECOND=0',
      ['2026-11-30T16:00:00Z', '2026-12-01T00:00:00Z'],
    ],
    [
      'twice a day at 9am and 5pm',
      'FREQ=DAILY;BYHOUR=9,17;BYMINUTE=0;BYSECOND=0',
      ['2026-11-30T17:00:00Z', '2026-12-01T09:00:00Z'],
    ],
    ['every 15 minutes except sundays', 'FREQ=MINUTELY;INTERVAL=15;BYDAY=MO,TU,WE,TH,FR,SA', ['2026-11-30T10:32:23Z']],
    [
      'fortnightly on friday at 18:00',
      'FREQ=WEEKLY;INTERVAL=2;BYDAY=FR;BYHOUR=18;BYMINUTE=0;BYSECOND=0',
      ['2026-12-04T18:00:00Z'],
    ],
    [
      'quarterly on the 1st at 9am',
      'FREQ=MONTHLY;INTERVAL=3;BYMONTHDAY=1;BYHOUR=9;BYMINUTE=0;BYSECOND=0',
      ['2027-02-01T09:00:00Z'],
    ],
    // a step that does not divide the day counts elapsed time from that time on the reference's date
    [
      'every 5 hours starting at 2am',
      'FREQ=HOURLY;INTERVAL=5;DTSTART=20261130T120000',
      ['2026-11-30T12:00:00Z', '2026-11-30T17:00:00Z', '2026-11-30T22:00:00Z', '2026-12-01T03:00:00Z'],
    ],
  ] as Array<[string, string, string[]]>)('%s', (expr, canonical, next) => {
    const got = check(expr);
    expect(got.canonical).toBe(canonical);
    expect(got.next.slice(0, next.length)).toEqual(next);
  });

  it.each([
    ['7 times a day', 'out_of_range'],
    ['twice a day at 9am', 'conflict'],
    ['every 2 hours twice a day', 'conflict'],
    ['every day except monday, tuesday, wednesday, thursday, friday, saturday and sunday', 'never_fires'],
    ['every 2 weeks except mondays', 'conflict'],
    ['every day at minute 5', 'conflict'],
    ['starting at 9am', 'incomplete'],
  ])('%s is refused (%s) without a guessed suggestion', (expr, kind) => {
    const r = validateSchedule({ expr, reference: REF });
    expect(r.valid).toBe(false);
    expect(r.errors.map((e) => e.kind)).toContain(kind);
    expect(r.errors.every((e) => e.suggestion === null)).toBe(true);
  });

  it('the window rule when the interval does not divide the window: restart at the start every day', () => {
    const got = check('every 90 minutes between 9am and 5pm', 'UTC', 8);
    expect(got.next).toEqual([
      '2026-11-30T10:30:00Z',
      '2026-11-30T12:00:00Z',
      '2026-11-30T13:30:00Z',
      '2026-11-30T15:00:00Z',
      '2026-11-30T16:30:00Z',
      '2026-12-01T09:00:00Z',
      '2026-12-01T10:30:00Z',
      '2026-12-01T12:00:00Z',
    ]);
    expect(check('every 3 hours between 9am and 10am').next.slice(0, 2)).toEqual([
      '2026-12-01T09:00:00Z',
      '2026-12-02T09:00:00Z',
    ]);
  });
});

describe('EventBridge cron(): Quartz without the seconds field', () => {
  it.each([
    ['cron(0 12 * * ? *)', '0 0 12 * * ? *', ['2026-11-30T12:00:00Z', '2026-12-01T12:00:00Z']],
    ['cron(0/15 * ? * MON-FRI *)', '0 0/15 * ? * MON-FRI *', ['2026-11-30T10:30:00Z', '2026-11-30T10:45:00Z']],
    ['cron(15 10 ? * 6L 2027-2029)', '0 15 10 ? * 6L 2027-2029', ['2027-01-29T10:15:00Z', '2027-02-26T10:15:00Z']],
  ])('%s is the Quartz expression %s', (expr, canonical, next) => {
    const got = check(expr);
    expect(got.canonical).toBe(canonical);
    expect(got.next.slice(0, next.length)).toEqual(next);
  });

  it.each([
    ['cron(0 25 * * ? *)', 'out_of_range', 7, null],
    ['cron(0 12 ? * MONN *)', 'unknown_word', 14, 'MON'],
    ['cron(0 12 * * ?)', 'field_count', 5, null],
    ['cron(0 12 * * * *)', 'day_fields_conflict', 14, null],
  ])('%s: %s at byte %d of what was written', (expr, kind, position, suggestion) => {
    const r = validateSchedule({ expr, reference: REF });
    expect(r.valid).toBe(false);
    expect(r.errors[0]).toMatchObject({ kind, position, suggestion });
  });
});

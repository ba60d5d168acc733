/**
 * DST, leap days, month ends and year rollovers for natural (and RRULE) schedules.
 * Policy (decisions.md, RFC 5545): a wall time that does not exist moves forward by the gap; a
 * repeated wall time fires once, at its first instance. Sub-day intervals are elapsed time.
 */
import { DateTime } from 'luxon';
import { fires, natural, ok, rrule } from './natural-helpers';

/** Fire times as `UTC instant | local wall time with offset`. */
function walk(expr: string, zone: string, after: string, n: number): string[] {
  const s = ok(natural(expr, zone, new Date(after)));
  return fires(s, n, new Date(after)).map(
    (t) => `${t} | ${DateTime.fromISO(t, { zone }).toFormat('yyyy-MM-dd HH:mm ZZ')}`,
  );
}

type Walk = [name: string, expr: string, zone: string, after: string, expected: string[]];

/** A test per case, named `name`: the fire times of `expr` in `zone` after `after`, walked, are `expected`. */
function walks(cases: Walk[]): void {
  test.each(cases)('%s', (_name, expr, zone, after, expected) => {
    expect(walk(expr, zone, after, expected.length)).toEqual(expected);
  });
}

describe('spring forward: a nonexistent wall time moves forward by the gap', () => {
  walks([
    [
      'America/New_York, 2026-03-08 02:00 → 03:00: 02:30 fires at 03:30 EDT',
      'every day at 2:30',
      'America/New_York',
      '2026-03-07T00:00:00Z',
      [
        '2026-03-07T07:30:00Z | 2026-03-07 02:30 -05:00',
        '2026-03-08T07:30:00Z | 2026-03-08 03:30 -04:00',
        '2026-03-09T06:30:00Z | 2026-03-09 02:30 -04:00',
      ],
    ],
    [
      'Europe/London, 2026-03-29 01:00 → 02:00: 01:30 fires at 02:30 BST',
      'every day at 1:30',
      'Europe/London',
      '2026-03-28T00:00:00Z',
      [
        '2026-03-28T01:30:00Z | 2026-03-28 01:30 +00:00',
        '2026-03-29T01:30:00Z | 2026-03-29 02:30 +01:00',
        '2026-03-30T00:30:00Z | 2026-03-30 01:30 +01:00',
      ],
    ],
    [
      'Australia/Sydney, 2026-10-04 02:00 → 03:00',
      'every day at 2:30',
      'Australia/Sydney',
      '2026-10-02T00:00:00Z',
      [
        '2026-10-02T16:30:00Z | 2026-10-03 02:30 +10:00',
        '2026-10-03T16:30:00Z | 2026-10-04 03:30 +11:00',
        '2026-10-04T15:30:00Z | 2026-10-05 02:30 +11:00',
      ],
    ],
    [
      'Pacific/Chatham (+12:45 → +13:45), 2026-09-27 02:45 → 03:45: 03:00 fires at 04:00',
      'every day at 3:00',
      'Pacific/Chatham',
      '2026-09-25T00:00:00Z',
      [
        '2026-09-25T14:15:00Z | 2026-09-26 03:00 +12:45',
        '2026-09-26T14:15:00Z | 2026-09-27 04:00 +13:45',
        '2026-09-27T13:15:00Z | 2026-09-28 03:00 +13:45',
      ],
    ],
    [
      'a window: shifted times that land on existing ones fire once',
      'every 30 minutes between 1am and 4am',
      'America/New_York',
      '2026-03-08T00:00:00Z',
      [
        '2026-03-08T06:00:00Z | 2026-03-08 01:00 -05:00',
        '2026-03-08T06:30:00Z | 2026-03-08 01:30 -05:00',
        '2026-03-08T07:00:00Z | 2026-03-08 03:00 -04:00',
        '2026-03-08T07:30:00Z | 2026-03-08 03:30 -04:00',
        '2026-03-09T05:00:00Z | 2026-03-09 01:00 -04:00',
      ],
    ],
  ]);

  test('the RRULE kind follows the same policy', () => {
    const s = ok(rrule('DTSTART;TZID=America/New_York:20260307T023000\nRRULE:FREQ=DAILY;COUNT=3'));
    expect(fires(s, 5, new Date('2026-01-01T00:00:00Z'))).toEqual([
      '2026-03-07T07:30:00Z',
      '2026-03-08T07:30:00Z',
      '2026-03-09T06:30:00Z',
    ]);
  });
});

describe('fall back: a repeated wall time fires once, at its first instance', () => {
  walks([
    [
      'America/New_York, 2026-11-01 02:00 → 01:00: 01:30 fires at 01:30 EDT only',
      'every day at 1:30',
      'America/New_York',
      '2026-10-31T00:00:00Z',
      [
        '2026-10-31T05:30:00Z | 2026-10-31 01:30 -04:00',
        '2026-11-01T05:30:00Z | 2026-11-01 01:30 -04:00',
        '2026-11-02T06:30:00Z | 2026-11-02 01:30 -05:00',
      ],
    ],
    [
      'Europe/London, 2026-10-25 02:00 → 01:00',
      'every day at 1:30',
      'Europe/London',
      '2026-10-24T00:00:00Z',
      [
        '2026-10-24T00:30:00Z | 2026-10-24 01:30 +01:00',
        '2026-10-25T00:30:00Z | 2026-10-25 01:30 +01:00',
        '2026-10-26T01:30:00Z | 2026-10-26 01:30 +00:00',
      ],
    ],
    [
      'Australia/Sydney, 2026-04-05 03:00 → 02:00',
      'every day at 2:30',
      'Australia/Sydney',
      '2026-04-03T00:00:00Z',
      [
        '2026-04-03T15:30:00Z | 2026-04-04 02:30 +11:00',
        '2026-04-04T15:30:00Z | 2026-04-05 02:30 +11:00',
        '2026-04-05T16:30:00Z | 2026-04-06 02:30 +10:00',
      ],
    ],
    [
      'Pacific/Chatham, 2026-04-05 03:45 → 02:45',
      'every day at 3:00',
      'Pacific/Chatham',
      '2026-04-03T00:00:00Z',
      [
        '2026-04-03T13:15:00Z | 2026-04-04 03:00 +13:45',
        '2026-04-04T13:15:00Z | 2026-04-05 03:00 +13:45',
        '2026-04-05T14:15:00Z | 2026-04-06 03:00 +12:45',
      ],
    ],
    [
      'a window does not repeat the repeated hour',
      'every 30 minutes between 1am and 4am',
      'America/New_York',
      '2026-11-01T00:00:00Z',
      [
        '2026-11-01T05:00:00Z | 2026-11-01 01:00 -04:00',
        '2026-11-01T05:30:00Z | 2026-11-01 01:30 -04:00',
        '2026-11-01T07:00:00Z | 2026-11-01 02:00 -05:00',
        '2026-11-01T07:30:00Z | 2026-11-01 02:30 -05:00',
        '2026-11-01T08:00:00Z | 2026-11-01 03:00 -05:00',
        '2026-11-01T08:30:00Z | 2026-11-01 03:30 -05:00',
      ],
    ],
  ]);
});

describe('sub-day intervals are elapsed time across DST', () => {
  test.each([
    ['every 30 minutes', 'America/New_York', '2026-11-01T04:50:00Z', 30 * 60_000],
    ['every hour', 'America/New_York', '2026-03-08T05:10:00Z', 3_600_000],
    ['every 2 hours', 'Europe/London', '2026-10-24T22:00:00Z', 7_200_000],
    ['every 15 minutes', 'Pacific/Chatham', '2026-09-26T12:00:00Z', 900_000],
  ])('%s in %s', (expr, zone, ref, gap) => {
    const s = ok(natural(expr, zone, new Date(ref)));
    const t = s.next(new Date(ref), 12).map((d) => d.getTime());
    for (let i = 1; i < t.length; i++) {
      expect(t[i]! - t[i - 1]!).toBe(gap);
    }
    expect(t[0]! - new Date(ref).getTime()).toBe(gap);
  });
});

describe('a year of days', () => {
  test.each([
    ['America/New_York', '2026-03-08'],
    ['Europe/Berlin', '2026-03-29'],
    ['Australia/Sydney', '2026-10-04'],
  ])('every day at 2:30 in %s: 365 fires, 02:30 local except the gap day (%s) at 03:30', (zone, gapDay) => {
    const start = DateTime.fromISO('2026-01-01T00:00', { zone }).toJSDate();
    const s = ok(natural('every day at 2:30', zone, start));
    const all = s.next(start, 365).map((d) => DateTime.fromJSDate(d, { zone }));
    expect(all).toHaveLength(365);
    expect(all[0]!.toISODate()).toBe('2026-01-01');
    expect(all[364]!.toISODate()).toBe('2026-12-31');
    for (const d of all) {
      expect(d.toFormat('HH:mm')).toBe(d.toISODate() === gapDay ? '03:30' : '02:30');
    }
  });

  test('a zone without DST (Asia/Tokyo): the same UTC time all year', () => {
    const s = ok(natural('every day at 2:30', 'Asia/Tokyo', new Date('2026-01-01T00:00:00Z')));
    const all = s.next(new Date('2026-01-01T00:00:00Z'), 365);
    expect(new Set(all.map((d) => d.toISOString().slice(11)))).toEqual(new Set(['17:30:00.000Z']));
  });

  walks([
    [
      'a zone without DST (Asia/Kolkata, +05:30): weekdays',
      'every weekday at 9am',
      'Asia/Kolkata',
      '2026-03-06T00:00:00Z',
      ['2026-03-06T03:30:00Z | 2026-03-06 09:00 +05:30', '2026-03-09T03:30:00Z | 2026-03-09 09:00 +05:30'],
    ],
  ]);
});

describe('leap days', () => {
  walks([
    [
      'every year on feb 29 fires only in leap years',
      'every year on feb 29 at noon',
      'Europe/London',
      '2026-01-01T00:00:00Z',
      [
        '2028-02-29T12:00:00Z | 2028-02-29 12:00 +00:00',
        '2032-02-29T12:00:00Z | 2032-02-29 12:00 +00:00',
        '2036-02-29T12:00:00Z | 2036-02-29 12:00 +00:00',
        '2040-02-29T12:00:00Z | 2040-02-29 12:00 +00:00',
      ],
    ],
  ]);

  test('2100 is not a leap year', () => {
    const s = ok(natural('every year on feb 29', 'UTC'));
    expect(fires(s, 2, new Date('2096-03-01T00:00:00Z'))).toEqual(['2104-02-29T00:00:00Z', '2108-02-29T00:00:00Z']);
  });

  test('the last day of february follows leap years', () => {
    const s = ok(natural('last day of every month', 'UTC'));
    const feb = fires(s, 40, new Date('2027-01-01T00:00:00Z')).filter((t) => t.slice(5, 7) === '02');
    expect(feb).toEqual([
      '2027-02-28T00:00:00Z',
      '2028-02-29T00:00:00Z',
      '2029-02-28T00:00:00Z',
      '2030-02-28T00:00:00Z',
    ]);
  });
});

describe('month ends', () => {
  test('last day of every month', () => {
    const s = ok(natural('last day of every month at 23:59', 'America/New_York', new Date('2026-12-01T12:00:00Z')));
    expect(
      s
        .next(new Date('2026-12-01T12:00:00Z'), 12)
        .map((d) => DateTime.fromJSDate(d, { zone: 'America/New_York' }).toFormat('MM-dd HH:mm')),
    ).toEqual([
      '12-31 23:59',
      '01-31 23:59',
      '02-28 23:59',
      '03-31 23:59',
      '04-30 23:59',
      '05-31 23:59',
      '06-30 23:59',
      '07-31 23:59',
      '08-31 23:59',
      '09-30 23:59',
      '10-31 23:59',
      '11-30 23:59',
    ]);
  });

  test('the 31st skips months without one (RFC 5545)', () => {
    const s = ok(natural('every month on the 31st', 'UTC'));
    expect(fires(s, 4, new Date('2027-01-01T00:00:00Z'))).toEqual([
      '2027-01-31T00:00:00Z',
      '2027-03-31T00:00:00Z',
      '2027-05-31T00:00:00Z',
      '2027-07-31T00:00:00Z',
    ]);
  });
});

describe('year rollovers', () => {
  walks([
    [
      'every day at 23:30 across New Year in Pacific/Auckland (summer time)',
      'every day at 23:30',
      'Pacific/Auckland',
      '2026-12-30T00:00:00Z',
      [
        '2026-12-30T10:30:00Z | 2026-12-30 23:30 +13:00',
        '2026-12-31T10:30:00Z | 2026-12-31 23:30 +13:00',
        '2027-01-01T10:30:00Z | 2027-01-01 23:30 +13:00',
      ],
    ],
  ]);

  test('every 2 weeks across a year with 53 ISO weeks', () => {
    const s = ok(natural('every 2 weeks on monday at 9am starting 2026-12-14', 'UTC'));
    expect(fires(s, 3, new Date('2026-12-01T00:00:00Z'))).toEqual([
      '2026-12-14T09:00:00Z',
      '2026-12-28T09:00:00Z',
      '2027-01-11T09:00:00Z',
    ]);
  });

  test('every last friday from December into January', () => {
    const s = ok(natural('every last friday at 17:00', 'Europe/Berlin'));
    expect(fires(s, 2, new Date('2026-12-01T00:00:00Z'))).toEqual(['2026-12-25T16:00:00Z', '2027-01-29T16:00:00Z']);
  });

  test('every year on jan 1 at 00:00 in Pacific/Honolulu (UTC-10) fires at 10:00 UTC', () => {
    const s = ok(natural('every year on jan 1 at 00:00', 'Pacific/Honolulu'));
    expect(fires(s, 2, new Date('2026-06-01T00:00:00Z'))).toEqual(['2027-01-01T10:00:00Z', '2028-01-01T10:00:00Z']);
  });

  test("one-off tomorrow on New Year's Eve", () => {
    const s = ok(natural('tomorrow at 9am', 'Asia/Tokyo', new Date('2026-12-31T05:00:00Z')));
    expect(fires(s, 2, new Date('2026-12-31T05:00:00Z'))).toEqual(['2027-01-01T00:00:00Z']);
  });
});

/**
 * Raw RFC 5545 rules (kind `rrule`), grouped by: lines and DTSTART, rule parts, validation errors,
 * and a differential check against the `rrule` package in UTC (where its time-zone handling does
 * not matter).
 */
import { rrulestr } from 'rrule';
import { looksLikeRrule } from '../src/grammar/rrule';
import { REF, bytePos, errs, fires, ok, rrule, rrulejsFires } from './natural-helpers';

describe('detection', () => {
  test.each([
    ['RRULE:FREQ=DAILY', true],
    ['FREQ=WEEKLY;BYDAY=MO', true],
    ['  freq=daily', true],
    ['DTSTART:20261204T090000Z\nRRULE:FREQ=DAILY', true],
    ['DTSTART;TZID=Europe/Berlin:20261204T090000\nRRULE:FREQ=DAILY', true],
    ['every day at 9am', false],
    ['0 0 12 * * ?', false],
  ])('looksLikeRrule(%j) is %s', (expr, expected) => {
    expect(looksLikeRrule(expr)).toBe(expected);
  });
});

describe('lines and DTSTART', () => {
  test('RRULE: line without DTSTART is anchored at the reference', () => {
    const s = ok(rrule('RRULE:FREQ=WEEKLY;BYDAY=MO,WE;BYHOUR=9;BYMINUTE=0;BYSECOND=0', 'Europe/Berlin'));
    expect(s.kind).toBe('rrule');
    expect(s.canonical).toBe('FREQ=WEEKLY;BYDAY=MO,WE;BYHOUR=9;BYMINUTE=0;BYSECOND=0');
    expect(s.description).toBe('Every Monday and Wednesday at 09:00 (Europe/Berlin)');
    expect(fires(s, 3)).toEqual(['2026-12-02T08:00:00Z', '2026-12-07T08:00:00Z', '2026-12-09T08:00:00Z']);
  });

  test('DTSTART;TZID sets the zone and the time of day', () => {
    const s = ok(rrule('DTSTART;TZID=Europe/Berlin:20261204T090000\nRRULE:FREQ=DAILY;COUNT=3'));
    expect(s.timezone).toBe('Europe/Berlin');
    expect(s.canonical).toBe('FREQ=DAILY;COUNT=3;DTSTART=20261204T090000');
    expect(s.description).toBe('Every day, starting 2026-12-04 09:00, 3 times (Europe/Berlin)');
    expect(fires(s, 10)).toEqual(['2026-12-04T08:00:00Z', '2026-12-05T08:00:00Z', '2026-12-06T08:00:00Z']);
  });

  test('a UTC DTSTART is an instant, read as wall time in the job zone (09:00 Berlin)', () => {
    const s = ok(rrule('DTSTART:20261204T080000Z\r\nRRULE:FREQ=DAILY;COUNT=2', 'Europe/Berlin'));
    expect(fires(s, 10)).toEqual(['2026-12-04T08:00:00Z', '2026-12-05T08:00:00Z']);
  });

  test('a floating DTSTART is wall time in the job zone', () => {
    const s = ok(rrule('DTSTART:20261204T090000\nRRULE:FREQ=DAILY;COUNT=1', 'America/New_York'));
    expect(s.oneOff).toBe(true);
    expect(s.description).toBe('Once at 2026-12-04 09:00 (America/New_York)');
    expect(fires(s, 10)).toEqual(['2026-12-04T14:00:00Z']);
  });

  test('our canonical form (DTSTART as a part) round-trips', () => {
    const s = ok(rrule('FREQ=DAILY;COUNT=1;DTSTART=20261201T080000Z', 'Europe/Berlin'));
    expect(s.canonical).toBe('FREQ=DAILY;COUNT=1;DTSTART=20261201T080000Z');
    expect(fires(s, 3)).toEqual(['2026-12-01T08:00:00Z']);
  });
});

describe('rule parts', () => {
  test.each([
    [
      'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;BYHOUR=17;BYMINUTE=0;BYSECOND=0',
      'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=17;BYMINUTE=0;BYSECOND=0;BYSETPOS=-1',
      ['2026-11-30T17:00:00Z', '2026-12-31T17:00:00Z', '2027-01-29T17:00:00Z'],
    ],
    [
      'FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO;BYHOUR=8;BYMINUTE=0;BYSECOND=0',
      'FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO;BYHOUR=8;BYMINUTE=0;BYSECOND=0',
      ['2027-05-17T08:00:00Z', '2028-05-15T08:00:00Z'],
    ],
    [
      'FREQ=YEARLY;BYYEARDAY=1,100,-1;BYHOUR=6;BYMINUTE=0;BYSECOND=0',
      'FREQ=YEARLY;BYYEARDAY=1,100,-1;BYHOUR=6;BYMINUTE=0;BYSECOND=0',
      ['2026-12-31T06:00:00Z', '2027-01-01T06:00:00Z', '2027-04-10T06:00:00Z'],
    ],
    [
      'FREQ=MINUTELY;INTERVAL=15;BYHOUR=9,10;BYDAY=MO',
      'FREQ=MINUTELY;INTERVAL=15;BYDAY=MO;BYHOUR=9,10',
      ['2026-11-30T10:32:23Z', '2026-11-30T10:47:23Z', '2026-12-07T09:02:23Z'],
    ],
    [
      'FREQ=HOURLY;BYMINUTE=0,30;BYSECOND=0',
      'FREQ=HOURLY;BYMINUTE=0,30;BYSECOND=0',
      ['2026-11-30T10:30:00Z', '2026-11-30T11:00:00Z'],
    ],
    [
      'freq=weekly;wkst=su;interval=2;byday=su,mo;byhour=7;byminute=0;bysecond=0',
      'FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,SU;BYHOUR=7;BYMINUTE=0;BYSECOND=0;WKST=SU',
      ['2026-12-13T07:00:00Z', '2026-12-14T07:00:00Z'],
    ],
    [
      'FREQ=DAILY;UNTIL=20261202;BYHOUR=12;BYMINUTE=0;BYSECOND=0',
      'FREQ=DAILY;BYHOUR=12;BYMINUTE=0;BYSECOND=0;UNTIL=20261202T235959',
      ['2026-11-30T12:00:00Z', '2026-12-01T12:00:00Z', '2026-12-02T12:00:00Z'],
    ],
  ])('%s', (expr, canonical, next) => {
    const s = ok(rrule(expr));
    expect(s.canonical).toBe(canonical);
    expect(fires(s, next.length + (canonical.includes('UNTIL') ? 5 : 0))).toEqual(next);
  });
});

describe('validation errors (positions in UTF-8 bytes)', () => {
  test('several independent errors at once, with suggestions', () => {
    const expr = 'FREQ=DAYLY;BYHOUR=25;BYDAI=MO';
    const e = errs(rrule(expr));
    expect(e.map((x) => [x.kind, x.position, x.length, x.suggestion])).toEqual([
      ['invalid_value', 5, 5, 'DAILY'],
      ['out_of_range', bytePos(expr, '25'), 2, null],
      ['unknown_part', bytePos(expr, 'BYDAI'), 5, 'BYDAY'],
    ]);
    expect(e[1]!.message).toContain('hours go from 0 to 23');
  });

  test('RFC 5545 combination rules', () => {
    const e = errs(rrule('RRULE:FREQ=WEEKLY;BYDAY=1MO;COUNT=2;UNTIL=20270101'));
    expect(e.map((x) => x.kind)).toEqual(['invalid_value', 'conflict']);
    expect(e[0]!.message).toContain('needs FREQ=MONTHLY or FREQ=YEARLY');
    expect(e[1]!.message).toContain('COUNT and UNTIL');
    expect(errs(rrule('FREQ=DAILY;BYWEEKNO=3'))[0]!.message).toContain('only allowed with FREQ=YEARLY');
    expect(errs(rrule('FREQ=WEEKLY;BYMONTHDAY=3'))[0]!.kind).toBe('conflict');
    expect(errs(rrule('FREQ=DAILY;BYSETPOS=1'))[0]!.message).toContain('BYSETPOS needs');
    expect(errs(rrule('RRULE:BYHOUR=9'))[0]!.message).toContain('FREQ is required');
  });

  test('unknown TZID and a TZID that disagrees with the job zone', () => {
    const e = errs(rrule('DTSTART;TZID=Mars/Base:20261204T090000\nRRULE:FREQ=DAILY'));
    expect(e[0]).toMatchObject({ kind: 'unknown_timezone', position: 13, length: 9 });
    const c = errs(rrule('DTSTART;TZID=Europe/Berlin:20261204T090000\nRRULE:FREQ=DAILY', 'Asia/Tokyo'));
    expect(c[0]).toMatchObject({ kind: 'timezone_conflict', position: 13, length: 13, suggestion: 'Asia/Tokyo' });
  });

  test('positions count bytes after a multi-byte character', () => {
    const expr = 'DTSTART;TZID=Europe/Zürich:20261204T090000\nRRULE:FREQ=DAILY;BYMINUTE=99';
    const e = errs(rrule(expr));
    const range = e.find((x) => x.kind === 'out_of_range')!;
    expect(range.position).toBe(bytePos(expr, '99'));
    expect(range.position).toBe(expr.indexOf('99') + 1);
  });

  test('bad dates and unsupported lines', () => {
    expect(errs(rrule('DTSTART:20260230T090000\nRRULE:FREQ=DAILY'))[0]).toMatchObject({
      kind: 'out_of_range',
      position: 8,
      length: 15,
    });
    expect(errs(rrule('RRULE:FREQ=DAILY\nEXRULE:FREQ=WEEKLY'))[0]).toMatchObject({
      kind: 'unsupported',
      position: 17,
      length: 6,
    });
  });
});

describe('differential: same fire times as the rrule package in UTC', () => {
  const dt = 'DTSTART:20261130T101723Z';
  test.each([
    'FREQ=DAILY;BYHOUR=9;BYMINUTE=30;BYSECOND=0',
    'FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,FR;BYHOUR=8;BYMINUTE=0;BYSECOND=0',
    'FREQ=MONTHLY;BYMONTHDAY=31;BYHOUR=0;BYMINUTE=0;BYSECOND=0',
    'FREQ=MONTHLY;BYMONTHDAY=15,-1;BYHOUR=12;BYMINUTE=0;BYSECOND=0',
    'FREQ=MONTHLY;BYDAY=-1FR;BYHOUR=18;BYMINUTE=0;BYSECOND=0',
    'FREQ=MONTHLY;BYDAY=2MO,4MO;BYHOUR=9;BYMINUTE=0;BYSECOND=0',
    'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=1,-1;BYHOUR=9;BYMINUTE=0;BYSECOND=0',
    'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;BYHOUR=0;BYMINUTE=0;BYSECOND=0',
    'FREQ=YEARLY;BYMONTH=3,9;BYDAY=1SU;BYHOUR=6;BYMINUTE=0;BYSECOND=0',
    'FREQ=YEARLY;BYYEARDAY=1,-1;BYHOUR=6;BYMINUTE=0;BYSECOND=0',
    'FREQ=DAILY;INTERVAL=3;BYMONTH=1,7;BYHOUR=7,19;BYMINUTE=15;BYSECOND=0',
    'FREQ=WEEKLY;BYDAY=MO,WE,FR;BYHOUR=8,20;BYMINUTE=0,30;BYSECOND=0;BYSETPOS=1,-1',
    'FREQ=DAILY;BYMONTHDAY=13;BYDAY=FR;BYHOUR=0;BYMINUTE=0;BYSECOND=0',
    'FREQ=MONTHLY;INTERVAL=5;BYMONTHDAY=10;BYHOUR=1;BYMINUTE=2;BYSECOND=3',
    // BYSETPOS positions inside a day x time-of-day product, from both ends and past its size
    'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR,SA,SU;BYHOUR=9,17;BYMINUTE=0,30;BYSECOND=0,45;BYSETPOS=1,3,8,9,-1,-3,-9',
    'FREQ=YEARLY;BYMONTH=2,6;BYMONTHDAY=1,-1;BYHOUR=0,12;BYMINUTE=5;BYSECOND=0;BYSETPOS=2,-2',
  ])('%s', (rule) => {
    const expected = rrulejsFires(rrulestr(`${dt}\nRRULE:${rule}`), 60);
    const s = ok(rrule(`${dt}\nRRULE:${rule}`));
    expect(fires(s, 60)).toEqual(expected);
  });
});

test('a BYSETPOS beyond the size of the set selects nothing (RFC 5545; the rrule package wraps -300 to 17:00 on the 1st)', () => {
  const base = `DTSTART:20261130T101723Z\nRRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR,SA,SU;BYHOUR=9,17;BYMINUTE=0,30;BYSECOND=0,45`;
  const inRange = fires(ok(rrule(`${base};BYSETPOS=1,-1`)), 40);
  expect(inRange).toHaveLength(40);
  // a month holds at most 31 x 8 = 248 candidates
  expect(fires(ok(rrule(`${base};BYSETPOS=1,-1,300,-300`)), 40)).toEqual(inRange);
});

describe('budget', () => {
  test('a rule that almost never matches returns the budget error instead of hanging', () => {
    const { compileSchedule, createStepBudget, ScheduleBudgetError } = require('../src') as typeof import('../src');
    const s = ok(
      compileSchedule({ expr: 'RRULE:FREQ=SECONDLY;INTERVAL=86399;BYHOUR=3;BYMINUTE=7;BYSECOND=11', reference: REF }),
    );
    expect(() => s.next(REF, 5, createStepBudget(1_000))).toThrow(ScheduleBudgetError);
  });

  const EVERY_SECOND = `BYHOUR=${seq(24)};BYMINUTE=${seq(60)};BYSECOND=${seq(60)}`;

  test('BYSETPOS over every second of a year picks by position without building the 31.5 million candidates', () => {
    const { createBudget } = require('../src') as typeof import('../src');
    // a clock that advances 1 ms per reading: the 100 ms budget allows ~6,400 checks
    let t = 0;
    const s = ok(rrule(`FREQ=YEARLY;BYDAY=MO,TU,WE,TH,FR,SA,SU;${EVERY_SECOND};BYSETPOS=1,-1`));
    const got = s
      .next(
        REF,
        4,
        createBudget(100, () => t++),
      )
      .map((d) => d.toISOString());
    expect(got).toEqual([
      '2026-12-31T23:59:59.000Z',
      '2027-01-01T00:00:00.000Z',
      '2027-12-31T23:59:59.000Z',
      '2028-01-01T00:00:00.000Z',
    ]);
  });

  test.each([
    ['UTC', REF],
    // across the spring-forward gap: 02:00-02:59 local do not exist
    ['Europe/Berlin', new Date('2027-03-28T00:59:00Z')],
    // across the fall-back overlap: 01:00-01:59 local happen twice
    ['America/New_York', new Date('2026-11-01T05:59:00Z')],
  ])(
    'every second of every day of the year (%s) yields the same fire times as a daily rule, within the budget',
    (zone, after) => {
      const { createBudget } = require('../src') as typeof import('../src');
      // a clock that advances 1 ms per reading: walking the year up to `after` would spend the budget
      let t = 0;
      const dense = ok(rrule(`FREQ=YEARLY;BYDAY=MO,TU,WE,TH,FR,SA,SU;${EVERY_SECOND}`, zone, after));
      const got = dense.next(
        after,
        7_200,
        createBudget(100, () => t++),
      );
      expect(got).toEqual(ok(rrule(`FREQ=DAILY;${EVERY_SECOND}`, zone, after)).next(after, 7_200));
      const seconds = got.map((d) => d.getTime() / 1000);
      expect(seconds.every((x, i) => i === 0 || x > seconds[i - 1]!)).toBe(true);
      if (zone === 'America/New_York') {
        // a repeated wall time fires once, at its first instance (RFC 5545): the EST pass of 01:xx is skipped
        expect(got.map((d) => d.toISOString())).toContain('2026-11-01T05:59:59.000Z');
        expect(
          got.some(
            (d) =>
              d.getTime() >= Date.parse('2026-11-01T06:00:00Z') && d.getTime() < Date.parse('2026-11-01T07:00:00Z'),
          ),
        ).toBe(false);
        expect(got.map((d) => d.toISOString())).toContain('2026-11-01T07:00:00.000Z');
      } else {
        expect(seconds.every((x, i) => i === 0 || x === seconds[i - 1]! + 1)).toBe(true);
      }
    },
  );

  test('every second of a year with a COUNT from 1900 walks only to its count and never fires again', () => {
    const { createBudget } = require('../src') as typeof import('../src');
    let t = 0;
    const s = ok(
      rrule(`DTSTART:19000101T000000Z\nRRULE:FREQ=YEARLY;BYDAY=MO,TU,WE,TH,FR,SA,SU;${EVERY_SECOND};COUNT=1000000`),
    );
    // its last fire time is 1900-01-12T13:46:39Z
    expect(
      s.next(
        new Date('1900-01-12T13:46:38Z'),
        5,
        createBudget(100, () => t++),
      ),
    ).toEqual([new Date('1900-01-12T13:46:39Z')]);
    expect(
      s.next(
        REF,
        1,
        createBudget(100, () => t++),
      ),
    ).toEqual([]);
  });

  test('an HOURLY rule with 3,600 candidates per period that can never fire returns the budget error', () => {
    const { createBudget, ScheduleBudgetError } = require('../src') as typeof import('../src');
    let t = 0;
    // periods start at even hours, BYHOUR=1 is odd: only scanning to the horizon could prove it never fires
    const s = ok(
      rrule(`DTSTART:20260101T000000Z\nRRULE:FREQ=HOURLY;INTERVAL=2;BYHOUR=1;BYMINUTE=${seq(60)};BYSECOND=${seq(60)}`),
    );
    expect(() =>
      s.next(
        REF,
        1,
        createBudget(100, () => (t += 10)),
      ),
    ).toThrow(ScheduleBudgetError);
  });

  test('a rule that can never fire returns no fire times quickly', () => {
    const s = ok(rrule('FREQ=MONTHLY;INTERVAL=2;BYMONTH=2;BYMONTHDAY=1', 'UTC', new Date('2027-01-15T00:00:00Z')));
    expect(s.next(REF, 5)).toEqual([]);
    expect(ok(rrule('FREQ=YEARLY;BYMONTH=4;BYMONTHDAY=31')).next(REF, 5)).toEqual([]);
  });
});

function seq(n: number): string {
  return Array.from({ length: n }, (_, i) => i).join(',');
}

/**
 * RRULE `EXDATE` and `RDATE` (issue 45): accepted in every form RFC 5545 gives them (UTC, TZID,
 * floating, `VALUE=DATE` for EXDATE), honoured in the schedule's zone, shown in the description and
 * kept by the canonical form; and the same recurrence sets as the `rrule` package's `RRuleSet` in
 * UTC, by a seeded property test.
 */
import { rrulestr } from 'rrule';
import { compileSchedule } from '../src';
import { REF, bytePos, errs, fires, ok, rrule, rrulejsFires } from './natural-helpers';

const DAILY_9 = 'RRULE:FREQ=DAILY;BYHOUR=9;BYMINUTE=0;BYSECOND=0';

describe('EXDATE', () => {
  test('a UTC value removes that instance', () => {
    const s = ok(rrule(`${DAILY_9}\nEXDATE:20261202T090000Z`));
    expect(fires(s, 3)).toEqual(['2026-12-01T09:00:00Z', '2026-12-03T09:00:00Z', '2026-12-04T09:00:00Z']);
    expect(s.description).toBe('Every day at 09:00, except 2026-12-02 09:00 (UTC)');
  });

  test('TZID and floating values are wall times; several values and lines add up', () => {
    const s = ok(
      rrule(
        `${DAILY_9}\nEXDATE;TZID=Europe/Berlin:20261201T090000,20261203T090000\nEXDATE:20261204T090000`,
        'Europe/Berlin',
      ),
    );
    expect(fires(s, 2)).toEqual(['2026-12-02T08:00:00Z', '2026-12-05T08:00:00Z']);
  });

  test('a TZID other than the schedule’s zone names the same instant in that zone', () => {
    // 09:00 in Berlin is 03:00 in New York (EST) on 2026-12-02
    const s = ok(rrule(`${DAILY_9}\nEXDATE;TZID=America/New_York:20261202T030000`, 'Europe/Berlin'));
    expect(fires(s, 2)).toEqual(['2026-12-01T08:00:00Z', '2026-12-03T08:00:00Z']);
  });

  test('VALUE=DATE (or a bare date) removes every occurrence of that day in the schedule’s zone', () => {
    const hourly = 'RRULE:FREQ=HOURLY;BYMINUTE=0;BYSECOND=0';
    const s = ok(rrule(`${hourly}\nEXDATE;VALUE=DATE:20261201`, 'Asia/Tokyo'));
    // 2026-12-01 in Tokyo is 2026-11-30T15:00Z .. 2026-12-01T15:00Z
    expect(fires(s, 2, new Date('2026-11-30T13:30:00Z'))).toEqual(['2026-11-30T14:00:00Z', '2026-12-01T15:00:00Z']);
    expect(fires(ok(rrule(`${hourly}\nEXDATE:20261201`, 'Asia/Tokyo')), 2, new Date('2026-11-30T13:30:00Z'))).toEqual([
      '2026-11-30T14:00:00Z',
      '2026-12-01T15:00:00Z',
    ]);
    expect(s.description).toContain('except 2026-12-01');
  });

  test('a wall time in a DST gap is the instance the rule shifted there (RFC 5545)', () => {
    // 02:30 does not exist in New York on 2027-03-14: the rule's instance is 03:30 EDT (07:30Z)
    const rule = 'RRULE:FREQ=DAILY;BYHOUR=2;BYMINUTE=30;BYSECOND=0';
    const s = ok(rrule(`${rule}\nEXDATE;TZID=America/New_York:20270314T023000`, 'America/New_York'));
    expect(fires(s, 2, new Date('2027-03-13T12:00:00Z'))).toEqual(['2027-03-15T06:30:00Z', '2027-03-16T06:30:00Z']);
  });

  test('COUNT counts the rule’s instances before exclusion (RFC 5545 → recurrence set)', () => {
    const s = ok(rrule(`DTSTART:20261201T090000Z\nRRULE:FREQ=DAILY;COUNT=3\nEXDATE:20261202T090000Z`));
    expect(fires(s, 5)).toEqual(['2026-12-01T09:00:00Z', '2026-12-03T09:00:00Z']);
  });

  test('an EXDATE that is no instance changes nothing; excluding everything leaves nothing', () => {
    expect(fires(ok(rrule(`${DAILY_9}\nEXDATE:20261202T093000Z`)), 2)).toEqual([
      '2026-12-01T09:00:00Z',
      '2026-12-02T09:00:00Z',
    ]);
    const s = ok(rrule(`DTSTART:20261201T090000Z\nRRULE:FREQ=DAILY;COUNT=2\nEXDATE:20261201T090000Z,20261202T090000Z`));
    expect(fires(s, 3)).toEqual([]);
  });
});

describe('RDATE', () => {
  test('adds instances in order, once, and EXDATE removes them too', () => {
    const s = ok(
      rrule(
        `${DAILY_9}\nRDATE:20261201T120000Z,20261202T090000Z\nRDATE;TZID=Europe/Berlin:20261203T180000\nEXDATE:20261202T090000Z`,
      ),
    );
    expect(fires(s, 5)).toEqual([
      '2026-12-01T09:00:00Z',
      '2026-12-01T12:00:00Z',
      '2026-12-03T09:00:00Z',
      '2026-12-03T17:00:00Z',
      '2026-12-04T09:00:00Z',
    ]);
    expect(s.description).toBe(
      'Every day at 09:00, except 2026-12-02 09:00, also 2026-12-01 12:00, 2026-12-02 09:00 and 2026-12-03 17:00 (UTC)',
    );
    expect(s.oneOff).toBe(false);
    expect(s.minGapLowerBoundMs).toBeUndefined();
  });

  test('an RDATE before `after` is not returned; after a rule that ended, RDATEs still fire', () => {
    const s = ok(rrule(`DTSTART:20261201T090000Z\nRRULE:FREQ=DAILY;COUNT=1\nRDATE:20270101T000000Z`));
    expect(fires(s, 3)).toEqual(['2026-12-01T09:00:00Z', '2027-01-01T00:00:00Z']);
    expect(fires(s, 3, new Date('2026-12-02T00:00:00Z'))).toEqual(['2027-01-01T00:00:00Z']);
  });
});

describe('canonical form', () => {
  test('carries the exceptions as UTC lines and compiles to the same fire times', () => {
    const expr = `${DAILY_9}\nEXDATE;TZID=Europe/Berlin:20261202T090000\nEXDATE;VALUE=DATE:20261205\nRDATE:20261201T120000Z`;
    const s = ok(rrule(expr, 'Europe/Berlin'));
    expect(s.canonical).toBe(
      'FREQ=DAILY;BYHOUR=9;BYMINUTE=0;BYSECOND=0\nEXDATE;VALUE=DATE:20261205\nEXDATE:20261202T080000Z\nRDATE:20261201T120000Z',
    );
    expect(fires(ok(rrule(s.canonical, 'Europe/Berlin')), 8)).toEqual(fires(s, 8));
  });

  test('is detected as an RRULE whatever line comes first', () => {
    const s = compileSchedule({ expr: `EXDATE:20261202T090000Z\n${DAILY_9}`, reference: REF });
    expect(s.ok && s.kindDetected).toBe('rrule');
  });
});

describe('errors', () => {
  test.each([
    [`${DAILY_9}\nEXDATE;VALUE=PERIOD:20261202T090000Z/PT1H`, 'invalid_value', 'VALUE=PERIOD'],
    [`${DAILY_9}\nRDATE:20261202`, 'invalid_value', '20261202'],
    [`${DAILY_9}\nEXDATE;VALUE=DATE:20261202T090000`, 'invalid_value', '20261202T090000'],
    [`${DAILY_9}\nEXDATE;TZID=Europe/Berlin:20261202T090000Z`, 'conflict', '20261202T090000Z'],
    [`${DAILY_9}\nEXDATE;TZID=Mars/Base:20261202T090000`, 'unknown_timezone', 'Mars/Base'],
    [`${DAILY_9}\nEXDATE:20261232T090000Z`, 'out_of_range', '20261232T090000Z'],
    [`${DAILY_9}\nEXDATE`, 'invalid_value', 'EXDATE'],
  ])('%j → %s at %j', (expr, kind, at) => {
    const [error] = errs(rrule(expr));
    expect(error).toMatchObject({ kind, position: bytePos(expr, at) });
  });
});

describe('property: the same recurrence set as the rrule package’s RRuleSet in UTC', () => {
  const RULES = [
    'FREQ=DAILY;BYHOUR=9;BYMINUTE=30;BYSECOND=0',
    'FREQ=HOURLY;INTERVAL=5;BYMINUTE=0;BYSECOND=0',
    'FREQ=WEEKLY;BYDAY=MO,TH;BYHOUR=8,20;BYMINUTE=0;BYSECOND=0',
    'FREQ=MONTHLY;BYMONTHDAY=1,15,-1;BYHOUR=0;BYMINUTE=0;BYSECOND=0',
  ];
  /** mulberry32: a seeded generator, so a failure names its seed. */
  function random(seed: number): () => number {
    let a = seed >>> 0;
    return () => {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  const basic = (ms: number): string => new Date(ms).toISOString().replace(/[-:]|\.\d+/g, '');

  test.each(Array.from({ length: 40 }, (_, i) => 1_000 + i))('seed %i', (seed) => {
    const rnd = random(seed);
    const rule = RULES[Math.floor(rnd() * RULES.length)]!;
    const dtstart = 'DTSTART:20261130T101723Z';
    const own = ok(rrule(`${dtstart}\nRRULE:${rule}`)).next(REF, 40);
    const exdates = own.filter(() => rnd() < 0.3).map((d) => d.getTime());
    const start = REF.getTime();
    const rdates = Array.from(
      { length: 1 + Math.floor(rnd() * 5) },
      () => start + Math.floor(rnd() * 40 * 86_400) * 1000,
    );
    const lines = [dtstart, `RRULE:${rule}`];
    if (exdates.length) {
      lines.push(`EXDATE:${exdates.map(basic).join(',')}`);
    }
    lines.push(`RDATE:${rdates.map(basic).join(',')}`);
    const expr = lines.join('\n');

    const expected = rrulejsFires(rrulestr(expr, { forceset: true }), 30);
    expect(fires(ok(rrule(expr)), 30)).toEqual(expected);
  });
});

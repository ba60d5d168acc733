/**
 * Suggestions never change the meaning (issue #24). Inputs are generated together with what they
 * mean — a schedule written correctly — and then broken the ways people break them: a misspelt
 * word, a plural unit without its number, a dangling `and`, `13pm`, a Quartz or cron step past
 * its bound, `/5` without its `*`. For every error that carries a suggestion, following it (the
 * suggestion in place of the flagged text, or as the whole expression) must give a schedule with
 * the same fire times as the intended one, compared over a window of fire times.
 *
 * The one class of input with no intended meaning is a contradiction (`every weekday on saturday`
 * never fires): there the suggestion must be exactly the expression without the flagged text.
 * Separately, intervals of any length must mean the RRULE with the same interval.
 */
import fc from 'fast-check';
import { compileSchedule, UNLIMITED_BUDGET, type ScheduleError, type ScheduleInput } from '@svc/schedule';

const REF = new Date('2026-11-30T10:17:23.456Z');
const LATER = new Date('2028-02-27T23:00:00Z');
const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe'];

type Kind = NonNullable<ScheduleInput['kind']>;

function fireTimes(expr: string, kind: Kind, timezone: string): string | null {
  const r = compileSchedule({ expr, kind, timezone, reference: REF });
  if (!r.ok) {
    return null;
  }
  const at = (after: Date, n: number): string =>
    r.schedule
      .next(after, n, UNLIMITED_BUDGET)
      .map((d) => d.toISOString())
      .join(' ');
  return `${at(REF, 40)} | ${at(LATER, 10)}`;
}

/** Byte offsets of the error → string indices (the generated inputs are ASCII). */
function applied(expr: string, e: ScheduleError): string[] {
  const s = e.suggestion!;
  return [expr.slice(0, e.position) + s + expr.slice(e.position + e.length), s];
}

/** Every suggestion of `broken` keeps the fire times of `meant`; returns the offending ones. */
function meaningChanges(broken: string, meant: string, kind: Kind, timezone: string): string[] {
  const want = fireTimes(meant, kind, timezone);
  if (want === null) {
    throw new Error(`the intended schedule ${JSON.stringify(meant)} does not compile`);
  }
  const r = compileSchedule({ expr: broken, kind, timezone, reference: REF });
  if (r.ok) {
    return [];
  }
  return r.errors
    .filter((e) => e.suggestion !== null)
    .filter((e) => !applied(broken, e).some((fixed) => fireTimes(fixed, kind, timezone) === want))
    .map(
      (e) =>
        `${JSON.stringify(broken)}: suggestion ${JSON.stringify(e.suggestion)} (${e.kind}) is not ${JSON.stringify(meant)}`,
    );
}

const pick = <T>(xs: readonly T[]): fc.Arbitrary<T> => fc.constantFrom(...xs);

const BASES = [
  'every monday at 9am',
  'every weekday at 17:30',
  'every tuesday and thursday at 8am',
  'every 15 minutes on weekdays',
  'every 90 minutes between 9am and 5pm on fridays',
  'every 3 hours starting at 2am',
  'twice a day except saturdays',
  'on the first wednesday of every month at noon',
  'every month on the 15th at 6pm',
  'every year on december 25 at 8am',
  'every 2 weeks on saturday at 10:00',
  'the last weekday of every month at 9am',
  'every 36 hours',
  'every 18 months',
  'every sunday in march and april at midnight',
];

/** A one-letter mistake in a word of at least 5 letters. */
const typo = fc
  .tuple(
    pick(BASES),
    fc.nat(),
    fc.nat(),
    pick(['substitute', 'delete', 'swap', 'double']),
    pick([...'abcdefghijklmnopqrstuvwxyz']),
  )
  .map(([base, w, p, how, c]) => {
    const words = base.split(' ');
    const long = words.map((x, i) => (/^[a-z]{5,}$/.test(x) ? i : -1)).filter((i) => i >= 0);
    const i = long[w % long.length]!;
    const word = words[i]!;
    const k = 1 + (p % (word.length - 2));
    const bad =
      how === 'substitute'
        ? word.slice(0, k) + c + word.slice(k + 1)
        : how === 'delete'
          ? word.slice(0, k) + word.slice(k + 1)
          : how === 'swap'
            ? word.slice(0, k) + word[k + 1] + word[k] + word.slice(k + 2)
            : word.slice(0, k) + word[k] + word.slice(k);
    return {
      broken: [...words.slice(0, i), bad, ...words.slice(i + 1)].join(' '),
      meant: base,
      kind: 'natural' as Kind,
    };
  });

const UNIT_WORDS = ['second', 'minute', 'hour', 'day', 'week', 'month', 'year'];
const otherNatural = fc.oneof(
  // a plural unit without its number: `every minutes` means `every minute`
  pick(UNIT_WORDS).map((u) => ({ broken: `every ${u}s`, meant: `every ${u}`, kind: 'natural' as Kind })),
  // a dangling conjunction
  fc
    .tuple(pick(BASES), pick([' and', ',', ' &']))
    .map(([b, c]) => ({ broken: b + c, meant: b, kind: 'natural' as Kind })),
  fc.tuple(pick(BASES), pick(['and ', ', '])).map(([b, c]) => ({ broken: c + b, meant: b, kind: 'natural' as Kind })),
  // `13pm` is 13:00, `0am` 00:00, `24:00` midnight
  fc
    .integer({ min: 13, max: 23 })
    .map((h) => ({ broken: `every day at ${h}pm`, meant: `every day at ${h}:00`, kind: 'natural' as Kind })),
  fc.constant({ broken: 'every day at 0am', meant: 'every day at 00:00', kind: 'natural' as Kind }),
  fc.constant({ broken: 'every day at 24:00', meant: 'every day at midnight', kind: 'natural' as Kind }),
  // out of range, no reading: no suggestion may be given at all (`meant` is never matched)
  fc
    .integer({ min: 32, max: 99 })
    .map((d) => ({ broken: `every month on the ${d}th`, meant: 'every day', kind: 'natural' as Kind })),
  pick(['between 9am and 5pm', 'every 0 minutes', 'at 2026-02-30 09:00']).map((b) => ({
    broken: b,
    meant: 'every day',
    kind: 'natural' as Kind,
  })),
);

const QUARTZ_FIELDS: Array<[number, number]> = [
  [0, 60],
  [1, 60],
  [2, 24],
];
const quartz = fc.oneof(
  // a step of the field's size: every 60 seconds is second 0 (Quartz refuses */60)
  fc
    .tuple(pick(QUARTZ_FIELDS), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 40 }))
    .map(([[i, size], start, extra]) => {
      const f = ['0', '0', '12', '*', '*', '?'];
      const g = [...f];
      f[i] = `${start === 0 ? '*' : start}/${size + (extra > 30 ? extra : 0)}`;
      g[i] = String(start);
      // a larger step has no single reading: then no suggestion may be given (g is never matched)
      return { broken: f.join(' '), meant: extra > 30 ? '0 0 0 1 1 ? 2030' : g.join(' '), kind: 'quartz' as Kind };
    }),
  // `/5` is read by Quartz as `*/5`
  fc.tuple(fc.integer({ min: 0, max: 1 }), fc.integer({ min: 1, max: 59 })).map(([i, s]) => {
    const f = ['0', '0', '*', '*', '*', '?'];
    const g = [...f];
    f[i] = `/${s}`;
    g[i] = `*/${s}`;
    return { broken: f.join(' '), meant: g.join(' '), kind: 'quartz' as Kind };
  }),
  // misspelt day and month names
  fc
    .tuple(
      pick(['MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT', 'SUN']),
      pick(['MONN', 'TUES', 'WEDD', 'THUR', 'FRII', 'SATT', 'SUNN']),
    )
    .map(([, bad]) => ({
      broken: `0 0 12 ? * ${bad}`,
      meant: `0 0 12 ? * ${bad.slice(0, 3)}`,
      kind: 'quartz' as Kind,
    })),
);
const cron = fc.oneof(
  pick(['0 12 ? * *', '0 12 * * ?']).map((b) => ({ broken: b, meant: '0 12 * * *', kind: 'cron' as Kind })),
  pick(['0 12 * * MONN', '0 12 * JANN *']).map((b) => ({
    broken: b,
    meant: b.replace('MONN', 'MON').replace('JANN', 'JAN'),
    kind: 'cron' as Kind,
  })),
);

const rrule = fc
  .tuple(
    pick([
      ['FREQ=DAILY;BYHOUR=9;BYMINUTE=0;BYSECOND=0', 'DAILY', 'DAYLY'],
      ['FREQ=WEEKLY;BYDAY=MO,FR;BYHOUR=9', 'WEEKLY', 'WEEKLI'],
      ['FREQ=MONTHLY;BYMONTHDAY=15;BYHOUR=8', 'MONTHLY', 'MONTLY'],
      ['FREQ=MINUTELY;INTERVAL=90', 'MINUTELY', 'MINUTLY'],
      ['FREQ=WEEKLY;BYDAY=MO,FR;BYHOUR=9', 'BYDAY', 'BYDAI'],
      ['FREQ=DAILY;BYHOUR=9;BYMINUTE=0;BYSECOND=0', 'BYMINUTE', 'BYMINUT'],
      ['FREQ=SECONDLY;INTERVAL=90', 'INTERVAL', 'INTERVALL'],
    ] as Array<[string, string, string]>),
    pick(['', 'RRULE:']),
  )
  .map(([[meant, good, bad], prefix]) => ({ broken: prefix + meant.replace(good, bad), meant, kind: 'rrule' as Kind }));

describe('suggestions never change the meaning', () => {
  it.each([
    ['misspelt natural words', typo],
    ['other natural mistakes', otherNatural],
    ['Quartz mistakes', quartz],
    ['cron mistakes', cron],
    ['RRULE mistakes', rrule],
  ] as Array<[string, fc.Arbitrary<{ broken: string; meant: string; kind: Kind }>]>)('%s', (_name, cases) => {
    fc.assert(
      fc.property(cases, pick(ZONES), ({ broken, meant, kind }, zone) => {
        const bad = meaningChanges(broken, meant, kind, zone);
        if (bad.length) {
          throw new Error(bad.join('\n'));
        }
      }),
      { numRuns: 300, seed: 2424 },
    );
  });

  it('a contradiction (it never fires) is answered by removing exactly the flagged text', () => {
    const days = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'];
    fc.assert(
      fc.property(pick(days), pick(['saturday', 'sunday']), pick(['at 9am', '']), (_d, weekend, t) => {
        const expr = `every weekday on ${weekend} ${t}`.trim();
        const r = compileSchedule({ expr, reference: REF });
        if (r.ok) {
          throw new Error(`${expr} compiled`);
        }
        for (const e of r.errors.filter((x) => x.suggestion !== null)) {
          const without = (
            expr.slice(0, e.position).trimEnd() +
            ' ' +
            expr.slice(e.position + e.length).trimStart()
          ).trim();
          expect(e.suggestion).toBe(without);
        }
      }),
      { numRuns: 50, seed: 24 },
    );
  });

  it('every N <unit> means the RRULE with that interval, whatever the spelling', () => {
    const FREQ = {
      second: 'SECONDLY',
      minute: 'MINUTELY',
      hour: 'HOURLY',
      day: 'DAILY',
      week: 'WEEKLY',
      month: 'MONTHLY',
    };
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5000 }),
        pick(Object.keys(FREQ) as Array<keyof typeof FREQ>),
        pick(ZONES),
        (n, unit, zone) => {
          const expr = `every ${n} ${unit}${n === 1 ? '' : 's'}`;
          const times = ['second', 'minute', 'hour'].includes(unit) ? '' : ';BYHOUR=0;BYMINUTE=0;BYSECOND=0';
          const rule = `FREQ=${FREQ[unit]}${n === 1 ? '' : `;INTERVAL=${n}`}${times}`;
          const got = fireTimes(expr, 'natural', zone);
          expect(got).not.toBeNull();
          expect(got).toBe(fireTimes(rule, 'rrule', zone));
        },
      ),
      { numRuns: 300, seed: 90 },
    );
  });

  it.each([
    ['every 60 seconds', 'FREQ=MINUTELY', 'every minute'],
    ['every 120 minutes', 'FREQ=HOURLY;INTERVAL=2', 'every 2 hours'],
    ['every 3600 seconds', 'FREQ=HOURLY', 'every hour'],
    ['every 14 days', 'FREQ=WEEKLY;INTERVAL=2;BYHOUR=0;BYMINUTE=0;BYSECOND=0', 'every 2 weeks'],
    ['every 24 months', 'FREQ=YEARLY;INTERVAL=2;BYHOUR=0;BYMINUTE=0;BYSECOND=0', 'every 2 years'],
    ['rate(5 minutes)', 'FREQ=MINUTELY;INTERVAL=5', 'every 5 minutes'],
  ])('%s is written one way: %s, as %s', (expr, canonical, same) => {
    const r = compileSchedule({ expr, reference: REF });
    const s = compileSchedule({ expr: same, reference: REF });
    expect(r.ok && r.schedule.canonical).toBe(canonical);
    expect(s.ok && s.schedule.canonical).toBe(canonical);
    expect(fireTimes(expr, 'natural', 'UTC')).toBe(fireTimes(same, 'natural', 'UTC'));
  });
});

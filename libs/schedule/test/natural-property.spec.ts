/**
 * Property tests (fast-check) over generated natural and RRULE schedules in DST-heavy zones:
 * fire times strictly increase, every fire time matches the rule (checked by an independent
 * oracle built on luxon, and on the `rrule` package for RRULE), the oracle finds no fire time we
 * missed, and `next(after = t_k)` continues the same sequence.
 */
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { rrulestr } from 'rrule';
import { natural, ok, rrule } from './natural-helpers';
import type { CompiledSchedule } from '../src/types';

const ZONES = [
  'UTC',
  'America/New_York',
  'Europe/London',
  'Europe/Berlin',
  'Australia/Sydney',
  'Pacific/Chatham',
  'Asia/Kolkata',
  'America/Santiago',
  'Australia/Lord_Howe',
  'Asia/Tokyo',
];
const DAY = 86_400_000;
const N = 25;

// ---- independent oracle: wall time -> instant, RFC 5545 policy, from luxon offsets only ------------
function wallToInstant(zone: string, y: number, mo: number, d: number, h: number, mi: number, s = 0): number {
  const naive = Date.UTC(y, mo - 1, d, h, mi, s);
  const offs = new Set([
    DateTime.fromMillis(naive - DAY, { zone }).offset,
    DateTime.fromMillis(naive + DAY, { zone }).offset,
  ]);
  const valid: number[] = [];
  for (const o of offs) {
    const c = naive - o * 60_000;
    const w = DateTime.fromMillis(c, { zone });
    if (w.year === y && w.month === mo && w.day === d && w.hour === h && w.minute === mi && w.second === s) {
      valid.push(c);
    }
  }
  if (valid.length) {
    return Math.min(...valid);
  }
  // nonexistent: luxon pushes forward by the gap
  return DateTime.fromObject({ year: y, month: mo, day: d, hour: h, minute: mi, second: s }, { zone }).toMillis();
}

/** Structure of a generated date-level natural schedule. */
interface DayShape {
  kind: 'days';
  text: string;
  /** Is this local calendar day (luxon, in zone) a fire day? `anchorDay` = anchor's local date. */
  day: (d: DateTime, anchorDay: DateTime) => boolean;
  times: number[]; // minutes after midnight
}
interface IntervalShape {
  kind: 'interval';
  text: string;
  stepMs: number;
  weekdays: number[] | null; // luxon weekdays 1..7
}
type Shape = DayShape | IntervalShape;

const DAY_NAMES = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const MONTH_NAMES = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const ORD = ['first', 'second', 'third', 'fourth', 'last'];

function fmtTime(min: number, style: number): string {
  const h = Math.floor(min / 60);
  const m = min % 60;
  if (style === 0 || (m !== 0 && style === 2)) {
    return `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`;
  }
  if (min === 720 && style === 3) {
    return 'noon';
  }
  const h12 = h % 12 === 0 ? 12 : h % 12;
  return `${h12}${m ? `:${String(m).padStart(2, '0')}` : ''}${style === 1 ? ' ' : ''}${h < 12 ? 'am' : 'pm'}`;
}

const timeArb = fc.oneof(
  fc.constantFrom(90, 150, 0, 30, 120, 180, 1410, 720), // DST-prone and edge times
  fc.integer({ min: 0, max: 23 }).chain((h) => fc.constantFrom(0, 15, 30, 45).map((m) => h * 60 + m)),
);
const timesArb = fc.uniqueArray(timeArb, { minLength: 1, maxLength: 3 }).chain((ts) =>
  fc.array(fc.integer({ min: 0, max: 3 }), { minLength: ts.length, maxLength: ts.length }).map((styles) => ({
    times: ts,
    text: 'at ' + ts.map((t, i) => fmtTime(t, styles[i]!)).join(' and '),
  })),
);
const weekdaySetArb = fc.uniqueArray(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 4 });

const dayShapeArb: fc.Arbitrary<Shape> = fc.oneof(
  timesArb.map(({ times, text }) => ({ kind: 'days' as const, text: `every day ${text}`, day: () => true, times })),
  fc.tuple(fc.integer({ min: 2, max: 9 }), timesArb).map(([n, t]) => ({
    kind: 'days' as const,
    text: `every ${n} days ${t.text}`,
    day: (d: DateTime, a: DateTime) => Math.round(d.startOf('day').diff(a.startOf('day'), 'days').days) % n === 0,
    times: t.times,
  })),
  fc.tuple(weekdaySetArb, timesArb).map(([wd, t]) => ({
    kind: 'days' as const,
    text: `every ${wd.map((w) => DAY_NAMES[w - 1]).join(' and ')} ${t.text}`,
    day: (d: DateTime) => wd.includes(d.weekday),
    times: t.times,
  })),
  fc.tuple(fc.constantFrom('every weekday', 'weekends', 'on weekdays'), timesArb).map(([w, t]) => ({
    kind: 'days' as const,
    text: `${w} ${t.text}`,
    day: (d: DateTime) => (w === 'weekends' ? d.weekday >= 6 : d.weekday <= 5),
    times: t.times,
  })),
  fc.tuple(fc.integer({ min: 2, max: 4 }), fc.integer({ min: 1, max: 7 }), timesArb).map(([n, w, t]) => ({
    kind: 'days' as const,
    text: `every ${n} weeks on ${DAY_NAMES[w - 1]} ${t.text}`,
    day: (d: DateTime, a: DateTime) =>
      d.weekday === w && Math.round(d.startOf('week').diff(a.startOf('week'), 'days').days / 7) % n === 0,
    times: t.times,
  })),
  fc
    .tuple(
      fc.uniqueArray(fc.oneof(fc.integer({ min: 1, max: 31 }), fc.constant(-1)), { minLength: 1, maxLength: 3 }),
      timesArb,
    )
    .map(([md, t]) => ({
      kind: 'days' as const,
      text: `every month on the ${md.map((x) => (x === -1 ? 'last day' : `${x}${x % 10 === 1 && x !== 11 ? 'st' : x % 10 === 2 && x !== 12 ? 'nd' : x % 10 === 3 && x !== 13 ? 'rd' : 'th'}`)).join(' and ')} ${t.text}`,
      day: (d: DateTime) => md.includes(d.day) || (md.includes(-1) && d.day === d.daysInMonth),
      times: t.times,
    })),
  fc.tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 1, max: 7 }), timesArb).map(([o, w, t]) => ({
    kind: 'days' as const,
    text: `every ${ORD[o]} ${DAY_NAMES[w - 1]} of the month ${t.text}`,
    day: (d: DateTime) => d.weekday === w && (o === 4 ? d.day + 7 > d.daysInMonth! : Math.ceil(d.day / 7) === o + 1),
    times: t.times,
  })),
  fc.tuple(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 29 }), timesArb).map(([m, day, t]) => ({
    kind: 'days' as const,
    text: `every year on ${MONTH_NAMES[m - 1]} ${day} ${t.text}`,
    day: (d: DateTime) => d.month === m && d.day === day,
    times: t.times,
  })),
  fc
    .tuple(
      fc.constantFrom(5, 10, 15, 20, 30, 60),
      fc.integer({ min: 0, max: 22 }),
      fc.integer({ min: 1, max: 6 }),
      fc.boolean(),
    )
    .map(([step, from, len, wk]) => {
      const to = Math.min(24, from + len);
      const times: number[] = [];
      for (let t = from * 60; t < to * 60; t += step) {
        times.push(t);
      }
      const unit = step === 60 ? 'every hour' : `every ${step} minutes`;
      return {
        kind: 'days' as const,
        text: `${unit} between ${fmtTime(from * 60, 0)} and ${to === 24 ? 'midnight' : fmtTime(to * 60, 0)}${wk ? ' on weekdays' : ''}`,
        day: (d: DateTime) => !wk || d.weekday <= 5,
        times: to === 24 ? times : times,
      };
    }),
);

const intervalShapeArb: fc.Arbitrary<Shape> = fc.oneof(
  fc.tuple(fc.integer({ min: 1, max: 59 }), fc.constantFrom('seconds', 'minutes')).map(([n, u]) => ({
    kind: 'interval' as const,
    text: `every ${n} ${u}`,
    stepMs: n * (u === 'seconds' ? 1000 : 60_000),
    weekdays: null,
  })),
  fc.tuple(fc.integer({ min: 1, max: 23 }), fc.boolean()).map(([n, wk]) => ({
    kind: 'interval' as const,
    text: `every ${n} hours${wk ? ' on weekdays' : ''}`,
    stepMs: n * 3_600_000,
    weekdays: wk ? [1, 2, 3, 4, 5] : null,
  })),
);

const refArb = fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2035, 0, 1) }).map((t) => new Date(t));
const zoneArb = fc.constantFrom(...ZONES);

function invariants(s: CompiledSchedule, after: Date): number[] {
  const t = s.next(after, N).map((d) => d.getTime());
  expect(t.length).toBe(N);
  expect(t[0]!).toBeGreaterThan(after.getTime());
  for (let i = 1; i < t.length; i++) {
    expect(t[i]!).toBeGreaterThan(t[i - 1]!);
  }
  // continuation: next(after = t_k) is the rest of the same sequence
  for (const k of [0, 7, 13]) {
    expect(s.next(new Date(t[k]!), N - k - 1).map((d) => d.getTime())).toEqual(t.slice(k + 1));
  }
  return t;
}

/** All oracle fire times in (after, until], from the shape alone. */
function oracleDays(shape: DayShape, zone: string, anchor: Date, after: number, until: number): number[] {
  const out = new Set<number>();
  const a = DateTime.fromMillis(Math.floor(anchor.getTime() / 1000) * 1000, { zone });
  let d = DateTime.fromMillis(after, { zone }).startOf('day').minus({ days: 1 });
  const end = DateTime.fromMillis(until, { zone }).plus({ days: 1 });
  while (d <= end) {
    if (shape.day(d, a)) {
      for (const m of shape.times) {
        const t = wallToInstant(zone, d.year, d.month, d.day, Math.floor(m / 60), m % 60);
        // DTSTART (the anchor) bounds the series: wall times before the anchor's wall time do not fire
        const wall = Date.UTC(d.year, d.month - 1, d.day, Math.floor(m / 60), m % 60);
        const anchorWall = Date.UTC(a.year, a.month - 1, a.day, a.hour, a.minute, a.second);
        if (wall >= anchorWall && t > after && t <= until) {
          out.add(t);
        }
      }
    }
    d = d.plus({ days: 1 });
  }
  return [...out].sort((x, y) => x - y);
}

describe('natural schedules', () => {
  test('date-level schedules: increasing, continuing, and equal to an independent luxon oracle', () => {
    fc.assert(
      fc.property(dayShapeArb, zoneArb, refArb, fc.integer({ min: 0, max: 400 * DAY }), (shape, zone, ref, delta) => {
        const s = ok(natural(shape.text, zone, ref));
        const after = new Date(ref.getTime() + delta);
        const t = invariants(s, after);
        expect(t).toEqual(oracleDays(shape as DayShape, zone, ref, after.getTime(), t[t.length - 1]!));
      }),
      { numRuns: 150 },
    );
  });

  test('sub-day intervals: reference + k·interval, filtered by local weekday', () => {
    fc.assert(
      fc.property(
        intervalShapeArb,
        zoneArb,
        refArb,
        fc.integer({ min: 0, max: 400 * DAY }),
        (shape, zone, ref, delta) => {
          const sh = shape as IntervalShape;
          const s = ok(natural(sh.text, zone, ref));
          const after = new Date(ref.getTime() + delta);
          const t = invariants(s, after);
          const r0 = Math.floor(ref.getTime() / 1000) * 1000;
          for (const x of t) {
            expect((x - r0) % sh.stepMs).toBe(0);
            if (sh.weekdays) {
              expect(sh.weekdays).toContain(DateTime.fromMillis(x, { zone }).weekday);
            }
          }
          if (!sh.weekdays) {
            for (let i = 1; i < t.length; i++) {
              expect(t[i]! - t[i - 1]!).toBe(sh.stepMs);
            }
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

// ---- RRULE: oracle = rrule package expanding in floating time + luxon conversion ----------------
const rruleArb = fc
  .record({
    freq: fc.constantFrom('DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'),
    interval: fc.integer({ min: 1, max: 3 }),
    byMonth: fc.option(fc.uniqueArray(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 3 }), {
      nil: undefined,
    }),
    byMonthDay: fc.option(
      fc.uniqueArray(fc.oneof(fc.integer({ min: 1, max: 31 }), fc.integer({ min: -3, max: -1 })), {
        minLength: 1,
        maxLength: 3,
      }),
      { nil: undefined },
    ),
    byDay: fc.option(fc.uniqueArray(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 3 }), {
      nil: undefined,
    }),
    nth: fc.option(fc.constantFrom(1, 2, -1), { nil: undefined }),
    byHour: fc.uniqueArray(fc.constantFrom(0, 1, 2, 3, 9, 12, 23), { minLength: 1, maxLength: 2 }),
    byMinute: fc.uniqueArray(fc.constantFrom(0, 30, 45), { minLength: 1, maxLength: 2 }),
    setPos: fc.option(fc.constantFrom(1, -1, 2), { nil: undefined }),
  })
  .filter((r) => (r.freq === 'YEARLY' || r.freq === 'MONTHLY' ? !!(r.byMonth || r.byMonthDay || r.byDay) : true))
  .map((r) => {
    const codes = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];
    const parts = [`FREQ=${r.freq}`];
    if (r.interval > 1) {
      parts.push(`INTERVAL=${r.interval}`);
    }
    if (r.byMonth) {
      parts.push(`BYMONTH=${r.byMonth.join(',')}`);
    }
    if (r.byMonthDay && r.freq !== 'WEEKLY') {
      parts.push(`BYMONTHDAY=${r.byMonthDay.join(',')}`);
    }
    if (r.byDay) {
      const ordinal =
        r.nth !== undefined && (r.freq === 'MONTHLY' || (r.freq === 'YEARLY' && r.byMonth)) && !r.byMonthDay;
      parts.push(`BYDAY=${r.byDay.map((d) => (ordinal ? `${r.nth}${codes[d]}` : codes[d])).join(',')}`);
    }
    // sorted: rrule.js applies BYSETPOS to unsorted BYMINUTE/BYHOUR lists in list order (its bug, not RFC 5545)
    const asc = (v: number[]): string => [...v].sort((x, y) => x - y).join(',');
    parts.push(`BYHOUR=${asc(r.byHour)}`, `BYMINUTE=${asc(r.byMinute)}`, 'BYSECOND=0');
    if (r.setPos !== undefined && (r.freq === 'MONTHLY' || r.freq === 'WEEKLY')) {
      parts.push(`BYSETPOS=${r.setPos}`);
    }
    return parts.join(';');
  });

describe('RRULE schedules', () => {
  test('increasing, continuing, and equal to the rrule package in floating time converted by luxon', () => {
    fc.assert(
      fc.property(
        rruleArb,
        zoneArb,
        fc.integer({ min: Date.UTC(2021, 0, 1), max: Date.UTC(2030, 0, 1) }),
        (rule, zone, startMs) => {
          const start = DateTime.fromMillis(startMs, { zone }).set({ second: 0, millisecond: 0 });
          const dt = start.toFormat("yyyyMMdd'T'HHmmss");
          const s = ok(rrule(`DTSTART;TZID=${zone}:${dt}\nRRULE:${rule}`, zone));
          const after = new Date(start.toMillis() - 1000);
          const got = s.next(after, N).map((d) => d.getTime());
          for (let i = 1; i < got.length; i++) {
            expect(got[i]!).toBeGreaterThan(got[i - 1]!);
          }
          if (got.length >= 10) {
            expect(s.next(new Date(got[4]!), 5).map((d) => d.getTime())).toEqual(got.slice(5, 10));
          }
          // oracle: rrule.js in "UTC" = floating wall time
          const floatingStart = new Date(Date.UTC(start.year, start.month - 1, start.day, start.hour, start.minute));
          const theirs = rrulestr(`DTSTART:${dt}Z\nRRULE:${rule}`);
          fc.pre(got.length > 0); // never-firing rules: rrule.js takes seconds to find nothing; covered in rrule.spec.ts
          const horizon = floatingStart.getTime() + 30 * 365 * DAY;
          const walls = theirs.between(floatingStart, new Date(horizon), true, (_d, i) => i < N + 10);
          const expected = [
            ...new Set(
              walls.map((w) =>
                wallToInstant(
                  zone,
                  w.getUTCFullYear(),
                  w.getUTCMonth() + 1,
                  w.getUTCDate(),
                  w.getUTCHours(),
                  w.getUTCMinutes(),
                ),
              ),
            ),
          ]
            .sort((x, y) => x - y)
            .filter((x) => x > after.getTime());
          // rrule.js applies BYSETPOS after dropping the instances before DTSTART in the first period;
          // RFC 5545 (and python-dateutil) select from the whole period first. Compare after period 1.
          const cut = rule.includes('BYSETPOS')
            ? start.plus({ months: 1 }).startOf('month').plus({ days: 7 }).toMillis()
            : -Infinity;
          const upto = Math.min(got.length === N ? got[N - 1]! : Infinity, horizon - 2 * DAY);
          const complete = walls.length < N + 10; // the oracle stopped at its horizon, not at its item limit
          const lim = complete ? upto : Math.min(upto, expected[expected.length - 1]!);
          expect(got.filter((x) => x <= lim && x > cut)).toEqual(
            expected.filter((x) => x <= lim && x > cut).slice(0, N),
          );
        },
      ),
      { numRuns: 200 },
    );
  });
});

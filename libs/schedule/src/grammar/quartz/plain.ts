/**
 * A shortcut to Quartz's `getTimeAfter` (evaluate.ts) for plain expressions, where it is provably
 * the same answer: no `L`, `W`, `#` or year field, and a time zone whose offset does not change on
 * (or next to) the wall-clock days of the start and of the answer.
 *
 * Why the answers agree: on such days the lenient calendar of the port resolves every wall time to
 * `wall - offset` and back without moving it, so getTimeAfter's field walk is a search for the
 * first wall time at or after its start whose second, minute, hour, day (of the month or of the
 * week) and month are in the sets, which is what `plainNextWall` computes directly. A DST change
 * on a day in between cannot matter: that day holds no matching wall time (else the answer would
 * lie on it, and the shortcut steps aside), and the port only resolves wall times on it at the
 * day's start, which the change never moves past the next day's start. Any other case (a change on
 * the start's or the answer's day, an answer more than a year ahead or beyond Quartz's year limit)
 * returns `undefined` and the port answers. `plain.spec.ts` checks the agreement on random plain
 * expressions and instants in zones with DST changes at all hours, 30-minute shifts and midnight.
 *
 * Measured: the port resolves a wall time for nearly every field it reads (~5 per fire time);
 * this is one pass over the sets per fire time.
 */
import { UNLIMITED_BUDGET } from '../../budget';
import { civilFromDays, DAY_MS, weekdayFromSunday } from '../../civil';
import type { ZoneOffsets } from '../../tz';
import { CronMatcher } from '../cron/evaluate';
import { ALL_SPEC, LAST_DAY_OFFSET_START, NO_SPEC, type QuartzFields } from './fields';

/** Beyond this many days ahead the port answers (rare dates: Feb 29 on a Monday …). */
const MAX_DAYS_AHEAD = 400;

/** The sets of a plain expression, as lookup tables. */
export interface PlainQuartz {
  seconds: number[];
  minutes: number[];
  hours: number[];
  /** Index 1-12. */
  months: boolean[];
  /** Index 1-31, or null when the day of the week decides. */
  daysOfMonth: boolean[] | null;
  /** Index 0 = Sunday … 6 = Saturday, or null when the day of the month decides. */
  daysOfWeek: boolean[] | null;
  /**
   * With seconds `0` only, the same sets as 5-field cron tables (grammar/cron/evaluate.ts), which
   * jump from month to month and day to day instead of converting every day to a date.
   */
  minuteMatcher: CronMatcher | null;
}

/**
 * The values of a field in `[lo, hi]`, or null when the set also holds a marker (`ALL_SPEC` with a
 * partial set, `L` offsets …) whose lenient meaning only the port reproduces.
 */
function values(set: readonly number[], lo: number, hi: number): number[] | null {
  const inRange = set.filter((v) => v >= lo && v <= hi);
  const markers = set.filter((v) => v < lo || v > hi);
  if (markers.some((v) => v !== ALL_SPEC) || (markers.length > 0 && inRange.length !== hi - lo + 1)) {
    return null;
  }
  return inRange.length > 0 ? inRange : null;
}

function table(vals: readonly number[], size: number, shift = 0): boolean[] {
  const t = new Array<boolean>(size).fill(false);
  for (const v of vals) {
    t[v - shift] = true;
  }
  return t;
}

/**
 * A field's lookup table, kept per field array: parse.ts hands out one array per field text, so
 * expressions that share a field share its table (and the cron evaluator's tables built from it).
 */
const TABLES = new WeakMap<readonly number[], boolean[]>();

function fieldTable(field: readonly number[], vals: readonly number[], size: number, shift = 0): boolean[] {
  let t = TABLES.get(field);
  if (t === undefined) {
    t = table(vals, size, shift);
    TABLES.set(field, t);
  }
  return t;
}

const EVERY_DAY_OF_MONTH = [false, ...new Array<boolean>(31).fill(true)];
const EVERY_DAY_OF_WEEK = new Array<boolean>(7).fill(true);

/** The expression's plain form, or null when it uses anything only the port evaluates. */
export function plainQuartz(q: QuartzFields): PlainQuartz | null {
  if (q.years !== null || q.nearestWeekdays.length > 0 || q.lastDayOfWeek || q.nthDayOfWeek !== 0) {
    return null;
  }
  const seconds = values(q.seconds, 0, 59);
  const minutes = values(q.minutes, 0, 59);
  const hours = values(q.hours, 0, 23);
  const months = values(q.months, 1, 12);
  if (!seconds || !minutes || !hours || !months) {
    return null;
  }
  const domSpec = !q.daysOfMonth.includes(NO_SPEC);
  const dowSpec = !q.daysOfWeek.includes(NO_SPEC);
  if (domSpec === dowSpec) {
    return null;
  }
  let daysOfMonth: boolean[] | null = null;
  let daysOfWeek: boolean[] | null = null;
  if (domSpec) {
    const days = values(q.daysOfMonth, 1, 31);
    if (!days || q.daysOfMonth.some((d) => d >= LAST_DAY_OFFSET_START && d !== ALL_SPEC)) {
      return null;
    }
    daysOfMonth = fieldTable(q.daysOfMonth, days, 32);
  } else {
    const weekdays = values(q.daysOfWeek, 1, 7);
    if (!weekdays) {
      return null;
    }
    daysOfWeek = fieldTable(q.daysOfWeek, weekdays, 7, 1);
  }
  const monthTable = fieldTable(q.months, months, 13);
  const minuteMatcher =
    seconds.length === 1 && seconds[0] === 0
      ? new CronMatcher({
          minutes: fieldTable(q.minutes, minutes, 60),
          hours: fieldTable(q.hours, hours, 24),
          dom: daysOfMonth ?? EVERY_DAY_OF_MONTH,
          months: monthTable,
          dow: daysOfWeek ?? EVERY_DAY_OF_WEEK,
          // Quartz uses one day field, the other is `?`: a day must match both tables
          domStar: daysOfMonth === null,
          dowStar: daysOfWeek === null,
          fields: [],
        })
      : null;
  return { seconds, minutes, hours, months: monthTable, daysOfMonth, daysOfWeek, minuteMatcher };
}

/** First second of the day at or after `secondOfDay` allowed by the hour/minute/second sets, or -1. */
function firstTimeOfDay(p: PlainQuartz, secondOfDay: number): number {
  const h0 = Math.floor(secondOfDay / 3600);
  const m0 = Math.floor((secondOfDay - h0 * 3600) / 60);
  const s0 = secondOfDay - h0 * 3600 - m0 * 60;
  for (const h of p.hours) {
    if (h < h0) {
      continue;
    }
    for (const m of p.minutes) {
      if (h === h0 && m < m0) {
        continue;
      }
      const from = h === h0 && m === m0 ? s0 : 0;
      for (const s of p.seconds) {
        if (s >= from) {
          return h * 3600 + m * 60 + s;
        }
      }
    }
  }
  return -1;
}

/** First wall time (whole seconds) at or after `startWall` matching the sets, or null past the horizon. */
export function plainNextWall(p: PlainQuartz, startWall: number): { wall: number; year: number } | null {
  const firstDay = Math.floor(startWall / DAY_MS);
  if (p.minuteMatcher) {
    // whole minutes at second 0: the first at or after the start (nextWall rounds up to a minute)
    const wall = p.minuteMatcher.nextWall(startWall, UNLIMITED_BUDGET); // bounded: 400 years of months
    const day = Math.floor(wall / DAY_MS);
    return wall === -1 || day > firstDay + MAX_DAYS_AHEAD ? null : { wall, year: civilFromDays(day)[0] };
  }
  let from = Math.floor((startWall - firstDay * DAY_MS) / 1000);
  for (let day = firstDay; day <= firstDay + MAX_DAYS_AHEAD; day++, from = 0) {
    const [y, m, d] = civilFromDays(day);
    if (!p.months[m]) {
      continue;
    }
    if (p.daysOfMonth ? !p.daysOfMonth[d] : !(p.daysOfWeek as boolean[])[weekdayFromSunday(day)]) {
      continue;
    }
    const second = firstTimeOfDay(p, from);
    if (second >= 0) {
      return { wall: day * DAY_MS + second * 1000, year: y };
    }
  }
  return null;
}

/**
 * `quartzTimeAfter(q, afterMs, …)` for a plain expression when the shortcut applies (see module
 * doc), else `undefined` (never null: "no fire time" is always the port's answer).
 */
export function plainQuartzTimeAfter(
  p: PlainQuartz,
  zone: ZoneOffsets,
  afterMs: number,
  maxYear: number,
): number | undefined {
  const start = Math.floor((afterMs + 1000) / 1000) * 1000; // getTimeAfter: after + 1 s, milliseconds cleared
  const offset = zone.isUtc ? 0 : zone.uniformWallDayOffset(start + zone.offset(start));
  if (Number.isNaN(offset)) {
    return undefined;
  }
  const found = plainNextWall(p, start + offset);
  if (found === null || found.year < 1970 || found.year > maxYear) {
    return undefined;
  }
  const answerOffset = zone.isUtc ? 0 : zone.uniformWallDayOffset(found.wall);
  // NaN (a change on or around the answer's day): the port decides
  return Number.isNaN(answerOffset) ? undefined : found.wall - answerOffset;
}

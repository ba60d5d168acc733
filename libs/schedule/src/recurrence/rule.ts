/**
 * An RFC 5545 recurrence rule (the subset of `RRULE` parts we support: all of them except
 * `RSCALE`/`SKIP`), plus our conventions:
 *
 * - Date-level frequencies (`YEARLY`, `MONTHLY`, `WEEKLY`, `DAILY`) expand in *floating* local wall
 *   time in the schedule's zone, then become instants under the RFC 5545 DST policy
 *   (see `rfc5545WallToInstant` in tz.ts).
 * - Sub-daily frequencies (`HOURLY`, `MINUTELY`, `SECONDLY`) step in elapsed time from `DTSTART`
 *   (`every 2 hours` is always 2 real hours apart, also across a DST change); their `BY*` limits
 *   are checked against the local wall time of each candidate.
 * - `dtstart` absent: the caller supplies an anchor (the input's `startsAt` or `reference`).
 */

export type Freq = 'YEARLY' | 'MONTHLY' | 'WEEKLY' | 'DAILY' | 'HOURLY' | 'MINUTELY' | 'SECONDLY';
export const FREQS: readonly Freq[] = ['YEARLY', 'MONTHLY', 'WEEKLY', 'DAILY', 'HOURLY', 'MINUTELY', 'SECONDLY'];

/** Weekday 0 = Monday … 6 = Sunday (RFC 5545 order MO..SU). */
export const WEEKDAY_CODES = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;

export interface WeekdayNum {
  /** 0 = Monday … 6 = Sunday. */
  day: number;
  /** 0 = every such weekday in the period; ±1..±53 = the nth (negative: from the end). */
  n: number;
}

/** A time point: floating wall time (ms, `Date.UTC` of the wall reading) or a UTC instant. */
export type TimePoint = { floating: number } | { instant: number };

/** Largest INTERVAL (`every N …` too): RFC 5545 sets none; a Java/C `int`, as Quartz and cron steps. */
export const MAX_INTERVAL = 2_147_483_647;

export interface Rule {
  freq: Freq;
  interval: number;
  byMonth: number[] | null;
  byWeekNo: number[] | null;
  byYearDay: number[] | null;
  byMonthDay: number[] | null;
  byDay: WeekdayNum[] | null;
  byHour: number[] | null;
  byMinute: number[] | null;
  bySecond: number[] | null;
  bySetPos: number[] | null;
  /** Week start, 0 = Monday (default). */
  wkst: number;
  count: number | null;
  until: TimePoint | null;
  dtstart: TimePoint | null;
}

export function emptyRule(freq: Freq): Rule {
  return {
    freq,
    interval: 1,
    byMonth: null,
    byWeekNo: null,
    byYearDay: null,
    byMonthDay: null,
    byDay: null,
    byHour: null,
    byMinute: null,
    bySecond: null,
    bySetPos: null,
    wkst: 0,
    count: null,
    until: null,
    dtstart: null,
  };
}

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** `20261204T090000` (floating) or `20261204T080000Z` (instant). */
export function formatTimePoint(p: TimePoint): string {
  const ms = 'floating' in p ? p.floating : p.instant;
  const d = new Date(ms);
  const s =
    pad(d.getUTCFullYear(), 4) +
    pad(d.getUTCMonth() + 1) +
    pad(d.getUTCDate()) +
    'T' +
    pad(d.getUTCHours()) +
    pad(d.getUTCMinutes()) +
    pad(d.getUTCSeconds());
  return 'instant' in p ? `${s}Z` : s;
}

function formatDay(w: WeekdayNum): string {
  return (w.n === 0 ? '' : String(w.n)) + WEEKDAY_CODES[w.day];
}

/**
 * Canonical text: RRULE parts in a fixed order
 * (`FREQ;INTERVAL;BYMONTH;BYWEEKNO;BYYEARDAY;BYMONTHDAY;BYDAY;BYHOUR;BYMINUTE;BYSECOND;BYSETPOS;WKST;COUNT;UNTIL;DTSTART`),
 * `INTERVAL` only when > 1, `WKST` only when not Monday, lists ascending.
 */
export function formatRule(r: Rule): string {
  // built as one string (no parts array, no closure): this runs on every natural-language compile
  let out = `FREQ=${r.freq}`;
  if (r.interval !== 1) {
    out += `;INTERVAL=${r.interval}`;
  }
  out += listPart('BYMONTH', r.byMonth);
  out += listPart('BYWEEKNO', r.byWeekNo);
  out += listPart('BYYEARDAY', r.byYearDay);
  out += listPart('BYMONTHDAY', r.byMonthDay);
  if (r.byDay && r.byDay.length) {
    const days = [...r.byDay].sort((a, b) => a.day - b.day || a.n - b.n);
    out += `;BYDAY=${days.map(formatDay).join(',')}`;
  }
  out += listPart('BYHOUR', r.byHour);
  out += listPart('BYMINUTE', r.byMinute);
  out += listPart('BYSECOND', r.bySecond);
  out += listPart('BYSETPOS', r.bySetPos);
  if (r.wkst !== 0) {
    out += `;WKST=${WEEKDAY_CODES[r.wkst]}`;
  }
  if (r.count !== null) {
    out += `;COUNT=${r.count}`;
  }
  if (r.until) {
    out += `;UNTIL=${formatTimePoint(r.until)}`;
  }
  if (r.dtstart) {
    out += `;DTSTART=${formatTimePoint(r.dtstart)}`;
  }
  return out;
}

/** `;NAME=v1,v2` with the values in canonical order, or nothing for an absent or empty list. */
function listPart(name: string, v: number[] | null): string {
  if (!v || v.length === 0) {
    return '';
  }
  return `;${name}=${(isCanonicalOrder(v) ? v : sortSigned(v)).join(',')}`;
}

/** True when `v` already is in `sortSigned` order (the common case: one value, or ascending non-negative). */
function isCanonicalOrder(v: number[]): boolean {
  for (let i = 0; i < v.length; i++) {
    if (v[i] < 0 || (i > 0 && v[i] < v[i - 1])) {
      return false;
    }
  }
  return true;
}

/** Positive values ascending, then negative values ascending (`1,15,-1`). */
function sortSigned(v: number[]): number[] {
  const pos = v.filter((x) => x >= 0).sort((a, b) => a - b);
  const neg = v.filter((x) => x < 0).sort((a, b) => a - b);
  return [...pos, ...neg];
}

/**
 * True when the rule's occurrences do not depend on the anchor a caller supplies in place of a
 * missing DTSTART (the reference instant), so fire times computed after one reference stay valid
 * for a later one (validate-cache.ts). Conservative: with no DTSTART, only interval-1 date-level
 * rules without COUNT whose every RFC 5545 DTSTART-derived default (time of day, weekday, day of
 * month) is given explicitly; sub-daily rules step from the anchor and never qualify.
 */
export function isAnchorIndependent(r: Rule): boolean {
  if (r.dtstart !== null) {
    return true;
  }
  if (r.count !== null || r.interval !== 1 || r.byHour === null || r.byMinute === null || r.bySecond === null) {
    return false;
  }
  switch (r.freq) {
    case 'DAILY':
      return true;
    case 'WEEKLY':
      return r.byDay !== null;
    case 'MONTHLY':
      return r.byMonthDay !== null || r.byDay !== null;
    case 'YEARLY':
      return r.byMonthDay !== null || r.byDay !== null || r.byYearDay !== null;
    default:
      return false;
  }
}

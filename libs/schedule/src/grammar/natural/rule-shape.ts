/** Rule shaping shared by the natural builder: one spelling per step, the BYHOUR/BYMINUTE/BYSECOND grid, phases. */
import { MONTH_NAMES } from '../../calendar-names';
import { DAY_MS, wallFields } from '../../civil';
import type { Rule } from '../../recurrence/rule';
import { instantToWall, rfc5545WallToInstant, type ZoneOffsets } from '../../tz';
import type { Unit } from './vocab';

export const UNIT_SEC = { second: 1, minute: 60, hour: 3600 } as const;
export const MONTHS = MONTH_NAMES;

export function stepLabel(iv: { n: number; unit: string }): string {
  return iv.n === 1 ? iv.unit : `${iv.n} ${iv.unit}s`;
}

/** `every 60 seconds` = `every minute`, `every 120 minutes` = `every 2 hours` (elapsed time, so never days). */
export function canonicalInterval(n: number, unit: Unit): { n: number; unit: Unit } {
  if (unit === 'second' && n % 60 === 0) {
    n /= 60;
    unit = 'minute';
  }
  if (unit === 'minute' && n % 60 === 0) {
    n /= 60;
    unit = 'hour';
  }
  return { n, unit };
}

/**
 * Calendar steps with one spelling: every 14 days = every 2 weeks, every 24 months = every 2 years,
 * when nothing else picks the days (both then repeat the start's weekday / date).
 */
export function canonicalCalendarStep(r: Rule): void {
  const free = !r.byDay && !r.byMonthDay && !r.byMonth && !r.bySetPos && !r.byYearDay && !r.byWeekNo;
  if (!free) {
    return;
  }
  if (r.freq === 'DAILY' && r.interval % 7 === 0) {
    r.freq = 'WEEKLY';
    r.interval /= 7;
  } else if (r.freq === 'MONTHLY' && r.interval % 12 === 0) {
    r.freq = 'YEARLY';
    r.interval /= 12;
  }
}

/**
 * DTSTART of `every N <sub-daily unit> starting at <time>` when N does not divide a day: the first
 * point of the elapsed-time grid through <time> on the reference's local date that is after the
 * reference, as local wall time (as an instant where the wall time is ambiguous).
 */
export function phaseStart(
  z: ZoneOffsets,
  ref: number,
  sec: number,
  stepSec: number,
): { floating: number } | { instant: number } {
  const day = wallFields(instantToWall(z, ref)).dayNum;
  const origin = rfc5545WallToInstant(z, day * DAY_MS + sec * 1000);
  const stepMs = stepSec * 1000;
  const refS = Math.floor(ref / 1000) * 1000;
  const first = origin > refS ? origin : origin + (Math.floor((refS - origin) / stepMs) + 1) * stepMs;
  const fl = instantToWall(z, first);
  return rfc5545WallToInstant(z, fl) === first ? { floating: fl } : { instant: first };
}

/**
 * Smallest BYHOUR × BYMINUTE × BYSECOND grid containing `times`; `positions` (1-based, for
 * BYSETPOS within one day) when the grid has extra entries.
 */
export function gridOf(times: number[]): {
  hours: number[];
  minutes: number[];
  seconds: number[];
  positions: number[] | null;
} {
  const uniq = (v: number[]): number[] => [...new Set(v)].sort((a, b) => a - b);
  const hours = uniq(times.map((t) => Math.floor(t / 3600)));
  const minutes = uniq(times.map((t) => Math.floor(t / 60) % 60));
  const seconds = uniq(times.map((t) => t % 60));
  if (hours.length * minutes.length * seconds.length === times.length) {
    return { hours, minutes, seconds, positions: null };
  }
  const grid: number[] = [];
  for (const h of hours) {
    for (const m of minutes) {
      for (const s of seconds) {
        grid.push(h * 3600 + m * 60 + s);
      }
    }
  }
  const want = new Set(times);
  const positions: number[] = [];
  grid.forEach((t, i) => {
    if (want.has(t)) {
      positions.push(i + 1);
    }
  });
  return { hours, minutes, seconds, positions };
}

/** Days every period of `rule` contains when that number is the same for all periods, else null. */
export function daysPerPeriod(r: Rule): number | null {
  switch (r.freq) {
    case 'DAILY':
      // BYDAY, BYMONTHDAY and BYMONTH only limit a DAILY rule: a period is one whole day or none
      return 1;
    case 'WEEKLY':
      return r.byMonth ? null : r.byDay ? new Set(r.byDay.map((d) => d.day)).size : 1;
    case 'MONTHLY': {
      if (r.byMonth) {
        return null;
      }
      if (
        r.byDay &&
        !r.byMonthDay &&
        r.byDay.length === 1 &&
        Math.abs(r.byDay[0]!.n) >= 1 &&
        Math.abs(r.byDay[0]!.n) <= 4
      ) {
        return 1;
      }
      if (
        !r.byDay &&
        r.byMonthDay &&
        r.byMonthDay.every((d) => (d >= 1 && d <= 28) || d === -1) &&
        r.byMonthDay.length === 1
      ) {
        return 1;
      }
      if (!r.byDay && !r.byMonthDay) {
        return null;
      }
      return null;
    }
    default:
      if (
        r.byMonth?.length === 1 &&
        r.byMonthDay?.length === 1 &&
        !r.byDay &&
        r.byMonthDay[0]! >= 1 &&
        r.byMonthDay[0]! <= 28
      ) {
        return 1;
      }
      return null;
  }
}

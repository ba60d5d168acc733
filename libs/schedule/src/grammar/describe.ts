/**
 * English phrases shared by the Quartz and cron describers. Pure string formatting.
 */

import { MONTH_NAMES, WEEKDAY_NAMES } from '../calendar-names';

export { MONTH_NAMES, WEEKDAY_NAMES };
const ORDINALS = ['zeroth', 'first', 'second', 'third', 'fourth', 'fifth'];

/** `a`, `a and b`, `a, b and c`. */
export function joinList(items: string[]): string {
  if (items.length <= 1) {
    return items.join('');
  }
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

export function ordinalWord(n: number): string {
  return ORDINALS[n] ?? `${n}th`;
}

export function ordinalNumber(n: number): string {
  const s = n % 100 >= 11 && n % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${s}`;
}

const pad = (n: number): string => String(n).padStart(2, '0');

/** Step of an arithmetic progression that starts at `min` and fills `[min, max]`, or 0. */
function fullStep(values: number[], min: number, max: number): number {
  if (values.length < 2 || values[0] !== min) {
    return 0;
  }
  const step = values[1] - values[0];
  for (let i = 1; i < values.length; i++) {
    if (values[i] - values[i - 1] !== step) {
      return 0;
    }
  }
  return values[values.length - 1] + step > max ? step : 0;
}

/** Ranges `[a, b]` of consecutive values. */
function runs(values: number[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const v of values) {
    const last = out[out.length - 1];
    if (last && last[1] + 1 === v) {
      last[1] = v;
    } else {
      out.push([v, v]);
    }
  }
  return out;
}

/**
 * Time-of-day phrase from sorted value lists (`seconds` null for 5-field cron), e.g.
 * `at 09:00`, `at 08:00 and 20:00`, `every 5 minutes`, `every 15 minutes between 09:00 and 17:59`.
 */
export function describeTimeOfDay(seconds: number[] | null, minutes: number[], hours: number[]): string {
  const secs = seconds ?? [0];
  const showSec = secs.some((s) => s !== 0);
  if (secs.length * minutes.length * hours.length <= 6 && minutes.length <= 3 && secs.length <= 2) {
    const times: string[] = [];
    for (const h of hours) {
      for (const m of minutes) {
        for (const s of secs) {
          times.push(`${pad(h)}:${pad(m)}${showSec ? `:${pad(s)}` : ''}`);
        }
      }
    }
    return `at ${joinList(times)}`;
  }
  const parts: string[] = [];
  const allSec = secs.length === 60;
  const allMin = minutes.length === 60;
  if (seconds !== null && allSec) {
    parts.push('every second');
  } else if (seconds !== null && fullStep(secs, 0, 59)) {
    parts.push(`every ${fullStep(secs, 0, 59)} seconds`);
  } else if (seconds !== null && showSec) {
    parts.push(`at second ${joinList(secs.map(String))}`);
  }
  if (allMin) {
    if (!(seconds !== null && (allSec || fullStep(secs, 0, 59)))) {
      parts.push(showSec ? 'of every minute' : 'every minute');
    }
  } else if (fullStep(minutes, 0, 59)) {
    parts.push(`${parts.length ? 'of ' : ''}every ${fullStep(minutes, 0, 59)} minutes`);
  } else if (hours.length === 24 || parts.length || minutes.length > 3) {
    parts.push(`at minute ${joinList(minutes.map(String))} past the hour`);
  }
  if (hours.length !== 24) {
    const r = runs(hours);
    if (r.length === 1 && r[0][0] !== r[0][1]) {
      parts.push(`between ${pad(r[0][0])}:00 and ${pad(r[0][1])}:59`);
    } else if (!allMin && !fullStep(minutes, 0, 59) && minutes.length <= 3 && hours.length <= 6) {
      return `at ${joinList(hours.flatMap((h) => minutes.map((m) => `${pad(h)}:${pad(m)}`)))}${parts.length && showSec ? ` (${parts[0]})` : ''}`;
    } else {
      parts.push(`during hour ${joinList(hours.map(String))}`);
    }
  }
  return parts.join(' ');
}

/** Weekday list phrase; values 0 = Sunday … 6 = Saturday (sorted). */
export function describeWeekdays(days: number[]): string {
  const set = new Set(days);
  if (set.size === 7) {
    return 'every day';
  }
  if (set.size === 5 && [1, 2, 3, 4, 5].every((d) => set.has(d))) {
    return 'every weekday';
  }
  if (set.size === 2 && set.has(0) && set.has(6)) {
    return 'on weekends';
  }
  const r = runs([...set].sort((a, b) => a - b));
  return `on ${joinList(r.map(([a, b]) => (a === b ? WEEKDAY_NAMES[a] : b === a + 1 ? `${WEEKDAY_NAMES[a]} and ${WEEKDAY_NAMES[b]}` : `${WEEKDAY_NAMES[a]} through ${WEEKDAY_NAMES[b]}`)))}`;
}

/** Month list phrase for months 1-12 (sorted); empty string when all months. */
export function describeMonths(months: number[]): string {
  if (months.length === 12) {
    return '';
  }
  const r = runs(months);
  return `in ${joinList(r.map(([a, b]) => (a === b ? MONTH_NAMES[a - 1] : `${MONTH_NAMES[a - 1]} through ${MONTH_NAMES[b - 1]}`)))}`;
}

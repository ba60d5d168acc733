/** The periods of a date-level rule counted from DTSTART (`f`), and BYSETPOS within one period. */
import { daysFromCivil, daysInMonth, wallFields, type WallFields } from '../civil';
import type { Rule } from './rule';

export function applySetPos(list: number[], setPos: number[] | null): number[] {
  return setPos && list.length > 0 ? pickSetPos(list.length, (i) => list[i]!, setPos) : list;
}

/**
 * BYSETPOS over a period's `total` candidates, read by index (`at(i)`, ascending in `i`), so a
 * period of every second of a year is never built just to keep its last one.
 */
export function pickSetPos(total: number, at: (i: number) => number, setPos: number[]): number[] {
  const out = new Set<number>();
  for (const p of setPos) {
    const i = p > 0 ? p - 1 : total + p;
    if (i >= 0 && i < total) {
      out.add(at(i));
    }
  }
  return [...out].sort((a, b) => a - b);
}

/** First and last day number (inclusive) of date-level period `k`. */
export function periodDays(r: Rule, f: WallFields, k: number): [number, number] {
  switch (r.freq) {
    case 'DAILY': {
      const dn = f.dayNum + k * r.interval;
      return [dn, dn];
    }
    case 'WEEKLY': {
      const ws = f.dayNum - ((f.wd - r.wkst + 7) % 7) + 7 * k * r.interval;
      return [ws, ws + 6];
    }
    case 'MONTHLY': {
      const mi = f.y * 12 + (f.m - 1) + k * r.interval;
      const y = Math.floor(mi / 12);
      const m = (mi % 12) + 1;
      const a = daysFromCivil(y, m, 1);
      return [a, a + daysInMonth(y, m) - 1];
    }
    default: {
      const y = f.y + k * r.interval;
      return [daysFromCivil(y, 1, 1), daysFromCivil(y + 1, 1, 1) - 1];
    }
  }
}

/** Period index whose period contains floating time `fl` (rounded down; may be negative). */
export function periodIndexOf(r: Rule, f: WallFields, fl: number): number {
  const g = wallFields(fl);
  switch (r.freq) {
    case 'DAILY':
      return Math.floor((g.dayNum - f.dayNum) / r.interval);
    case 'WEEKLY': {
      const ws0 = f.dayNum - ((f.wd - r.wkst + 7) % 7);
      return Math.floor((g.dayNum - ws0) / (7 * r.interval));
    }
    case 'MONTHLY':
      return Math.floor((g.y * 12 + g.m - (f.y * 12 + f.m)) / r.interval);
    case 'YEARLY':
      return Math.floor((g.y - f.y) / r.interval);
    default:
      return 0;
  }
}

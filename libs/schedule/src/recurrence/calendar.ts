/** Proleptic Gregorian calendar arithmetic on day numbers (days since 1970-01-01), no allocation. */

export const DAY_MS = 86_400_000;

// Civil-date arithmetic is shared with the Quartz and cron evaluators (one implementation, in tz.ts).
export { civilFromDays, daysFromCivil, daysInMonth, isLeapYear as isLeap } from '../tz';
import { civilFromDays, daysFromCivil } from '../tz';

/** Weekday of a day number, 0 = Monday … 6 = Sunday. */
export function weekday(dayNum: number): number {
  return (((dayNum + 3) % 7) + 7) % 7;
}

/** Floating ms of a wall reading. */
export function floating(y: number, m: number, d: number, h = 0, mi = 0, s = 0): number {
  return daysFromCivil(y, m, d) * DAY_MS + ((h * 60 + mi) * 60 + s) * 1000;
}

export interface Fields {
  y: number;
  m: number;
  d: number;
  h: number;
  mi: number;
  s: number;
  /** 0 = Monday. */
  wd: number;
  dayNum: number;
}

export function fieldsOf(fl: number): Fields {
  const dayNum = Math.floor(fl / DAY_MS);
  const [y, m, d] = civilFromDays(dayNum);
  const sod = Math.floor((fl - dayNum * DAY_MS) / 1000);
  return {
    y,
    m,
    d,
    h: Math.floor(sod / 3600),
    mi: Math.floor(sod / 60) % 60,
    s: sod % 60,
    wd: weekday(dayNum),
    dayNum,
  };
}

/** RFC 5545 week number of `dayNum` within year `y` (week 1 = first week with ≥ 4 days in `y`; weeks start on `wkst`). */
export function weekNo(dayNum: number, y: number, wkst: number): number {
  const jan1 = daysFromCivil(y, 1, 1);
  const jan1wd = weekday(jan1);
  // start of week 1
  let w1 = jan1 - ((jan1wd - wkst + 7) % 7);
  if (jan1 - w1 >= 4) {
    w1 += 7;
  }
  return Math.floor((dayNum - w1) / 7) + 1;
}

/** Number of RFC 5545 weeks in year `y`. */
export function weeksInYear(y: number, wkst: number): number {
  const jan1 = daysFromCivil(y, 1, 1);
  const next = daysFromCivil(y + 1, 1, 1);
  let w1 = jan1 - ((weekday(jan1) - wkst + 7) % 7);
  if (jan1 - w1 >= 4) {
    w1 += 7;
  }
  let n1 = next - ((weekday(next) - wkst + 7) % 7);
  if (next - n1 >= 4) {
    n1 += 7;
  }
  return (n1 - w1) / 7;
}

/**
 * Civil-time arithmetic, the one set every grammar uses (proleptic Gregorian calendar, after H.
 * Hinnant's algorithms), on plain numbers:
 * - a *day number*: days since 1970-01-01;
 * - a *wall time* (RFC 5545 calls it *floating*): a calendar date-time read on a wall clock,
 *   encoded as the milliseconds the same fields would have in UTC (`Date.UTC(y, m-1, d, h, mi, s)`),
 *   so civil arithmetic is plain math. Mapping wall times to instants in a zone is tz.ts's.
 * Pure: no clock reads, no Node builtins, no allocation on the hot paths (safe inside the Temporal
 * workflow sandbox).
 */

export const DAY_MS = 86_400_000;

/** Days since 1970-01-01 for a civil date (month 1-12; day may overflow, it is added linearly). */
export function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = (m + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + 1 - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468 + (d - 1);
}

/** Civil date `[year, month 1-12, day 1-31]` of a day count since 1970-01-01. */
export function civilFromDays(z: number): [number, number, number] {
  z += 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const y = yoe + era * 400;
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return [m <= 2 ? y + 1 : y, m, d];
}

const pad2 = (n: number): string => (n < 10 ? `0${n}` : `${n}`);

/** `HH:MM:` for every minute of a day, and `SS.` for every second of a minute. */
const MINUTE_TEXT: readonly string[] = Array.from(
  { length: 1440 },
  (_, m) => `${pad2(Math.floor(m / 60))}:${pad2(m % 60)}:`,
);
const SECOND_TEXT: readonly string[] = Array.from({ length: 60 }, (_, s) => `${pad2(s)}.`);
/** `HH:MM:00.000Z`: most fire times are whole minutes, one concatenation each. */
const WHOLE_MINUTE_TEXT: readonly string[] = MINUTE_TEXT.map((m) => `${m}00.000Z`);
/** `YYYY-MM-DDT` by day number: a list of fire times mostly shares a few days. Bounded. */
const DATE_TEXT = new Map<number, string>();
/** 0000-01-01T00:00:00.000Z and 10000-01-01T00:00:00.000Z: the years `toIsoUtc` writes itself. */
const ISO_MIN_MS = -62_167_219_200_000;
const ISO_END_MS = 253_402_300_800_000;

function dateText(days: number): string {
  let text = DATE_TEXT.get(days);
  if (text === undefined) {
    const [y, m, d] = civilFromDays(days);
    text = `${y < 1000 ? String(y).padStart(4, '0') : y}-${pad2(m)}-${pad2(d)}T`;
    if (DATE_TEXT.size >= 4096) {
      DATE_TEXT.clear();
    }
    DATE_TEXT.set(days, text);
  }
  return text;
}

/**
 * `new Date(ms).toISOString()` (`2026-11-23T08:00:00.000Z`) from precomputed pieces (the date per
 * day, the time per minute and second), several times faster than the built-in: fire-time lists
 * format many instants. Years outside 0000-9999 use the built-in, whose extended-year format this
 * does not reproduce.
 */
export function toIsoUtc(ms: number): string {
  if (!(ms >= ISO_MIN_MS && ms < ISO_END_MS) || !Number.isInteger(ms)) {
    return new Date(ms).toISOString();
  }
  const days = Math.floor(ms / DAY_MS);
  const inDay = ms - days * DAY_MS;
  const minute = Math.floor(inDay / 60_000);
  const inMinute = inDay - minute * 60_000;
  if (inMinute === 0) {
    return dateText(days) + WHOLE_MINUTE_TEXT[minute];
  }
  const second = Math.floor(inMinute / 1000);
  const milli = inMinute - second * 1000;
  const millis = milli === 0 ? '000Z' : milli < 10 ? `00${milli}Z` : milli < 100 ? `0${milli}Z` : `${milli}Z`;
  return dateText(days) + MINUTE_TEXT[minute] + SECOND_TEXT[second] + millis;
}

/** True for Gregorian leap years. */
export function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Number of days in month `m` (1-12) of year `y`. */
export function daysInMonth(y: number, m: number): number {
  return m === 2 && isLeapYear(y) ? 29 : MONTH_DAYS[m - 1];
}

/** Day of week of a day number, Quartz's and cron's order: 0 = Sunday … 6 = Saturday. */
export function weekdayFromSunday(days: number): number {
  return (((days + 4) % 7) + 7) % 7;
}

/** The wall time of civil fields (month 1-12); fields may overflow (lenient arithmetic). */
export function wallFromFields(y: number, m: number, d: number, h = 0, mi = 0, s = 0): number {
  const ym = y * 12 + (m - 1);
  const yy = Math.floor(ym / 12);
  const mm = ym - yy * 12 + 1;
  return (daysFromCivil(yy, mm, 1) + (d - 1)) * DAY_MS + h * 3_600_000 + mi * 60_000 + s * 1000;
}

/** Day of week of a day number, RFC 5545's order: 0 = Monday … 6 = Sunday. */
export function weekdayFromMonday(days: number): number {
  return (((days + 3) % 7) + 7) % 7;
}

/** The fields of a wall time. */
export interface WallFields {
  y: number;
  m: number;
  d: number;
  h: number;
  mi: number;
  s: number;
  /** 0 = Monday (`weekdayFromMonday`). */
  wd: number;
  dayNum: number;
}

/** The fields of `wall` (to the second). */
export function wallFields(wall: number): WallFields {
  const dayNum = Math.floor(wall / DAY_MS);
  const [y, m, d] = civilFromDays(dayNum);
  const sod = Math.floor((wall - dayNum * DAY_MS) / 1000);
  return {
    y,
    m,
    d,
    h: Math.floor(sod / 3600),
    mi: Math.floor(sod / 60) % 60,
    s: sod % 60,
    wd: weekdayFromMonday(dayNum),
    dayNum,
  };
}

/** RFC 5545 week number of `dayNum` within year `y` (week 1 = first week with ≥ 4 days in `y`; weeks start on `wkst`). */
export function weekNo(dayNum: number, y: number, wkst: number): number {
  const jan1 = daysFromCivil(y, 1, 1);
  const jan1wd = weekdayFromMonday(jan1);
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
  let w1 = jan1 - ((weekdayFromMonday(jan1) - wkst + 7) % 7);
  if (jan1 - w1 >= 4) {
    w1 += 7;
  }
  let n1 = next - ((weekdayFromMonday(next) - wkst + 7) % 7);
  if (next - n1 >= 4) {
    n1 += 7;
  }
  return (n1 - w1) / 7;
}

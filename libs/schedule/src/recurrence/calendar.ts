/** Proleptic Gregorian calendar arithmetic on day numbers (days since 1970-01-01), no allocation. */

export const DAY_MS = 86_400_000;

/** Day number of y-m-d (m 1..12). Howard Hinnant's `days_from_civil`. */
export function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** [year, month 1..12, day] of a day number. */
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

export function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

export function daysInMonth(y: number, m: number): number {
  return m === 2 ? (isLeap(y) ? 29 : 28) : [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;
}

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

/**
 * Line-by-line port of Quartz 2.5.2 `CronExpression.getTimeAfter` (org.quartz, Apache-2.0),
 * running on `JavaCalendar`, an emulation of the lenient `java.util.GregorianCalendar` field
 * arithmetic that the algorithm relies on. Porting the algorithm (rather than re-deriving the
 * semantics) is what makes fire times equal Quartz's, including at DST changes:
 * - a wall time inside a DST gap is normalised forward by the calendar, no longer matches the
 *   hour/minute sets, and is therefore skipped for that day;
 * - a repeated wall time resolves to standard time (the offset after the transition), so only the
 *   second instance fires.
 * Known Quartz 2.5.2 quirks reproduced on purpose (see README): none visible for ordinary
 * expressions; with day-of-month lists mixing `L-n` and plain days, and with `nW` plus several
 * hours, Quartz can skip an occurrence, and so do we.
 *
 * Differences from the JVM: Quartz's `MAX_YEAR` is "current year + 100" (a clock read); here it
 * is a parameter (the compiler passes reference year + 100). Quartz's `W` probe calendar carries
 * the current wall-clock milliseconds; here it carries 0.
 */
import type { Budget } from '../../types';
import { civilFromDays, DAY_MS, daysInMonth, wallFromFields, weekdayFromSunday } from '../../civil';
import { classifyWall, instantToWall, lenientWallToInstant, type ZoneOffsets } from '../../tz';
import { ALL_SPEC, LAST_DAY_OFFSET_END, LAST_DAY_OFFSET_START, NO_SPEC, type QuartzFields } from './fields';

/** Emulates the parts of lenient `java.util.GregorianCalendar` that getTimeAfter uses. */
class JavaCalendar {
  year = 1970;
  month = 0; // 0-based like Calendar.MONTH
  day = 1;
  hour = 0;
  minute = 0;
  second = 0;
  private time = 0;
  private dirty = false;

  constructor(private readonly zone: ZoneOffsets) {}

  setTime(instant: number): void {
    this.time = Math.floor(instant / 1000) * 1000; // Quartz clears MILLISECOND
    this.fill();
  }

  private fill(): void {
    const wall = instantToWall(this.zone, this.time);
    const days = Math.floor(wall / DAY_MS);
    if (days !== this.filledDay) {
      // civil date of the day (cached: the search mostly moves within a day)
      const [y, m, d] = civilFromDays(days);
      this.filledDay = days;
      this.filledY = y;
      this.filledM = m - 1;
      this.filledD = d;
    }
    this.year = this.filledY;
    this.month = this.filledM;
    this.day = this.filledD;
    let rest = wall - days * DAY_MS;
    this.hour = Math.floor(rest / 3_600_000);
    rest -= this.hour * 3_600_000;
    this.minute = Math.floor(rest / 60_000);
    this.second = Math.floor((rest - this.minute * 60_000) / 1000);
    this.dirty = false;
  }

  private filledDay = NaN;
  private filledY = 0;
  private filledM = 0;
  private filledD = 0;

  private complete(): void {
    if (!this.dirty) {
      return;
    }
    const wall = wallFromFields(this.year, this.month + 1, this.day, this.hour, this.minute, this.second);
    this.time = lenientWallToInstant(this.zone, wall);
    this.fill();
  }

  getTime(): number {
    this.complete();
    return this.time;
  }
  getYear(): number {
    this.complete();
    return this.year;
  }
  getMonth(): number {
    this.complete();
    return this.month;
  }
  getDay(): number {
    this.complete();
    return this.day;
  }
  getHour(): number {
    this.complete();
    return this.hour;
  }
  getMinute(): number {
    this.complete();
    return this.minute;
  }
  getSecond(): number {
    this.complete();
    return this.second;
  }
  /** Calendar.DAY_OF_WEEK: 1 = Sunday … 7 = Saturday. */
  getDayOfWeek(): number {
    this.complete();
    return weekdayFromSunday(Math.floor(wallFromFields(this.year, this.month + 1, this.day) / DAY_MS)) + 1;
  }
  setYear(v: number): void {
    this.year = v;
    this.dirty = true;
  }
  setMonth(v: number): void {
    this.month = v;
    this.dirty = true;
  }
  setDay(v: number): void {
    this.day = v;
    this.dirty = true;
  }
  setHour(v: number): void {
    this.hour = v;
    this.dirty = true;
  }
  setMinute(v: number): void {
    this.minute = v;
    this.dirty = true;
  }
  setSecond(v: number): void {
    this.second = v;
    this.dirty = true;
  }
}

/** Smallest element >= v of a sorted array, or undefined (TreeSet.tailSet(v).first()). */
function ceil(arr: number[], v: number): number | undefined {
  for (let i = 0; i < arr.length; i++) {
    if (arr[i] >= v) {
      return arr[i];
    }
  }
  return undefined;
}

/** Port of the private `findSmallestDay` (2.5.2, quirks included). */
function findSmallestDay(day: number, mon: number, year: number, set: number[]): number | undefined {
  if (set.length === 0) {
    return undefined;
  }
  const lastDay = daysInMonth(year, mon);
  const c = ceil(set, LAST_DAY_OFFSET_END - (lastDay - day));
  const smallestDay = c === undefined ? Number.MAX_SAFE_INTEGER : c - LAST_DAY_OFFSET_START + 1;
  let first: number | undefined;
  for (const v of set) {
    if (v >= day && v < LAST_DAY_OFFSET_START) {
      first = v;
      break;
    }
  }
  if (first !== undefined && first < smallestDay && first <= lastDay) {
    return first;
  }
  if (smallestDay === Number.MAX_SAFE_INTEGER) {
    return undefined;
  }
  return smallestDay + lastDay - LAST_DAY_OFFSET_START + 1;
}

/**
 * The instant from which Quartz really continues after `afterMs` (see
 * `CompiledSchedule.equivalentAfter`), or null when no sequence of fire times answers for it.
 * - getTimeAfter starts from the wall-clock fields of `after + 1 s` (milliseconds cleared), and its
 *   first field write makes the calendar resolve those fields again: a wall time in the first
 *   (daylight) occurrence of a repeated hour becomes its standard-time instant, as
 *   java.util.GregorianCalendar resolves every ambiguous wall time. So `after` there behaves
 *   exactly like the instant one second before that standard-time instant.
 * - With `W`, whether the shifted weekday is still found depends on where `after` falls on it
 *   (its probe also compares sub-second parts), so such expressions are never answered from a
 *   sequence.
 */
export function quartzEquivalentAfter(q: QuartzFields, zone: ZoneOffsets, afterMs: number): number | null {
  if (q.nearestWeekdays.length > 0) {
    return null;
  }
  if (zone.isUtc) {
    return afterMs;
  }
  const start = Math.floor((afterMs + 1000) / 1000) * 1000;
  const r = classifyWall(zone, instantToWall(zone, start));
  return r.kind === 'overlap' && r.instants[0] === start ? r.instants[1] - 1000 : afterMs;
}

/**
 * True when no month of the expression has any of its days of the month: plain days and `nW`
 * beyond every allowed month's length (`0 0 0 30 2 ?`, `0 0 0 31 4,6,9,11 ?`, `0 0 0 31W 2 ?`).
 * getTimeAfter would walk month by month up to MAX_YEAR and return null; this answers the same at
 * once. `L` forms are left to the walk (their lenient arithmetic can leave the month).
 */
export function neverMatchesStatically(q: QuartzFields): boolean {
  if (q.daysOfMonth.includes(NO_SPEC) || q.daysOfMonth.includes(ALL_SPEC)) {
    return false;
  }
  const days = [...q.daysOfMonth, ...q.nearestWeekdays];
  if (days.length === 0 || days.some((d) => d >= LAST_DAY_OFFSET_START)) {
    return false;
  }
  const smallest = Math.min(...days);
  const months = q.months.includes(ALL_SPEC) ? [1, 3] : q.months;
  return months.every((m) => smallest > (m === 2 ? 29 : daysInMonth(2001, m)));
}

/** Evaluation options. */
export interface QuartzEvalContext {
  zone: ZoneOffsets;
  /** Quartz's MAX_YEAR (the JVM uses current year + 100). */
  maxYear: number;
  budget: Budget;
}

/**
 * Quartz `getTimeAfter`: the first fire time strictly after `after` (ms since epoch; fire times
 * have whole seconds), or null when the expression never fires again (no year left, or past
 * `maxYear`, or past year 2999).
 */
export function quartzTimeAfter(q: QuartzFields, afterMs: number, ctx: QuartzEvalContext): number | null {
  const cl = new JavaCalendar(ctx.zone);
  const afterTime = afterMs + 1000;
  cl.setTime(afterTime);
  const years = q.years;
  const { seconds, minutes, hours, daysOfMonth, nearestWeekdays, months, daysOfWeek } = q;
  const dayOfMSpec = !daysOfMonth.includes(NO_SPEC);
  const dayOfWSpec = !daysOfWeek.includes(NO_SPEC);
  const setCalendarHour = (hour: number): void => {
    cl.setHour(hour);
    if (cl.getHour() !== hour && hour !== 24) {
      cl.setHour(hour + 1);
    }
  };

  for (;;) {
    ctx.budget.check();
    if (cl.getYear() > 2999) {
      return null;
    }

    let sec = cl.getSecond();
    let min = cl.getMinute();

    // second
    let st = ceil(seconds, sec);
    if (st !== undefined) {
      sec = st;
    } else {
      sec = seconds[0];
      min++;
      cl.setMinute(min);
    }
    cl.setSecond(sec);

    min = cl.getMinute();
    let hr = cl.getHour();
    let t = -1;

    // minute
    st = ceil(minutes, min);
    if (st !== undefined) {
      t = min;
      min = st;
    } else {
      min = minutes[0];
      hr++;
    }
    if (min !== t) {
      cl.setSecond(0);
      cl.setMinute(min);
      setCalendarHour(hr);
      continue;
    }
    cl.setMinute(min);

    hr = cl.getHour();
    let day = cl.getDay();
    t = -1;

    // hour
    st = ceil(hours, hr);
    if (st !== undefined) {
      t = hr;
      hr = st;
    } else {
      hr = hours[0];
      day++;
    }
    if (hr !== t) {
      cl.setSecond(0);
      cl.setMinute(0);
      cl.setDay(day);
      setCalendarHour(hr);
      continue;
    }
    cl.setHour(hr);

    day = cl.getDay();
    let mon = cl.getMonth() + 1;
    t = -1;
    const tmon = mon;

    // day
    if (dayOfMSpec && !dayOfWSpec) {
      const year = cl.getYear();
      const smallestDay = findSmallestDay(day, mon, year, daysOfMonth);
      const smallestDayForWeekday = findSmallestDay(day, mon, year, nearestWeekdays);
      t = day;
      day = -1;
      if (smallestDayForWeekday !== undefined) {
        day = smallestDayForWeekday;
        const ldom = daysInMonth(year, mon);
        const dow = weekdayFromSunday(Math.floor(wallFromFields(year, mon, day) / DAY_MS)) + 1;
        if (dow === 7 && day === 1) {
          day += 2;
        } else if (dow === 7) {
          day -= 1;
        } else if (dow === 1 && day === ldom) {
          day -= 2;
        } else if (dow === 1) {
          day += 1;
        }
        const nTime = lenientWallToInstant(ctx.zone, wallFromFields(year, mon, day, hr, min, sec));
        if (nTime < afterTime) {
          day = -1;
        }
      }
      let needAdvance = false;
      if (smallestDay !== undefined) {
        if (day === -1 || smallestDay < day) {
          day = smallestDay;
          needAdvance = true;
        }
      } else if (day === -1) {
        day = 1;
        mon++;
        needAdvance = true;
      }
      if (needAdvance && (day !== t || mon !== tmon)) {
        cl.setSecond(0);
        cl.setMinute(0);
        cl.setHour(0);
        cl.setDay(day);
        cl.setMonth(mon - 1);
        continue;
      }
    } else if (dayOfWSpec && !dayOfMSpec) {
      if (q.lastDayOfWeek) {
        const dow = daysOfWeek[0];
        const cDow = cl.getDayOfWeek();
        let daysToAdd = 0;
        if (cDow < dow) {
          daysToAdd = dow - cDow;
        }
        if (cDow > dow) {
          daysToAdd = dow + (7 - cDow);
        }
        const lDay = daysInMonth(cl.getYear(), mon);
        if (day + daysToAdd > lDay) {
          cl.setSecond(0);
          cl.setMinute(0);
          cl.setHour(0);
          cl.setDay(1);
          cl.setMonth(mon);
          continue;
        }
        while (day + daysToAdd + 7 <= lDay) {
          daysToAdd += 7;
        }
        day += daysToAdd;
        if (daysToAdd > 0) {
          cl.setSecond(0);
          cl.setMinute(0);
          cl.setHour(0);
          cl.setDay(day);
          cl.setMonth(mon - 1);
          continue;
        }
      } else if (q.nthDayOfWeek !== 0) {
        const dow = daysOfWeek[0];
        const cDow = cl.getDayOfWeek();
        let daysToAdd = 0;
        if (cDow < dow) {
          daysToAdd = dow - cDow;
        } else if (cDow > dow) {
          daysToAdd = dow + (7 - cDow);
        }
        const dayShifted = daysToAdd > 0;
        day += daysToAdd;
        let weekOfMonth = Math.floor(day / 7);
        if (day % 7 > 0) {
          weekOfMonth++;
        }
        daysToAdd = (q.nthDayOfWeek - weekOfMonth) * 7;
        day += daysToAdd;
        if (daysToAdd < 0 || day > daysInMonth(cl.getYear(), mon)) {
          cl.setSecond(0);
          cl.setMinute(0);
          cl.setHour(0);
          cl.setDay(1);
          cl.setMonth(mon);
          continue;
        } else if (daysToAdd > 0 || dayShifted) {
          cl.setSecond(0);
          cl.setMinute(0);
          cl.setHour(0);
          cl.setDay(day);
          cl.setMonth(mon - 1);
          continue;
        }
      } else {
        const cDow = cl.getDayOfWeek();
        let dow = daysOfWeek[0];
        const s2 = ceil(daysOfWeek, cDow);
        if (s2 !== undefined) {
          dow = s2;
        }
        let daysToAdd = 0;
        if (cDow < dow) {
          daysToAdd = dow - cDow;
        }
        if (cDow > dow) {
          daysToAdd = dow + (7 - cDow);
        }
        const lDay = daysInMonth(cl.getYear(), mon);
        if (day + daysToAdd > lDay) {
          cl.setSecond(0);
          cl.setMinute(0);
          cl.setHour(0);
          cl.setDay(1);
          cl.setMonth(mon);
          continue;
        } else if (daysToAdd > 0) {
          cl.setSecond(0);
          cl.setMinute(0);
          cl.setHour(0);
          cl.setDay(day + daysToAdd);
          cl.setMonth(mon - 1);
          continue;
        }
      }
    } else {
      throw new Error('unreachable: the parser rejects day-of-month together with day-of-week');
    }
    cl.setDay(day);

    mon = cl.getMonth() + 1;
    let year = cl.getYear();
    t = -1;

    if (year > ctx.maxYear) {
      return null;
    }

    // month
    st = ceil(months, mon);
    if (st !== undefined && st !== ALL_SPEC) {
      t = mon;
      mon = st;
    } else {
      mon = months[0];
      year++;
    }
    if (mon !== t) {
      cl.setSecond(0);
      cl.setMinute(0);
      cl.setHour(0);
      cl.setDay(1);
      cl.setMonth(mon - 1);
      cl.setYear(year);
      continue;
    }
    cl.setMonth(mon - 1);

    year = cl.getYear();
    t = -1;

    // year
    if (years === null) {
      if (year < 1970 || year > ctx.maxYear) {
        return null;
      } // pre-1970 is outside Quartz's range
      t = year;
    } else {
      const y2 = ceil(years, year);
      if (y2 === undefined) {
        return null;
      }
      t = year;
      year = y2;
    }
    if (year !== t) {
      cl.setSecond(0);
      cl.setMinute(0);
      cl.setHour(0);
      cl.setDay(1);
      cl.setMonth(0);
      cl.setYear(year);
      continue;
    }
    cl.setYear(year);
    return cl.getTime();
  }
}

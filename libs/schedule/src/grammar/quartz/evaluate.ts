/**
 * Step-by-step port of Quartz 2.5.2 `CronExpression.getTimeAfter` (org.quartz, Apache-2.0),
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

/** The `java.util.Calendar` fields getTimeAfter reads and sets (MONTH 0-based, DAY_OF_MONTH, HOUR_OF_DAY). */
type CalendarField = 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second';

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
  /** Calendar.get(field): the field after the fields a set left stale are recomputed. */
  get(field: CalendarField): number {
    this.complete();
    return this[field];
  }
  /** Calendar.DAY_OF_WEEK: 1 = Sunday … 7 = Saturday. */
  getDayOfWeek(): number {
    this.complete();
    return weekdayFromSunday(Math.floor(wallFromFields(this.year, this.month + 1, this.day) / DAY_MS)) + 1;
  }
  /** Calendar.set(field, v): lenient, normalised by the next read. */
  set(field: CalendarField, v: number): void {
    this[field] = v;
    this.dirty = true;
  }
}

/**
 * One field's step of getTimeAfter: the least of the sorted `values` at or after `current`, or,
 * past the last, the first with a carry of 1 into the next larger field; `moved` when that is not
 * `current` (Quartz then clears the smaller fields and searches again).
 */
function stepField(values: number[], current: number): { value: number; carry: 0 | 1; moved: boolean } {
  const next = ceil(values, current);
  return next === undefined
    ? { value: values[0], carry: 1, moved: true }
    : { value: next, carry: 0, moved: next !== current };
}

/** Days from weekday `from` to the next `to` (both Calendar.DAY_OF_WEEK, 1..7): 0 when equal, else 1..6. */
function daysUntilWeekday(from: number, to: number): number {
  return from <= to ? to - from : to + (7 - from);
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
  /** Quartz's restart at midnight of `day` of `month0` (0-based; both lenient) and, when given, of `year`. */
  const setCalendarMidnight = (day: number, month0: number, year?: number): void => {
    cl.set('second', 0);
    cl.set('minute', 0);
    cl.set('hour', 0);
    cl.set('day', day);
    cl.set('month', month0);
    if (year !== undefined) {
      cl.set('year', year);
    }
  };
  const setCalendarHour = (hour: number): void => {
    cl.set('hour', hour);
    if (cl.get('hour') !== hour && hour !== 24) {
      cl.set('hour', hour + 1);
    }
  };

  for (;;) {
    ctx.budget.check();
    if (cl.get('year') > 2999) {
      return null;
    }

    let sec = cl.get('second');
    let min = cl.get('minute');

    // second
    let st = ceil(seconds, sec);
    if (st !== undefined) {
      sec = st;
    } else {
      sec = seconds[0];
      min++;
      cl.set('minute', min);
    }
    cl.set('second', sec);

    // minute
    const minute = stepField(minutes, cl.get('minute'));
    if (minute.moved) {
      const hour = cl.get('hour') + minute.carry;
      cl.set('second', 0);
      cl.set('minute', minute.value);
      setCalendarHour(hour);
      continue;
    }
    cl.set('minute', minute.value);
    min = minute.value;

    // hour
    const hourStep = stepField(hours, cl.get('hour'));
    if (hourStep.moved) {
      const nextDay = cl.get('day') + hourStep.carry;
      cl.set('second', 0);
      cl.set('minute', 0);
      cl.set('day', nextDay);
      setCalendarHour(hourStep.value);
      continue;
    }
    cl.set('hour', hourStep.value);
    const hr = hourStep.value;

    let day = cl.get('day');
    let mon = cl.get('month') + 1;
    let t = -1;
    const tmon = mon;

    // day
    if (dayOfMSpec && !dayOfWSpec) {
      const year = cl.get('year');
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
        setCalendarMidnight(day, mon - 1);
        continue;
      }
    } else if (dayOfWSpec && !dayOfMSpec) {
      if (q.lastDayOfWeek) {
        let daysToAdd = daysUntilWeekday(cl.getDayOfWeek(), daysOfWeek[0]);
        const lDay = daysInMonth(cl.get('year'), mon);
        if (day + daysToAdd > lDay) {
          setCalendarMidnight(1, mon);
          continue;
        }
        while (day + daysToAdd + 7 <= lDay) {
          daysToAdd += 7;
        }
        day += daysToAdd;
        if (daysToAdd > 0) {
          setCalendarMidnight(day, mon - 1);
          continue;
        }
      } else if (q.nthDayOfWeek !== 0) {
        let daysToAdd = daysUntilWeekday(cl.getDayOfWeek(), daysOfWeek[0]);
        const dayShifted = daysToAdd > 0;
        day += daysToAdd;
        let weekOfMonth = Math.floor(day / 7);
        if (day % 7 > 0) {
          weekOfMonth++;
        }
        daysToAdd = (q.nthDayOfWeek - weekOfMonth) * 7;
        day += daysToAdd;
        if (daysToAdd < 0 || day > daysInMonth(cl.get('year'), mon)) {
          setCalendarMidnight(1, mon);
          continue;
        } else if (daysToAdd > 0 || dayShifted) {
          setCalendarMidnight(day, mon - 1);
          continue;
        }
      } else {
        const cDow = cl.getDayOfWeek();
        let dow = daysOfWeek[0];
        const s2 = ceil(daysOfWeek, cDow);
        if (s2 !== undefined) {
          dow = s2;
        }
        const daysToAdd = daysUntilWeekday(cDow, dow);
        const lDay = daysInMonth(cl.get('year'), mon);
        if (day + daysToAdd > lDay) {
          setCalendarMidnight(1, mon);
          continue;
        } else if (daysToAdd > 0) {
          setCalendarMidnight(day + daysToAdd, mon - 1);
          continue;
        }
      }
    } else {
      throw new Error('unreachable: the parser rejects day-of-month together with day-of-week');
    }
    cl.set('day', day);

    mon = cl.get('month') + 1;
    let year = cl.get('year');
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
      setCalendarMidnight(1, mon - 1, year);
      continue;
    }
    cl.set('month', mon - 1);

    year = cl.get('year');
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
      setCalendarMidnight(1, 0, year);
      continue;
    }
    cl.set('year', year);
    return cl.getTime();
  }
}

/**
 * RFC 5545 recurrence expansion in a time zone.
 *
 * Nominal fire times come from the rule alone (no jitter, no misfire handling). Invariants of
 * `Recurrence.next`: results are instants strictly after `after`, strictly ascending, within
 * [startsAt, min(endsAt, UNTIL)], and never more than COUNT (counted from DTSTART, in rule order) or
 * the input `count` (counted from the first occurrence at or after `startsAt`).
 *
 * Date-level frequencies expand in floating wall time and map to instants with the RFC 5545 DST
 * policy; a shifted (gap) time can land after a later wall time's instant or on the same instant,
 * so finished periods pass through a small reorder buffer and duplicates are dropped.
 * Sub-daily frequencies step in elapsed time (see `rule.ts`).
 */
import { UNLIMITED_BUDGET } from '../budget';
import { partitionPoint } from '../partition-point';
import type { Budget } from '../types';
import {
  DAY_MS,
  civilFromDays,
  daysFromCivil,
  daysInMonth,
  isLeapYear,
  wallFields,
  type WallFields,
  weekNo,
  weeksInYear,
  weekdayFromMonday,
} from '../civil';
import { instantToWall, maxOffsetNear, rfc5545WallToInstant, type ZoneOffsets, zoneOffsets } from '../tz';
import { applySetPos, periodDays, periodIndexOf, pickSetPos } from './periods';
import type { Rule, TimePoint } from './rule';

/** Periods never start beyond this floating time (year 9999): a rule that has not fired by then never will. */
const HORIZON_FL = daysFromCivil(10000, 1, 1) * DAY_MS;
const HOUR_MS = 3_600_000;
const CYCLE_MS = 146_097 * DAY_MS;

export interface RecurrenceOptions {
  /** IANA zone the wall-clock parts refer to. */
  zone: string;
  /** Instant used as DTSTART when the rule has none (startsAt, else the reference); truncated to the second. */
  anchor: Date;
  startsAt?: Date | null;
  endsAt?: Date | null;
  /**
   * Occurrence limit. The series it counts starts at `startsAt` (inclusive), else strictly after
   * `reference` (the dispatcher's definition, so applying both is idempotent).
   */
  count?: number | null;
  reference?: Date | null;
  /**
   * The anchor is the reference instant (no DTSTART, no startsAt): the anchor itself is not an
   * occurrence, so `every 5 minutes` fires at reference + k·5 min for k ≥ 1 and `3 times` means
   * three fires after the reference.
   */
  anchorExclusive?: boolean;
}

const SUB_DAILY_MS = { HOURLY: HOUR_MS, MINUTELY: 60_000, SECONDLY: 1000 } as const;

/** Ascending floating times, read by index. */
interface CandidateList {
  readonly length: number;
  at(i: number): number;
}

/** Index of the first candidate at or after `fl`, `length` if none. */
function firstIndexAtOrAfter(list: CandidateList, fl: number): number {
  return partitionPoint(list.length, (i) => list.at(i) < fl);
}

export class Recurrence {
  readonly zone: ZoneOffsets;
  /** DTSTART as floating wall time and as instant. */
  readonly dtFl: number;
  readonly dtInstant: number;
  private readonly endLimit: number;
  private readonly startLimit: number;
  private readonly inputCount: number | null;
  private readonly anchorExclusive: boolean;
  private readonly wallStart: boolean;
  private readonly never: boolean;
  // normalized BY* sets
  private readonly months: Set<number> | null;
  private readonly weekNos: number[] | null;
  private readonly yearDays: number[] | null;
  private readonly monthDays: number[] | null;
  private readonly plainDays: Set<number> | null;
  private readonly ordDays: { day: number; n: number }[] | null;
  private readonly hours: number[];
  private readonly minutes: number[];
  private readonly seconds: number[];
  /** Offsets (ms) of a sub-daily period's candidates from its start, ascending. */
  private readonly subDailyOffsets: number[];
  /** Sorted seconds-of-day (date-level frequencies). */
  private readonly times: number[];
  private readonly hourSet: Set<number> | null;
  private readonly sortedMonths: number[] | null;
  /** Wall-clock fields of DTSTART. */
  private readonly dtF: WallFields;
  private readonly minuteSet: Set<number> | null;
  private readonly secondSet: Set<number> | null;

  constructor(
    readonly rule: Rule,
    opts: RecurrenceOptions,
  ) {
    this.zone = zoneOffsets(opts.zone);
    const z = this.zone;
    const dt: TimePoint = rule.dtstart ?? { instant: Math.floor(opts.anchor.getTime() / 1000) * 1000 };
    if ('floating' in dt) {
      this.dtFl = dt.floating;
      this.dtInstant = rfc5545WallToInstant(z, dt.floating);
    } else {
      this.dtInstant = dt.instant;
      this.dtFl = instantToWall(z, dt.instant);
    }
    const until = rule.until
      ? 'floating' in rule.until
        ? rfc5545WallToInstant(z, rule.until.floating)
        : rule.until.instant
      : Infinity;
    this.endLimit = Math.min(until, opts.endsAt ? opts.endsAt.getTime() : Infinity);
    this.inputCount = opts.count ?? null;
    this.startLimit = opts.startsAt
      ? opts.startsAt.getTime()
      : this.inputCount !== null && opts.reference
        ? opts.reference.getTime() + 1
        : -Infinity;
    this.anchorExclusive = !rule.dtstart && !!opts.anchorExclusive;
    this.wallStart = !!rule.dtstart;

    const f = wallFields(this.dtFl);
    const r = rule;
    const dateLevel = r.freq === 'YEARLY' || r.freq === 'MONTHLY' || r.freq === 'WEEKLY' || r.freq === 'DAILY';
    let byMonth = r.byMonth;
    let byMonthDay = r.byMonthDay;
    let byDay = r.byDay;
    if (r.freq === 'YEARLY' && !r.byWeekNo && !r.byYearDay && !byMonthDay && !byDay) {
      if (!byMonth) {
        byMonth = [f.m];
      }
      byMonthDay = [f.d];
    } else if (r.freq === 'MONTHLY' && !byMonthDay && !byDay) {
      byMonthDay = [f.d];
    } else if (r.freq === 'WEEKLY' && !byDay) {
      byDay = [{ day: f.wd, n: 0 }];
    }
    this.months = byMonth ? new Set(byMonth) : null;
    this.sortedMonths = byMonth ? [...new Set(byMonth)].sort((p, q) => p - q) : null;
    this.dtF = f;
    this.weekNos = r.byWeekNo;
    this.yearDays = r.byYearDay;
    this.monthDays = byMonthDay;
    const ordinalsApply = r.freq === 'YEARLY' || r.freq === 'MONTHLY';
    const plain = byDay ? byDay.filter((w) => w.n === 0 || !ordinalsApply) : [];
    const ord = byDay ? byDay.filter((w) => w.n !== 0 && ordinalsApply) : [];
    this.plainDays = byDay ? new Set(plain.map((w) => w.day)) : null;
    this.ordDays = byDay ? ord : null;

    const uniq = (v: number[]): number[] => [...new Set(v)].sort((a, b) => a - b);
    this.hours = uniq(r.byHour ?? [f.h]);
    this.minutes = uniq(r.byMinute ?? [f.mi]);
    this.seconds = uniq(r.bySecond ?? [f.s]);
    const times: number[] = [];
    if (dateLevel) {
      for (const h of this.hours) {
        for (const m of this.minutes) {
          for (const s of this.seconds) {
            times.push(h * 3600 + m * 60 + s);
          }
        }
      }
    }
    this.times = times;
    const offsets: number[] = [];
    if (r.freq === 'HOURLY') {
      for (const m of this.minutes) {
        for (const s of this.seconds) {
          offsets.push((m * 60 + s) * 1000);
        }
      }
    } else if (r.freq === 'MINUTELY') {
      for (const s of this.seconds) {
        offsets.push(s * 1000);
      }
    } else {
      offsets.push(0);
    }
    this.subDailyOffsets = offsets;
    // limits for sub-daily frequencies (their own and smaller units expand instead)
    this.hourSet = !dateLevel && r.byHour ? new Set(r.byHour) : null;
    this.minuteSet = (r.freq === 'MINUTELY' || r.freq === 'SECONDLY') && r.byMinute ? new Set(r.byMinute) : null;
    this.secondSet = r.freq === 'SECONDLY' && r.bySecond ? new Set(r.bySecond) : null;
    this.never = this.neverFires();
  }

  /** Static impossibility: every allowed month lacks every listed month day (e.g. February 30). */
  private neverFires(): boolean {
    if (this.rule.count === 0 || this.inputCount === 0) {
      return true;
    }
    if (this.months && this.rule.freq === 'MONTHLY' && this.rule.interval > 1) {
      const m0 = wallFields(this.dtFl).m - 1;
      let reachable = false;
      for (let k = 0; k < 12; k++) {
        if (this.months.has(((m0 + k * this.rule.interval) % 12) + 1)) {
          reachable = true;
        }
      }
      if (!reachable) {
        return true;
      }
    }
    if (!this.monthDays) {
      return false;
    }
    const months = this.months ? [...this.months] : [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
    return !months.some((m) => {
      const dim = m === 2 ? 29 : daysInMonth(2001, m);
      return this.monthDays!.some((d) => Math.abs(d) <= dim);
    });
  }

  /** Does day `dn` pass the date-level BY* filters? */
  private dayMatches(dn: number): boolean {
    const [y, m, d] = civilFromDays(dn);
    return this.dayMatchesCivil(dn, y, m, d);
  }

  /** `dayMatches` when the caller already knows the civil date of `dn`. */
  private dayMatchesCivil(dn: number, y: number, m: number, d: number): boolean {
    if (this.months && !this.months.has(m)) {
      return false;
    }
    if (this.monthDays && !holdsPosition(this.monthDays, d, daysInMonth(y, m))) {
      return false;
    }
    if (this.yearDays) {
      const yd = dn - daysFromCivil(y, 1, 1) + 1;
      if (!holdsPosition(this.yearDays, yd, isLeapYear(y) ? 366 : 365)) {
        return false;
      }
    }
    if (this.weekNos) {
      const wn = weekNo(dn, y, this.rule.wkst);
      if (wn < 1 || !holdsPosition(this.weekNos, wn, weeksInYear(y, this.rule.wkst))) {
        return false;
      }
    }
    if (this.plainDays) {
      const wd = weekdayFromMonday(dn);
      if (this.plainDays.has(wd)) {
        return true;
      }
      for (const o of this.ordDays!) {
        if (o.day !== wd) {
          continue;
        }
        let idx: number;
        let total: number;
        if (this.rule.freq === 'MONTHLY' || (this.rule.freq === 'YEARLY' && this.months)) {
          idx = d;
          total = daysInMonth(y, m);
        } else {
          idx = dn - daysFromCivil(y, 1, 1) + 1;
          total = isLeapYear(y) ? 366 : 365;
        }
        const nth = Math.floor((idx - 1) / 7) + 1;
        const nthLast = -(Math.floor((total - idx) / 7) + 1);
        if (o.n === nth || o.n === nthLast) {
          return true;
        }
      }
      return false;
    }
    return true;
  }

  /**
   * Candidates (floating, ascending, after BYSETPOS) of date-level period `k`, read by index: a
   * period can hold every second of a year (31.6 million candidates), which is never built.
   */
  private dateCandidates(k: number, budget: Budget): CandidateList {
    const [a, b] = periodDays(this.rule, this.dtF, k);
    const days: number[] = [];
    if (this.rule.freq === 'YEARLY' && this.months && !this.weekNos && !this.yearDays) {
      const [y] = civilFromDays(a);
      for (const m of this.sortedMonths!) {
        const s = daysFromCivil(y, m, 1);
        const e = s + daysInMonth(y, m);
        for (let dn = s; dn < e; dn++) {
          if (this.dayMatchesCivil(dn, y, m, dn - s + 1)) {
            days.push(dn);
          }
        }
      }
    } else if (this.rule.freq === 'MONTHLY' && this.months && !this.months.has(civilFromDays(a)[1])) {
      // BYMONTH limits MONTHLY: nothing in this month
    } else if (this.rule.freq === 'MONTHLY') {
      const [y, m] = civilFromDays(a);
      for (let dn = a; dn <= b; dn++) {
        if (this.dayMatchesCivil(dn, y, m, dn - a + 1)) {
          days.push(dn);
        }
      }
    } else {
      for (let dn = a; dn <= b; dn++) {
        if ((dn & 63) === 0) {
          budget.check();
        }
        if (this.dayMatches(dn)) {
          days.push(dn);
        }
      }
    }
    const times = this.times;
    const product: CandidateList = {
      length: days.length * times.length,
      at: (i) => days[Math.floor(i / times.length)]! * DAY_MS + times[i % times.length]! * 1000,
    };
    if (!this.rule.bySetPos) {
      return product;
    }
    const picked = pickSetPos(product.length, product.at, this.rule.bySetPos);
    return { length: picked.length, at: (i) => picked[i]! };
  }

  /** Candidates (instants, ascending, after BYSETPOS) of sub-daily period starting at instant `start`. */
  private subDailyCandidates(start: number, budget: Budget): number[] {
    const r = this.rule;
    const out: number[] = [];
    const offsets = this.subDailyOffsets;
    for (let i = 0; i < offsets.length; i++) {
      // an HOURLY period can hold 3,600 candidates
      if ((i & 255) === 255) {
        budget.check();
      }
      const t = start + offsets[i]!;
      const fl = instantToWall(this.zone, t);
      const f = wallFields(fl);
      if (!this.dayMatches(f.dayNum)) {
        continue;
      }
      if (this.hourSet && !this.hourSet.has(f.h)) {
        continue;
      }
      if (this.minuteSet && !this.minuteSet.has(f.mi)) {
        continue;
      }
      if (this.secondSet && !this.secondSet.has(f.s)) {
        continue;
      }
      out.push(t);
    }
    return applySetPos(out, r.bySetPos);
  }

  /**
   * Up to `n` fire times strictly after `after`, ascending (see the class invariants).
   * Calls `budget.check()` as it loops; a rule that cannot fire returns `[]`.
   */
  next(after: Date, n: number, budget: Budget = UNLIMITED_BUDGET): Date[] {
    const res: Date[] = [];
    if (n <= 0 || this.never) {
      return res;
    }
    const afterMs = after.getTime();
    const limitedCount = this.rule.count !== null || this.inputCount !== null;
    let rawIndex = 0; // occurrences produced in rule order (for COUNT)
    let seriesIndex = 0; // occurrences at or after startsAt (for the input count)
    let last = -Infinity;
    const lowest = Math.max(afterMs, this.startLimit - 1);
    const emit = (t: number): boolean => {
      // returns false when the series is finished
      if (t <= last) {
        return true;
      }
      if (t > this.endLimit) {
        return false;
      }
      last = t;
      if (t < this.startLimit) {
        return true;
      }
      seriesIndex++;
      if (this.inputCount !== null && seriesIndex > this.inputCount) {
        return false;
      }
      if (t > afterMs) {
        res.push(new Date(t));
      }
      return res.length < n;
    };

    if (this.rule.freq === 'HOURLY' || this.rule.freq === 'MINUTELY' || this.rule.freq === 'SECONDLY') {
      const unit = SUB_DAILY_MS[this.rule.freq];
      const step = unit * this.rule.interval;
      // period 0 starts at DTSTART truncated to its local unit
      const f = wallFields(this.dtFl);
      const trunc =
        this.rule.freq === 'HOURLY' ? (f.mi * 60 + f.s) * 1000 : this.rule.freq === 'MINUTELY' ? f.s * 1000 : 0;
      const p0 = this.dtInstant - trunc;
      let k = limitedCount ? 0 : Math.max(0, Math.floor((lowest - p0) / step) - 1);
      const subHorizon = Math.min(HORIZON_FL, Math.max(lowest, this.dtInstant) + CYCLE_MS);
      for (let iter = 0; ; iter++) {
        if ((iter & 15) === 0) {
          budget.check();
        }
        const start = p0 + k * step;
        if (start > this.endLimit || start > subHorizon) {
          return res;
        }
        // skip whole days (or hours) that the date/hour limits reject
        const pf = wallFields(instantToWall(this.zone, start));
        if (
          step < DAY_MS &&
          !this.dayMatches(pf.dayNum) &&
          !this.dayMatches(wallFields(instantToWall(this.zone, start + unit - 1)).dayNum)
        ) {
          const nextDay = rfc5545WallToInstant(this.zone, (pf.dayNum + 1) * DAY_MS);
          k = Math.max(k + 1, Math.floor((nextDay - p0) / step));
          continue;
        }
        if (this.hourSet && this.rule.freq !== 'HOURLY' && !this.hourSet.has(pf.h) && step < HOUR_MS) {
          const nextHour = start + (HOUR_MS - (pf.mi * 60 + pf.s) * 1000);
          k = Math.max(k + 1, Math.floor((nextHour - p0) / step));
          continue;
        }
        for (const t of this.subDailyCandidates(start, budget)) {
          if (t < this.dtInstant || (this.anchorExclusive && t === this.dtInstant)) {
            continue;
          }
          rawIndex++;
          if (this.rule.count !== null && rawIndex > this.rule.count) {
            return res;
          }
          if (!emit(t)) {
            return res;
          }
        }
        k++;
      }
    }

    // date-level frequencies
    let k = 0;
    const target = instantToWall(this.zone, lowest) - 2 * DAY_MS;
    if (!limitedCount) {
      k = Math.max(0, periodIndexOf(this.rule, this.dtF, target));
    }
    const pending: number[] = [];
    /** Emits, in order, the pending fire times before `lb`; false once the series is finished. */
    const flushBefore = (lb: number): boolean => {
      pending.sort((p, q) => p - q);
      let i = 0;
      while (i < pending.length && pending[i]! < lb) {
        if (!emit(pending[i]!)) {
          return false;
        }
        i++;
      }
      pending.splice(0, i);
      return true;
    };
    /** Lowest instant any candidate at or after floating `fl` can have. */
    const instantFloor = (fl: number): number => fl - maxOffsetNear(this.zone, fl);
    // a rule that has not fired within a Gregorian cycle (400 years) of where we start never will
    const horizon = Math.min(HORIZON_FL, Math.max(instantToWall(this.zone, lowest), this.dtFl) + CYCLE_MS);
    for (let iter = 0; ; iter++) {
      budget.check();
      const [a] = periodDays(this.rule, this.dtF, k);
      const startFl = a * DAY_MS;
      // everything already produced that precedes any instant the coming periods can reach is final
      if ((pending.length || this.endLimit !== Infinity) && !flushBefore(instantFloor(startFl))) {
        return res;
      }
      if (startFl > horizon || instantFloor(startFl) > this.endLimit) {
        flushBefore(Infinity);
        return res;
      }
      if ((this.rule.freq === 'DAILY' || this.rule.freq === 'WEEKLY') && this.months) {
        // DAILY/WEEKLY: jump over months BYMONTH excludes
        const [y, m] = civilFromDays(a);
        const [, m2] = civilFromDays(a + (this.rule.freq === 'WEEKLY' ? 6 : 0));
        if (!this.months.has(m) && !this.months.has(m2)) {
          const nextMonth = daysFromCivil(m === 12 ? y + 1 : y, m === 12 ? 1 : m + 1, 1);
          const nk = periodIndexOf(this.rule, this.dtF, nextMonth * DAY_MS);
          k = Math.max(k + 1, nk);
          continue;
        }
      }
      const candidates = this.dateCandidates(k, budget);
      // without a count to keep, candidates that end well before `lowest` are skipped, not walked
      let i = limitedCount ? 0 : firstIndexAtOrAfter(candidates, target);
      for (; i < candidates.length; i++) {
        const fl = candidates.at(i);
        if ((i & 1023) === 1023) {
          budget.check();
          // a dense period is emitted as it goes instead of piling up
          if (!flushBefore(instantFloor(fl))) {
            return res;
          }
        }
        // a DTSTART is a wall time (RFC 5545 compares wall times); the anchor is an instant, so a
        // wall time in a spring-forward gap before it (02:26 when the anchor is 02:30, just after
        // a 02:00 → 02:30 change) shifts to after it and is an occurrence
        if (this.wallStart && fl < this.dtFl) {
          continue;
        }
        // DTSTART is an exact instant (a one-off `in 20 minutes` may fall in a repeated hour)
        const t = fl === this.dtFl ? this.dtInstant : rfc5545WallToInstant(this.zone, fl);
        // a later wall time in a repeated hour fires at its first instance, which may precede
        // DTSTART / the anchor (anchor 01:00 after a 03:00 → 01:00 fall-back, wall 02:55): not an occurrence
        if (t < this.dtInstant || (this.anchorExclusive && t === this.dtInstant)) {
          continue;
        }
        rawIndex++;
        if (this.rule.count !== null && rawIndex > this.rule.count) {
          flushBefore(Infinity);
          return res;
        }
        pending.push(t);
      }
      k++;
    }
  }
}

/** Does a BY* list of positions (1-based from the start, negative from the end) hold `position` of `size`? */
function holdsPosition(positions: readonly number[], position: number, size: number): boolean {
  for (const v of positions) {
    if (v === position || v === position - size - 1) {
      return true;
    }
  }
  return false;
}

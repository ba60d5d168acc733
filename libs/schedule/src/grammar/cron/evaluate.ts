/**
 * Fast next-occurrence search for 5-field cron. Works on wall time with precomputed "next allowed
 * value" tables (no minute-by-minute scanning): it jumps to the next allowed month, then day, then
 * hour, then minute. One occurrence costs a few table lookups plus one civil-date conversion.
 *
 * DST (documented choice, same as natural/RRULE): RFC 5545 policy. A wall time inside a gap fires
 * shifted forward by the gap length (02:30 → 03:30 on a 02:00→03:00 spring-forward day); a wall
 * time repeated by a fall-back fires once, at its first instance.
 */
import type { Budget } from '../../types';
import { civilFromDays, DAY_MS, daysFromCivil, daysInMonth } from '../../civil';
import { wallToInstant, type ZoneOffsets } from '../../tz';
import type { CronFields } from './parse';

const HOUR_MS = 3_600_000;
const MIN_MS = 60_000;
const NONE = 99;
/** Search horizon: a rule without a match in this many years never fires (28 covers all weekday/leap combinations; 400 the Gregorian cycle). */
const MAX_YEARS = 400;

/** Compiled tables for one expression. */
export class CronMatcher {
  private readonly nextMin: Uint8Array;
  private readonly nextHour: Uint8Array;
  private readonly nextMonth: Uint8Array;
  private readonly domMask: number;
  private readonly dowMask: number;
  private readonly andDays: boolean;
  private readonly firstMin: number;
  private readonly firstHour: number;

  constructor(readonly f: CronFields) {
    this.nextMin = nextTable(f.minutes, 60);
    this.nextHour = nextTable(f.hours, 24);
    this.nextMonth = nextTable(f.months, 13);
    let dm = 0;
    for (let d = 1; d <= 31; d++) {
      if (f.dom[d]) {
        dm |= 1 << d;
      }
    }
    let wm = 0;
    for (let d = 0; d < 7; d++) {
      if (f.dow[d]) {
        wm |= 1 << d;
      }
    }
    this.domMask = dm;
    this.dowMask = wm;
    this.andDays = f.domStar || f.dowStar;
    this.firstMin = this.nextMin[0];
    this.firstHour = this.nextHour[0];
  }

  /** Vixie day rule for day `d` (1-31) with weekday `w` (0 = Sunday). */
  dayMatches(d: number, w: number): boolean {
    const a = (this.domMask >>> d) & 1;
    const b = (this.dowMask >>> w) & 1;
    return this.andDays ? (a & b) === 1 : (a | b) === 1;
  }

  minuteMatches(m: number): boolean {
    return this.nextMin[m] === m;
  }
  hourMatches(h: number): boolean {
    return this.nextHour[h] === h;
  }
  monthMatches(m: number): boolean {
    return this.nextMonth[m] === m;
  }

  /**
   * Smallest matching wall time >= `wall` (wall-time ms, see tz.ts; rounded up to a whole minute),
   * or -1 if none within MAX_YEARS.
   */
  nextWall(wall: number, budget: Budget): number {
    const min0 = Math.ceil(wall / MIN_MS);
    const days = Math.floor(min0 / 1440);
    const rest = min0 - days * 1440;
    let h = Math.floor(rest / 60);
    let mi = rest - h * 60;
    const civ = civilFromDays(days);
    let y = civ[0];
    let mo = civ[1];
    let d = civ[2];
    const yLimit = y + MAX_YEARS;
    const nextMonth = this.nextMonth;
    const nextHour = this.nextHour;
    const nextMin = this.nextMin;
    for (;;) {
      // month
      if (nextMonth[mo] !== mo) {
        const nm = nextMonth[mo];
        if (nm === NONE) {
          y++;
          mo = nextMonth[1];
          if (y > yLimit) {
            return -1;
          }
          budget.check();
        } else {
          mo = nm;
        }
        d = 1;
        h = 0;
        mi = 0;
      }
      // day
      const dim = daysInMonth(y, mo);
      const base = daysFromCivil(y, mo, 1);
      let w = (((base + d - 1 + 4) % 7) + 7) % 7;
      let found = false;
      while (d <= dim) {
        if (this.dayMatches(d, w)) {
          // hour
          let nh = nextHour[h];
          if (nh !== NONE) {
            if (nh !== h) {
              mi = 0;
            }
            let nm = nextMin[mi];
            if (nm === NONE) {
              nh = nextHour[nh + 1];
              nm = this.firstMin;
            }
            if (nh !== NONE) {
              found = true;
              h = nh;
              mi = nm;
              break;
            }
          }
        }
        d++;
        w = w === 6 ? 0 : w + 1;
        h = 0;
        mi = 0;
      }
      if (found) {
        return (base + d - 1) * DAY_MS + h * HOUR_MS + mi * MIN_MS;
      }
      // next month
      mo++;
      if (mo > 12) {
        mo = 1;
        y++;
        if (y > yLimit) {
          return -1;
        }
      }
      d = 1;
      h = 0;
      mi = 0;
      budget.check();
    }
  }

  /**
   * First fire instant strictly after `after` (ms since epoch) in `zone`, or -1. RFC 5545 DST
   * policy; see the module doc. Fire times are whole minutes.
   */
  nextAfter(after: number, zone: ZoneOffsets, budget: Budget): number {
    if (zone.isUtc) {
      return this.nextWall(Math.floor(after / MIN_MS) * MIN_MS + MIN_MS, budget);
    }
    const o = zone.offset(after);
    const oBack = zone.offset(after - 3 * HOUR_MS);
    // After a spring-forward, wall times just before `wall(after)` may still resolve (shifted)
    // after `after`, so look back; otherwise start at the next whole wall minute.
    const lookBack = o > oBack;
    let w = this.nextWall(
      Math.floor((after + o - (lookBack ? 3 * HOUR_MS : 0)) / MIN_MS) * MIN_MS + (lookBack ? 0 : MIN_MS),
      budget,
    );
    let best = -1;
    let oMax = Math.max(o, oBack);
    while (w !== -1) {
      budget.check();
      const uniform = zone.uniformWallDayOffset(w);
      const t = Number.isNaN(uniform) ? (wallToInstant(zone, w, 'rfc5545') as number) : w - uniform; // never null under rfc5545
      if (t > after && (best === -1 || t < best)) {
        best = t;
        oMax = Math.max(oMax, zone.offset(best), zone.offset(best + 3 * HOUR_MS));
      }
      // any later wall time w' resolves to >= w' - oMax
      if (best !== -1 && w + MIN_MS - oMax >= best) {
        break;
      }
      w = this.nextWall(w + MIN_MS, budget);
    }
    return best;
  }

  /**
   * Up to `count` successive fire instants after `after`: what calling `nextAfter` again from each
   * answer gives. From a fire time on a wall-clock day with one offset throughout (no DST change
   * on it or next to it), the next one is the next matching wall time, read with its own day's
   * offset when that day has one offset too: no matching wall time lies in between, and no earlier
   * one can resolve after the fire time (a shifted gap time stays on its own, changing day). Any
   * other case goes through `nextAfter`.
   */
  fireTimes(after: number, count: number, zone: ZoneOffsets, budget: Budget): number[] {
    const out: number[] = [];
    let t = after;
    let wall = NaN; // wall time of `t` when `t` is a fire time on a day with one offset
    while (out.length < count) {
      budget.check();
      if (!Number.isNaN(wall)) {
        const w = this.nextWall(wall + MIN_MS, budget);
        if (w === -1) {
          break;
        }
        const offset = zone.isUtc ? 0 : zone.uniformWallDayOffset(w);
        if (!Number.isNaN(offset) && w - offset > t) {
          t = w - offset;
          wall = w;
          out.push(t);
          continue;
        }
      }
      const n = this.nextAfter(t, zone, budget);
      if (n === -1) {
        break;
      }
      out.push(n);
      t = n;
      const offset = zone.isUtc ? 0 : zone.uniformWallDayOffset(n + zone.offset(n));
      wall = Number.isNaN(offset) ? NaN : n + offset;
    }
    return out;
  }
}

/**
 * "Next allowed value" tables by field array: parse.ts hands out one array per field text, so
 * expressions that share a field share its (read-only) table.
 */
const TABLES = new WeakMap<boolean[], Uint8Array>();

function nextTable(allowed: boolean[], size: number): Uint8Array {
  let t = TABLES.get(allowed);
  if (t === undefined) {
    t = new Uint8Array(size + 1);
    fillNext(t, allowed, size);
    TABLES.set(allowed, t);
  }
  return t;
}

function fillNext(table: Uint8Array, allowed: boolean[], size: number): void {
  let next = NONE;
  table[size] = NONE;
  for (let i = size - 1; i >= 0; i--) {
    if (allowed[i]) {
      next = i;
    }
    table[i] = next;
  }
}

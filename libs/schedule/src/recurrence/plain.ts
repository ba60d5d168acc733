/**
 * Plain recurrence rules as cron fields. Most natural-language schedules (`every weekday at 9am`,
 * `every month on the 1st at 06:00`) and many RRULEs are a set of days (months x month days x
 * weekdays) times a set of wall-clock minutes, with no interval, position or bound: exactly what
 * the 5-field cron evaluator (grammar/cron/evaluate.ts) finds by table lookups, under the same
 * RFC 5545 DST policy. `ruleSchedule` evaluates such rules with it instead of the general RFC 5545
 * expansion (expand.ts), which builds candidate lists per period and costs several times more per
 * fire time. `test/recurrence-plain.spec.ts` checks the two against each other.
 */
import type { CronFields } from '../grammar/cron/parse';
import type { Rule } from './rule';

function setOf(size: number, values: number[], lo: number, hi: number, shift: number): boolean[] | null {
  const out = new Array<boolean>(size).fill(false);
  for (const v of values) {
    if (!Number.isInteger(v) || v < lo || v > hi) {
      return null;
    }
    out[(v + shift) % size] = true;
  }
  return out;
}

/**
 * Sets by their values, shared by the rules that have them (and so are the cron evaluator's
 * tables, which it keeps per set): compiling distinct expressions mostly meets sets seen before.
 * Bounded; cleared when full. `null` values (no such part) is the full set.
 */
const SETS = new Map<string, boolean[] | null>();

function sharedSet(size: number, values: number[] | null, lo: number, hi: number, shift = 0): boolean[] | null {
  const key = values === null ? `${size}` : `${size}:${values.join(',')}`;
  let set = SETS.get(key);
  if (set === undefined) {
    set = values === null ? new Array<boolean>(size).fill(true) : setOf(size, values, lo, hi, shift);
    if (set !== null && lo > 0) {
      set[0] = false; // sets indexed from 1 (month days, months) have no element 0
    }
    if (SETS.size >= 4096) {
      SETS.clear();
    }
    SETS.set(key, set);
  }
  return set;
}

/**
 * The rule's fire times as cron fields when it is plain, else null. Plain: a date-level frequency
 * with interval 1; no DTSTART, COUNT, UNTIL, BYSETPOS, BYWEEKNO or BYYEARDAY; explicit hours and
 * minutes at second 0; positive month days; weekdays without ordinals; and the day parts its
 * frequency needs (otherwise the day would come from the anchor). Every part then limits the days
 * (RFC 5545's expand and limit agree for such sets), so a day fires when it is in every given set.
 */
export function plainRuleFields(r: Rule): CronFields | null {
  if (
    r.interval !== 1 ||
    r.dtstart !== null ||
    r.count !== null ||
    r.until !== null ||
    r.bySetPos !== null ||
    r.byWeekNo !== null ||
    r.byYearDay !== null ||
    r.byHour === null ||
    r.byMinute === null ||
    r.bySecond === null ||
    r.bySecond.length !== 1 ||
    r.bySecond[0] !== 0 ||
    (r.byDay !== null && r.byDay.some((w) => w.n !== 0))
  ) {
    return null;
  }
  const hasDays = r.byDay !== null || r.byMonthDay !== null;
  switch (r.freq) {
    case 'DAILY':
      break;
    case 'WEEKLY':
      if (r.byDay === null || r.byMonthDay !== null) {
        return null;
      }
      break;
    case 'MONTHLY':
    case 'YEARLY':
      if (!hasDays) {
        return null;
      }
      break;
    default:
      return null;
  }
  const minutes = sharedSet(60, r.byMinute, 0, 59);
  const hours = sharedSet(24, r.byHour, 0, 23);
  const dom = sharedSet(32, r.byMonthDay, 1, 31);
  const months = sharedSet(13, r.byMonth, 1, 12);
  // rule weekdays count from Monday (0), cron's from Sunday (0)
  const dow = sharedSet(7, r.byDay === null ? null : r.byDay.map((w) => w.day), 0, 6, 1);
  if (!minutes || !hours || !dom || !months || !dow) {
    return null;
  }
  return {
    minutes,
    hours,
    dom,
    months,
    dow,
    // A day must be in every set given (the cron evaluator's AND rule); `domStar` is set to ask
    // for it even when both day sets are restricted (Vixie cron would take either).
    domStar: true,
    dowStar: r.byDay === null,
    fields: [],
  };
}

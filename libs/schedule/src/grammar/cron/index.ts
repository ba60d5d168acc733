/**
 * `cron` kind: classic 5-field Unix cron with Vixie cron's day rule (see parse.ts) and the
 * RFC 5545 DST policy (see evaluate.ts). Canonical form: the expression unchanged.
 */
import { zoneOffsets } from '../../tz';
import type { Budget, CompileResult, CompiledSchedule, ScheduleInput } from '../../types';
import type { GrammarContext } from '../context';
import { allowedValues, fieldGapLowerBound } from '../../min-gap';
import { describeMonths, describeTimeOfDay, describeWeekdays, joinList, ordinalNumber } from '../describe';
import { CronMatcher } from './evaluate';
import { parseCron, type CronFields } from './parse';

export { parseCron, MACROS } from './parse';
export type { CronFields } from './parse';
export { CronMatcher } from './evaluate';

const values = (a: boolean[], lo: number, hi: number): number[] => {
  const out: number[] = [];
  for (let i = lo; i <= hi; i++) {
    if (a[i]) {
      out.push(i);
    }
  }
  return out;
};

/**
 * Per-field results shared by the expressions that have those fields (keyed by field text, as
 * parse.ts memoises the fields themselves): a stream of unseen expressions mostly recombines
 * fields already seen. Bounded; cleared when full.
 */
class FieldMemo<V> {
  private readonly map = new Map<string, V>();
  get(key: string, make: () => V): V {
    let v = this.map.get(key);
    if (v === undefined) {
      v = make();
      if (this.map.size >= 4096) {
        this.map.clear();
      }
      this.map.set(key, v);
    }
    return v;
  }
}
// Keyed by field texts, never by whole expressions: distinct expressions would only fill the
// memo with entries that are never read again (and keep the garbage collector busy).
const TIMES_OF_DAY = new FieldMemo<string>();
const GAP_BOUNDS = new FieldMemo<number>();
const DAYS = new FieldMemo<{ days: string; months: string }>();

/** English description, e.g. `At 09:00 every weekday (UTC)`. */
export function describeCron(f: CronFields, timezone: string): string {
  return `${describeCronFields(f)} (${timezone})`;
}

function describeCronFields(f: CronFields): string {
  const time = TIMES_OF_DAY.get(`${f.fields[0]} ${f.fields[1]}`, () =>
    describeTimeOfDay(null, values(f.minutes, 0, 59), values(f.hours, 0, 23)),
  );
  const days = DAYS.get(`${f.fields[2]} ${f.fields[3]} ${f.fields[4]}`, () => describeDays(f));
  const text = [time, days.days === 'every day' && /^every /.test(time) ? '' : days.days, days.months]
    .filter(Boolean)
    .join(' ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
}

/** The day and month parts of a description (they depend on the last three fields only). */
function describeDays(f: CronFields): { days: string; months: string } {
  const dom = values(f.dom, 1, 31);
  const dow = values(f.dow, 0, 6);
  const domAll = dom.length === 31;
  const dowAll = dow.length === 7;
  // built only when used: 31 ordinals for `*` cost more than the rest of the description
  const domText = (): string => `on the ${joinList(dom.map(ordinalNumber))} of the month`;
  let days: string;
  if (domAll && dowAll) {
    days = 'every day';
  } else if (f.domStar || f.dowStar) {
    // AND rule
    if (domAll) {
      days = describeWeekdays(dow);
    } else if (dowAll) {
      days = domText();
    } else {
      days = `${domText()} if it is ${describeWeekdays(dow)
        .replace(/^on /, 'a ')
        .replace(/^every /, 'a ')}`;
    }
  } else {
    days = `${domText()} and ${describeWeekdays(dow)}`;
  }
  return { days, months: describeMonths(values(f.months, 1, 12)) };
}

/** Compiles a 5-field cron expression (or macro). `next()` is unbounded; the dispatcher applies bounds. */
export function compileCron(input: ScheduleInput, ctx: GrammarContext): CompileResult {
  const parsed = parseCron(input.expr);
  if (!parsed.ok) {
    return { ok: false, kindDetected: 'cron', errors: parsed.errors };
  }
  const f = parsed.fields;
  const matcher = new CronMatcher(f);
  const zone = zoneOffsets(ctx.timezone);
  const schedule: CompiledSchedule = {
    kind: 'cron',
    canonical: input.expr.trim(),
    description: describeCron(f, ctx.timezone),
    timezone: ctx.timezone,
    oneOff: false,
    referenceFree: true,
    minGapLowerBoundMs: GAP_BOUNDS.get(`${f.fields[0]} ${f.fields[1]} ${zone.isUtc}`, () =>
      fieldGapLowerBound([0], allowedValues(f.minutes), allowedValues(f.hours), zone.isUtc),
    ),
    next(after: Date, count: number, budget?: Budget): Date[] {
      return matcher.fireTimes(after.getTime(), count, zone, budget ?? ctx.budget).map((t) => new Date(t));
    },
    nextTimes: (afterMs: number, count: number, budget?: Budget): number[] =>
      matcher.fireTimes(afterMs, count, zone, budget ?? ctx.budget),
  };
  return { ok: true, kindDetected: 'cron', schedule };
}

/** A one-off natural schedule (`in 20 minutes`, `tomorrow at 9am`, `2026-12-04 09:00`) as a one-count rule. */
import { DAY_MS, daysInMonth, wallFields, wallFromFields } from '../../civil';
import { formatDate } from '../../recurrence/describe';
import { emptyRule } from '../../recurrence/rule';
import type { ScheduleError } from '../../types';
import { instantToWall, rfc5545WallToInstant, type ZoneOffsets } from '../../tz';
import type { Built } from './build';
import { UNIT_SEC } from './rule-shape';
import { spanErrors, type OneOff, type Spec } from './spec';

/** The recurring clauses of a spec, each `null` or with the `span` it was written at. */
type ClashingClause = Exclude<keyof Spec, 'times' | 'oneOff' | 'yearDate' | 'monthly'>;

/** Compiles to `FREQ=DAILY;COUNT=1;DTSTART=<UTC instant>Z`; any recurring clause beside the one-off is a conflict. */
export function buildOneOff(
  expr: string,
  spec: Spec,
  o: OneOff,
  z: ZoneOffsets,
  reference: Date,
): { built: Built | null; errors: ScheduleError[] } {
  const { errors, err } = spanErrors(expr);
  /** The clauses a one-off date cannot go with, and how the error names each. */
  const clash: [ClashingClause, string][] = [
    ['interval', 'a repetition'],
    ['weekdays', 'weekdays'],
    ['nthWeekdays', 'weekdays of the month'],
    ['setPos', 'weekdays of the month'],
    ['monthDays', 'days of the month'],
    ['months', 'months'],
    ['window', 'a time window'],
    ['count', 'a number of times'],
    ['starting', 'a start date'],
    ['until', 'an end date'],
    ['phase', 'a starting time'],
    ['perDay', 'a number of times a day'],
    ['except', 'excepted days'],
  ];
  for (const [clause, what] of clash) {
    const span = spec[clause]?.span;
    if (span) {
      err(
        span,
        'conflict',
        `a one-off schedule ("${expr.slice(o.span.start, o.span.end)}") cannot have ${what}; remove one of them`,
      );
    }
  }
  if (spec.times.length > 1) {
    err(spec.times[1]!.span, 'conflict', 'a one-off schedule has a single time');
  }
  const time = spec.times[0];
  if (time && ((o.kind === 'date' && o.hasTime) || (o.kind === 'in' && o.unit in UNIT_SEC))) {
    err(time.span, 'conflict', `the time is already given by "${expr.slice(o.span.start, o.span.end)}"`);
  }
  if (errors.length) {
    return { built: null, errors };
  }
  const ref = Math.floor(reference.getTime() / 1000) * 1000;
  let instant: number;
  if (o.kind === 'in' && o.unit in UNIT_SEC) {
    instant = ref + o.n * UNIT_SEC[o.unit as keyof typeof UNIT_SEC] * 1000;
  } else {
    let fl: number;
    if (o.kind === 'in') {
      const f = wallFields(instantToWall(z, ref));
      let { y, m, d } = f;
      if (o.unit === 'day' || o.unit === 'week') {
        d += o.n * (o.unit === 'week' ? 7 : 1);
      } else {
        const months = o.unit === 'month' ? o.n : 12 * o.n;
        const mi = y * 12 + m - 1 + months;
        y = Math.floor(mi / 12);
        m = (mi % 12) + 1;
        d = Math.min(d, daysInMonth(y, m));
      }
      fl =
        wallFromFields(y, m, 1) + (d - 1) * DAY_MS + (time ? time.sec * 1000 : (f.h * 3600 + f.mi * 60 + f.s) * 1000);
    } else if (o.kind === 'day' || o.kind === 'next') {
      const f = wallFields(instantToWall(z, ref));
      const offset = o.kind === 'day' ? o.offset : (o.weekday - f.wd + 7) % 7 || 7;
      fl = (f.dayNum + offset) * DAY_MS + (time ? time.sec : 0) * 1000;
    } else {
      fl = o.fl + (time ? time.sec * 1000 : 0);
    }
    instant = rfc5545WallToInstant(z, fl);
  }
  const rule = emptyRule('DAILY');
  rule.count = 1;
  rule.dtstart = { instant };
  const local = formatDate({ floating: instantToWall(z, instant) });
  return {
    built: {
      rule,
      oneOff: true,
      usesReference: true,
      description: `Once at ${local.includes(' ') ? local : `${local} 00:00`}`,
    },
    errors,
  };
}

/**
 * Turns a parsed natural `Spec` into an RFC 5545 `Rule` (or a one-off), with semantic errors.
 *
 * Conventions (documented for users in docs/schedules.md):
 * - Sub-day intervals (`every 5 minutes`, `hourly`) are fixed elapsed-time intervals phased from the
 *   anchor (the `starting` date, else the input's `startsAt`, else the reference instant).
 * - Day, week, month and year steps are calendar steps in the zone's wall time; without a time they
 *   fire at 00:00; `every 3 days` / `every 2 weeks` count from the anchor's day / week.
 * - A window `between A and B` is half-open: `every 15 minutes between 9am and 5pm` fires
 *   09:00, 09:15 … 16:45.
 * - `until DATE` includes that whole day (UNTIL=DATE T235959).
 * - A one-off compiles to `FREQ=DAILY;COUNT=1;DTSTART=<UTC instant>Z`.
 */
import { DAY_MS, daysInMonth, wallFields } from '../../civil';
import { describeRule, clock } from '../../recurrence/describe';
import type { DescribeExtras } from '../../recurrence/describe';
import { emptyRule } from '../../recurrence/rule';
import type { Freq, Rule } from '../../recurrence/rule';
import type { ScheduleError } from '../../types';
import { instantToWall, zoneOffsets } from '../../tz';
import { buildOneOff } from './one-off';
import {
  MONTHS,
  UNIT_SEC,
  canonicalCalendarStep,
  canonicalInterval,
  daysPerPeriod,
  gridOf,
  phaseStart,
  stepLabel,
} from './rule-shape';
import { spanErrors, type Spec } from './spec';

export interface Built {
  rule: Rule;
  oneOff: boolean;
  description: string;
  /** True when the rule was resolved against the reference instant (one-offs, `starting tomorrow`, a default day). */
  usesReference: boolean;
}

export function buildNatural(
  expr: string,
  spec: Spec,
  zone: string,
  reference: Date,
): { built: Built | null; errors: ScheduleError[] } {
  const { errors, err } = spanErrors(expr);
  const z = zoneOffsets(zone);

  if (spec.oneOff) {
    return buildOneOff(expr, spec, spec.oneOff, z, reference);
  }

  let usesReference = false;
  if (spec.starting?.relDays !== undefined) {
    usesReference = true;
    const day = wallFields(instantToWall(z, reference.getTime())).dayNum + spec.starting.relDays;
    spec.starting = { ...spec.starting, fl: day * DAY_MS + spec.starting.fl, relDays: undefined };
  }

  // one spelling per interval: `every 60 seconds` is `every minute`, `every 120 minutes` `every 2 hours`
  if (spec.phase?.minuteOfHour && !spec.interval) {
    // `at minute 30` alone: every hour at that minute
    spec.interval = { n: 1, unit: 'hour', span: spec.phase.span };
  }
  if (spec.phase?.minuteOfHour && spec.interval && spec.interval.unit !== 'hour') {
    err(spec.phase.span, 'conflict', 'a minute past the hour goes with hours: `every 2 hours at 15 minutes past`');
  }
  const iv = spec.interval ? { ...spec.interval, ...canonicalInterval(spec.interval.n, spec.interval.unit) } : null;
  const subDaily = !!iv && iv.unit in UNIT_SEC;
  if (spec.perDay) {
    const pd = spec.perDay;
    if (iv) {
      err(
        pd.span,
        'conflict',
        `"${expr.slice(pd.span.start, pd.span.end)}" and "${expr.slice(iv.span.start, iv.span.end)}" both say how often; give one`,
      );
    } else if (spec.times.length && spec.times.length !== pd.k) {
      err(
        spec.times[0]!.span,
        'conflict',
        `"${expr.slice(pd.span.start, pd.span.end)}" needs ${pd.k} time${pd.k === 1 ? '' : 's'}; got ${spec.times.length}`,
      );
    } else if (!spec.times.length) {
      // evenly spaced from midnight: twice a day = 00:00 and 12:00
      spec.times = Array.from({ length: pd.k }, (_, i) => ({ sec: (i * 86_400) / pd.k, span: pd.span }));
    }
  }
  if (spec.phase) {
    const ph = spec.phase;
    if (!iv) {
      err(ph.span, 'incomplete', 'a starting time phases a repetition: `every 6 hours starting at 2am`');
    } else if (spec.window || spec.times.length) {
      const other = spec.window?.span ?? spec.times[0]!.span;
      err(
        ph.span.start > other.start ? ph.span : other,
        'conflict',
        `"${expr.slice(ph.span.start, ph.span.end)}" and "${expr.slice(other.start, other.end)}" both set the times; give one`,
      );
    } else if (spec.starting) {
      err(ph.span, 'conflict', 'the start is given twice; give it once');
    } else if (!subDaily) {
      // `every 2 days starting at 9am`: for calendar steps the starting time is the time of day
      spec.times = [{ sec: ph.sec, span: ph.span }];
    }
  }
  if (spec.except) {
    const ex = spec.except;
    if (spec.nthWeekdays || spec.setPos) {
      const other = (spec.nthWeekdays ?? spec.setPos)!.span;
      err(ex.span, 'conflict', `"${expr.slice(other.start, other.end)}" already picks the day; remove the exception`);
    } else if (
      iv &&
      (iv.unit === 'week' || iv.unit === 'month' || iv.unit === 'year') &&
      !spec.weekdays &&
      !spec.monthDays &&
      !spec.yearDate
    ) {
      err(
        ex.span,
        'conflict',
        `"${expr.slice(iv.span.start, iv.span.end)}" fires on one day each time; name the days instead (\`every 2 weeks on monday and friday\`)`,
      );
    } else {
      const base = spec.weekdays?.days ?? [0, 1, 2, 3, 4, 5, 6];
      const days = base.filter((d) => !ex.days.includes(d));
      if (!days.length) {
        err(ex.span, 'never_fires', 'no day is left after the exception: this never fires');
      } else {
        spec.weekdays = { days, span: spec.weekdays?.span ?? ex.span };
      }
    }
  }
  const stepSec = subDaily ? iv!.n * UNIT_SEC[iv!.unit as keyof typeof UNIT_SEC] : 0;
  // `every 6 hours starting at 2am`: a step that divides the day gives the same wall times every
  // day (02:00, 08:00, 14:00, 20:00); any other step counts elapsed time from that time (phaseFrom)
  const phaseDaily = !!spec.phase && subDaily && 86_400 % stepSec === 0;
  const gridDaily = !!spec.window || phaseDaily;
  if (spec.window && !subDaily) {
    err(
      spec.window.span,
      'incomplete',
      // no suggestion: any interval we picked would be a schedule the user did not write
      'a time window needs a repetition in seconds, minutes or hours, e.g. `every 15 minutes between 9am and 5pm`',
    );
  }
  if (subDaily && spec.times.length) {
    err(
      spec.times[0]!.span,
      'conflict',
      `"${expr.slice(iv!.span.start, iv!.span.end)}" already sets the times; remove the time or use a window (\`between 9am and 5pm\`)`,
    );
  }
  if (subDaily && spec.nthWeekdays) {
    err(
      spec.nthWeekdays.span,
      'conflict',
      'weekdays of the month (`first monday`) cannot be combined with an interval in seconds, minutes or hours',
    );
  }
  const sp = spec.setPos;
  if (sp) {
    if (subDaily && !gridDaily) {
      err(
        sp.span,
        'conflict',
        `the ${sp.label} of the month cannot be combined with an interval in seconds, minutes or hours`,
      );
    }
    const other = spec.weekdays ?? spec.nthWeekdays ?? spec.monthDays;
    if (other) {
      err(
        sp.span.start > other.span.start ? sp.span : other.span,
        'conflict',
        `"${expr.slice(sp.span.start, sp.span.end)}" already picks the day; it cannot be combined with "${expr.slice(other.span.start, other.span.end)}"`,
      );
    }
    if (iv && (iv.unit === 'day' || iv.unit === 'week')) {
      err(
        sp.span,
        'conflict',
        `the ${sp.label} of the month is counted within a month; use \`every month on the last ${sp.label}\``,
      );
    }
    if (iv?.unit === 'year' && iv.n > 1 && (spec.months?.months.length ?? 0) !== 1) {
      err(
        sp.span,
        'unsupported',
        `every ${iv.n} years, the ${sp.label} of the month needs one month, e.g. \`of march\``,
      );
    }
  }
  if (spec.monthDays && spec.nthWeekdays) {
    err(
      spec.nthWeekdays.span,
      'conflict',
      'days of the month and weekdays of the month (`first monday`) cannot be combined; make two schedules',
    );
  }
  if (spec.monthDays && spec.weekdays && !subDaily && !spec.nthWeekdays) {
    // RFC 5545: both limit each other (`friday the 13th`): allowed.
  }
  const yearly = iv?.unit === 'year' || !!spec.yearDate;
  const monthly = iv?.unit === 'month' || !!spec.monthDays || !!spec.nthWeekdays || !!spec.monthly;
  if (iv && (iv.unit === 'day' || iv.unit === 'week') && (spec.monthDays || spec.nthWeekdays || spec.yearDate)) {
    const span = (spec.monthDays ?? spec.nthWeekdays)?.span ?? spec.yearDate!;
    err(
      span,
      'conflict',
      `"${expr.slice(iv.span.start, iv.span.end)}" cannot be combined with days of the month; use \`every month on …\``,
    );
  }
  if (iv?.unit === 'month' && spec.yearDate) {
    err(
      spec.yearDate,
      'conflict',
      'a date in the year (`march 15`) repeats every year, not every month; use `every year on march 15`',
    );
  }
  if (spec.nthWeekdays && iv?.unit === 'week') {
    err(
      spec.nthWeekdays.span,
      'conflict',
      '`first`/`last` weekdays are counted within a month; use `every month on the first monday`',
    );
  }
  if (spec.starting && spec.until && spec.until.fl < spec.starting.fl) {
    err(spec.until.span, 'out_of_range', 'the end date is before the start date');
  }
  if (spec.monthDays && spec.months) {
    const possible = spec.months.months.some((m) =>
      spec.monthDays!.days.some((d) => d === -1 || d <= daysInMonth(2000, m)),
    );
    if (!possible) {
      err(
        spec.monthDays.span,
        'never_fires',
        `this never fires: ${spec.months.months.map((m) => MONTHS[m - 1]).join(', ')} never has that day`,
      );
    }
  }
  if (errors.length) {
    return { built: null, errors };
  }

  let freq: Freq;
  let interval = 1;
  if (sp) {
    // BYSETPOS counts within one period: a month (a year only for `every N years … of march`)
    freq = iv?.unit === 'year' && iv.n > 1 ? 'YEARLY' : 'MONTHLY';
    interval = iv?.unit === 'month' || iv?.unit === 'year' ? iv.n : 1;
  } else if (subDaily && !gridDaily) {
    freq = iv!.unit === 'second' ? 'SECONDLY' : iv!.unit === 'minute' ? 'MINUTELY' : 'HOURLY';
    interval = iv!.n;
  } else if (subDaily) {
    freq = 'DAILY';
  } else if (yearly) {
    freq = 'YEARLY';
    if (iv?.unit === 'year') {
      interval = iv.n;
    }
  } else if (monthly) {
    freq = 'MONTHLY';
    if (iv?.unit === 'month') {
      interval = iv.n;
    }
  } else if (iv?.unit === 'week' || (spec.weekdays && iv?.unit !== 'day')) {
    freq = 'WEEKLY';
    if (iv?.unit === 'week') {
      interval = iv.n;
    }
  } else {
    freq = 'DAILY';
    if (iv?.unit === 'day') {
      interval = iv.n;
    }
  }
  const rule = emptyRule(freq);
  rule.interval = interval;
  if (sp) {
    rule.byDay = sp.days.map((day) => ({ day, n: 0 }));
  }
  if (spec.weekdays || spec.nthWeekdays) {
    rule.byDay = [...(spec.weekdays?.days.map((day) => ({ day, n: 0 })) ?? []), ...(spec.nthWeekdays?.list ?? [])];
    rule.byDay = rule.byDay.filter((w, i, a) => a.findIndex((v) => v.day === w.day && v.n === w.n) === i);
  }
  if (spec.monthDays) {
    rule.byMonthDay = [...new Set(spec.monthDays.days)];
  }
  if (spec.months) {
    rule.byMonth = [...new Set(spec.months.months)].sort((a, b) => a - b);
  }
  if (spec.starting) {
    rule.dtstart = { floating: spec.starting.fl };
  } else if (spec.phase && subDaily && !gridDaily) {
    usesReference = true;
    rule.dtstart = phaseStart(z, reference.getTime(), spec.phase.sec, stepSec);
  }
  if (spec.until) {
    rule.until = { floating: spec.until.hasTime ? spec.until.fl : spec.until.fl + DAY_MS - 1000 };
  }
  if (spec.count) {
    rule.count = spec.count.n;
  }

  const extras: DescribeExtras = {};
  if (!subDaily || gridDaily) {
    let times: number[];
    if (phaseDaily) {
      const from = spec.phase!.sec;
      times = [];
      for (let t = from; t < from + 86_400; t += stepSec) {
        times.push(t % 86_400);
      }
      times.sort((a, b) => a - b);
      extras.phase = { step: stepLabel(iv!), from };
    } else if (spec.window) {
      const step = iv!.n * UNIT_SEC[iv!.unit as keyof typeof UNIT_SEC];
      const { from, to } = spec.window;
      const end = to > from ? to : to + 86_400;
      times = [];
      for (let t = from; t < end; t += step) {
        times.push(t % 86_400);
      }
      times.sort((a, b) => a - b);
      extras.window = {
        step: stepLabel(iv!),
        from,
        to,
        last: (from + Math.floor((end - 1 - from) / step) * step) % 86_400,
      };
    } else {
      times = spec.times.map((t) => t.sec).sort((a, b) => a - b);
    }
    if (!times.length) {
      times = [0];
    }
    const g = gridOf(times);
    rule.byHour = g.hours;
    rule.byMinute = g.minutes;
    rule.bySecond = g.seconds;
    if (sp) {
      // the candidates of a period are day × time grid: the nth day's times are positions
      // (n-1)·size + p from the start, or n·size + (p-1) from the end
      const size = g.hours.length * g.minutes.length * g.seconds.length;
      const picks = g.positions ?? Array.from({ length: size }, (_, i) => i + 1);
      rule.bySetPos = sp.ns.flatMap((n) => picks.map((p) => (n > 0 ? (n - 1) * size + p : n * size + (p - 1))));
      if (g.positions) {
        extras.times = times;
      }
      extras.setPos = { ns: sp.ns, label: sp.label };
    } else if (g.positions) {
      extras.times = times;
      const perPeriod = daysPerPeriod(rule);
      if (perPeriod === 1) {
        rule.bySetPos = g.positions;
      } else if (rule.freq === 'WEEKLY' && rule.interval === 1 && rule.byDay?.every((d) => d.n === 0)) {
        rule.freq = 'DAILY';
        rule.bySetPos = g.positions;
      } else if (perPeriod !== null) {
        const size = g.hours.length * g.minutes.length * g.seconds.length;
        const pos: number[] = [];
        for (let d = 0; d < perPeriod; d++) {
          for (const p of g.positions) {
            pos.push(d * size + p);
          }
        }
        rule.bySetPos = pos;
      } else if (
        (rule.freq === 'MONTHLY' || rule.freq === 'YEARLY') &&
        rule.interval === 1 &&
        !rule.byDay?.some((d) => d.n !== 0)
      ) {
        usesReference ||= !spec.starting;
        if (rule.freq === 'YEARLY' && !rule.byMonth && !rule.byMonthDay) {
          const f = wallFields(spec.starting?.fl ?? instantToWall(zoneOffsets(zone), reference.getTime()));
          rule.byMonth = [f.m];
          rule.byMonthDay = [f.d];
        } else if (rule.freq === 'MONTHLY' && !rule.byMonthDay) {
          rule.byMonthDay = [wallFields(spec.starting?.fl ?? instantToWall(zoneOffsets(zone), reference.getTime())).d];
        }
        rule.freq = 'DAILY';
        rule.bySetPos = g.positions;
      } else {
        const span = spec.times[1]?.span ?? spec.window?.span ?? { start: 0, end: expr.length };
        err(
          span,
          'unsupported',
          `several times that differ in their minutes (${times.slice(0, 3).map(clock).join(', ')}) cannot be combined with this day pattern; use times that share their minutes (8:00 and 20:00) or make two schedules`,
        );
        return { built: null, errors };
      }
    }
  }
  canonicalCalendarStep(rule);
  const description = describeRule(rule, extras);
  return { built: { rule, oneOff: false, usesReference, description }, errors };
}

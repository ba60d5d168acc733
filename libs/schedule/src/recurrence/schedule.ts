/** Wraps a `Rule` into the public `CompiledSchedule`. */
import type { Budget, CompiledSchedule, ScheduleKind } from '../types';
import { UNLIMITED_BUDGET } from '../budget';
import { CronMatcher } from '../grammar/cron/evaluate';
import { Recurrence } from './expand';
import { fieldGapLowerBound } from '../min-gap';
import { zoneOffsets } from '../tz';
import { plainRuleFields } from './plain';
import { isAnchorIndependent, type Rule } from './rule';

export interface RuleScheduleOptions {
  kind: ScheduleKind;
  rule: Rule;
  canonical: string;
  description: string;
  timezone: string;
  oneOff: boolean;
  /** False when the grammar resolved something against the reference (a relative date, a default day). */
  referenceFree: boolean;
  reference: Date;
  startsAt?: Date | null;
  endsAt?: Date | null;
  count?: number | null;
}

/**
 * `next()` expands `rule` in `timezone`. A rule without DTSTART is anchored at `startsAt`, else at
 * `reference` (so `every 5 minutes` fires at anchor + k·5 min, `every 2 weeks` counts weeks from the
 * anchor's week). When anchored at the reference, the reference itself is not an occurrence.
 * Input bounds apply on top of the rule's own COUNT/UNTIL, with the same series definition as the
 * dispatcher's `withBounds` (so applying them twice changes nothing).
 */
export function ruleSchedule(o: RuleScheduleOptions): CompiledSchedule {
  return {
    kind: o.kind,
    canonical: o.canonical,
    description: o.description,
    timezone: o.timezone,
    oneOff: o.oneOff,
    // Input bounds: a count without startsAt counts from the reference.
    minGapLowerBoundMs: ruleGapLowerBound(o.rule, o.timezone),
    referenceFree: o.referenceFree && isAnchorIndependent(o.rule) && !((o.count ?? null) !== null && !o.startsAt),
    ...(plainRuleNext(o) ?? { next: recurrenceNext(o) }),
  };
}

function recurrenceNext(o: RuleScheduleOptions): CompiledSchedule['next'] {
  const rec = new Recurrence(o.rule, {
    zone: o.timezone,
    anchor: o.startsAt ?? o.reference,
    startsAt: o.startsAt ?? null,
    endsAt: o.endsAt ?? null,
    count: o.count ?? null,
    reference: o.reference,
    anchorExclusive: !o.startsAt,
  });
  return (after, count, budget) => rec.next(after, count, budget);
}

/**
 * A plain rule without input bounds (plain.ts) by the cron evaluator. Its anchor is the reference
 * (truncated to the second, as `Recurrence` does) and is not an occurrence, so fire times start
 * after it even when `after` is earlier.
 */
function plainRuleNext(o: RuleScheduleOptions): Pick<CompiledSchedule, 'next' | 'nextTimes'> | null {
  if (o.startsAt || o.endsAt || (o.count ?? null) !== null) {
    return null;
  }
  const fields = plainRuleFields(o.rule);
  if (!fields) {
    return null;
  }
  const matcher = new CronMatcher(fields);
  const zone = zoneOffsets(o.timezone);
  const anchor = Math.floor(o.reference.getTime() / 1000) * 1000;
  const fireTimes = (afterMs: number, count: number, budget: Budget = UNLIMITED_BUDGET): number[] =>
    matcher.fireTimes(Math.max(afterMs, anchor), count, zone, budget);
  return {
    next: (after, count, budget) => fireTimes(after.getTime(), count, budget).map((t) => new Date(t)),
    nextTimes: fireTimes,
  };
}

/**
 * The field-based gap bound (min-gap.ts) for date-level rules whose times of day are all explicit
 * (every rule the natural grammar builds for days, weeks, months and years): each occurrence's
 * wall time is in BYHOUR x BYMINUTE x BYSECOND, or was shifted forward out of a DST gap, which the
 * bound's offset-change allowance covers. Sub-daily rules step in elapsed time: no bound.
 */
function ruleGapLowerBound(r: Rule, timezone: string): number | undefined {
  const dateLevel = r.freq === 'YEARLY' || r.freq === 'MONTHLY' || r.freq === 'WEEKLY' || r.freq === 'DAILY';
  if (!dateLevel || r.byHour === null || r.byMinute === null || r.bySecond === null) {
    return undefined;
  }
  return fieldGapLowerBound(r.bySecond, r.byMinute, r.byHour, zoneOffsets(timezone).isUtc);
}

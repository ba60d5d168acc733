/** Wraps a `Rule` into the public `CompiledSchedule`. */
import type { Budget, CompiledSchedule, ScheduleKind } from '../types';
import { Recurrence } from './expand';
import type { Rule } from './rule';

export interface RuleScheduleOptions {
  kind: ScheduleKind;
  rule: Rule;
  canonical: string;
  description: string;
  timezone: string;
  oneOff: boolean;
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
  const rec = new Recurrence(o.rule, {
    zone: o.timezone,
    anchor: o.startsAt ?? o.reference,
    startsAt: o.startsAt ?? null,
    endsAt: o.endsAt ?? null,
    count: o.count ?? null,
    reference: o.reference,
    anchorExclusive: !o.startsAt,
  });
  return {
    kind: o.kind,
    canonical: o.canonical,
    description: o.description,
    timezone: o.timezone,
    oneOff: o.oneOff,
    next: (after: Date, count: number, budget?: Budget): Date[] => rec.next(after, count, budget),
  };
}

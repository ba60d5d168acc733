/**
 * Raw RFC 5545 recurrence rules (kind `rrule`). Expansion follows RFC 5545 at DST changes (see
 * `rfc5545WallToInstant` in tz.ts); sub-daily frequencies step in elapsed time (see recurrence/rule.ts).
 *
 * Zone: `DTSTART;TZID=…` sets the expansion zone (it must agree with the input's `timezone`
 * unless that is `UTC`/absent); a UTC `DTSTART` (`…Z`) is an instant, read as wall time in the
 * job's zone; a floating `DTSTART` is wall time in the job's zone. Without DTSTART the rule is
 * anchored at `startsAt`, else at the reference instant.
 */
import type { CompileResult, ScheduleInput } from '../../types';
import type { GrammarContext } from '../context';
import { errorAt } from '../../errors';
import { describeRule } from '../../recurrence/describe';
import { formatRule } from '../../recurrence/rule';
import { ruleSchedule } from '../../recurrence/schedule';
import { parseRrule } from './parser';
import { Recurrence } from '../../recurrence/expand';
import { formatDate } from '../../recurrence/describe';
import { instantToWall, zoneOffsets } from '../../tz';
import type { Rule } from '../../recurrence/rule';

/** `Once at 2026-12-01 09:00` for a COUNT=1 rule with a DTSTART. */
function once(rule: Rule, timezone: string): string {
  const first = new Recurrence(rule, { zone: timezone, anchor: new Date(0) }).next(new Date(-8.64e15), 1)[0];
  if (!first) {
    return describeRule(rule);
  }
  const local = formatDate({ floating: instantToWall(zoneOffsets(timezone), first.getTime()) });
  return `Once at ${local.includes(' ') ? local : `${local} 00:00`}`;
}

/** True when `expr` looks like an RFC 5545 recurrence rule (`RRULE:…`, `FREQ=…`, or a `DTSTART` line). */
export function looksLikeRrule(expr: string): boolean {
  return /^\s*(RRULE:|FREQ=|DTSTART[:;])/i.test(expr);
}

/** Compiles a raw RFC 5545 `RRULE` (with an optional `DTSTART` line). Error positions are UTF-8 bytes. */
export function compileRrule(input: ScheduleInput, ctx: GrammarContext): CompileResult {
  const { rule, tzid, errors } = parseRrule(input.expr);
  const given = ctx.timezone ?? input.timezone ?? 'UTC';
  if (tzid && given !== 'UTC' && given !== tzid) {
    const i = input.expr.indexOf(tzid);
    errors.push(
      errorAt(
        input.expr,
        i,
        i + tzid.length,
        'timezone_conflict',
        `DTSTART's TZID (${tzid}) differs from the schedule's timezone (${given}); make them equal or drop one`,
        given,
      ),
    );
  }
  if (!rule || errors.length) {
    return { ok: false, kindDetected: 'rrule', errors: errors.sort((a, b) => a.position - b.position) };
  }
  ctx.budget.check();
  const timezone = tzid ?? given;
  const schedule = ruleSchedule({
    kind: 'rrule',
    rule,
    canonical: formatRule(rule),
    description: `${rule.count === 1 && rule.dtstart ? once(rule, timezone) : describeRule(rule)} (${timezone})`,
    timezone,
    oneOff: rule.count === 1,
    referenceFree: true,
    reference: ctx.reference ?? input.reference,
    startsAt: input.startsAt ?? ctx.startsAt ?? null,
    endsAt: input.endsAt ?? ctx.endsAt ?? null,
    count: input.count ?? ctx.count ?? null,
  });
  return { ok: true, kindDetected: 'rrule', schedule };
}

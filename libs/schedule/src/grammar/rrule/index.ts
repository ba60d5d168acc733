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
import { parseRrule, type ExceptionValue, type RuleExceptionValues } from './parser';
import { type OccurrenceExceptions, withExceptions } from '../../exceptions';
import { toIsoUtc } from '../../civil';
import { Recurrence } from '../../recurrence/expand';
import { formatDate } from '../../recurrence/describe';
import { instantToWall, rfc5545WallToInstant, zoneOffsets, type ZoneOffsets } from '../../tz';
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

/** True when `expr` looks like an RFC 5545 recurrence rule (`RRULE:…`, `FREQ=…`, or a `DTSTART`, `EXDATE` or `RDATE` line). */
export function looksLikeRrule(expr: string): boolean {
  return /^\s*(RRULE:|FREQ=|DTSTART[:;]|EXDATE[:;]|RDATE[:;])/i.test(expr);
}

/** An EXDATE / RDATE value as an instant: wall times resolve as the rule's own occurrences do (RFC 5545 at DST). */
function instantOf(value: Exclude<ExceptionValue, { day: number }>, zone: ZoneOffsets): number {
  if ('instant' in value) {
    return value.instant;
  }
  if ('zoned' in value) {
    return rfc5545WallToInstant(zoneOffsets(value.tzid), value.zoned);
  }
  return rfc5545WallToInstant(zone, value.floating);
}

/** The rule's EXDATE and RDATE values as exceptions in `zone`. */
function exceptionsOf(values: RuleExceptionValues, zone: ZoneOffsets): OccurrenceExceptions {
  const excludedInstants = new Set<number>();
  const excludedDays = new Set<number>();
  for (const value of values.exdates) {
    if ('day' in value) {
      excludedDays.add(value.day);
    } else {
      excludedInstants.add(instantOf(value, zone));
    }
  }
  const added = [
    ...new Set(values.rdates.map((v) => instantOf(v as Exclude<ExceptionValue, { day: number }>, zone))),
  ].sort((a, b) => a - b);
  return { excludedInstants, excludedDays, added };
}

const MAX_LISTED = 3;

/** `, except 2026-12-24 and 2026-12-31 09:00, also 2027-01-02 09:00`: the exceptions in the zone's wall time. */
function describeExceptions(ex: OccurrenceExceptions, zone: ZoneOffsets): string {
  const list = (items: string[]): string =>
    items.length > MAX_LISTED
      ? `${items.slice(0, MAX_LISTED).join(', ')} and ${items.length - MAX_LISTED} more`
      : items.length > 1
        ? `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`
        : items.join('');
  const at = (t: number): string => formatDate({ floating: instantToWall(zone, t) });
  const day = (d: number): string => formatDate({ floating: d * 86_400_000 });
  const excluded = [
    ...[...ex.excludedDays].sort((a, b) => a - b).map((d) => [d * 86_400_000, day(d)] as const),
    ...[...ex.excludedInstants].sort((a, b) => a - b).map((t) => [instantToWall(zone, t), at(t)] as const),
  ]
    .sort((a, b) => a[0] - b[0])
    .map(([, text]) => text);
  return (
    (excluded.length ? `, except ${list(excluded)}` : '') + (ex.added.length ? `, also ${list(ex.added.map(at))}` : '')
  );
}

/** The EXDATE and RDATE lines of our canonical form: UTC instants, dates for whole days. */
function formatExceptions(ex: OccurrenceExceptions): string {
  const utc = (t: number): string => toIsoUtc(t).replace(/[-:]|\.\d+/g, '');
  const date = (d: number): string =>
    toIsoUtc(d * 86_400_000)
      .slice(0, 10)
      .replace(/-/g, '');
  let out = '';
  if (ex.excludedDays.size) {
    out += `\nEXDATE;VALUE=DATE:${[...ex.excludedDays]
      .sort((a, b) => a - b)
      .map(date)
      .join(',')}`;
  }
  if (ex.excludedInstants.size) {
    out += `\nEXDATE:${[...ex.excludedInstants]
      .sort((a, b) => a - b)
      .map(utc)
      .join(',')}`;
  }
  if (ex.added.length) {
    out += `\nRDATE:${ex.added.map(utc).join(',')}`;
  }
  return out;
}

/** Compiles a raw RFC 5545 `RRULE` (with an optional `DTSTART` line). Error positions are UTF-8 bytes. */
export function compileRrule(input: ScheduleInput, ctx: GrammarContext): CompileResult {
  const { rule, tzid, exceptions: values, errors } = parseRrule(input.expr);
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
  const zone = zoneOffsets(timezone);
  const exceptions = exceptionsOf(values, zone);
  const oneOff = rule.count === 1 && exceptions.added.length === 0;
  const schedule = ruleSchedule({
    kind: 'rrule',
    rule,
    canonical: formatRule(rule) + formatExceptions(exceptions),
    description: `${oneOff && rule.dtstart ? once(rule, timezone) : describeRule(rule)}${describeExceptions(exceptions, zone)} (${timezone})`,
    timezone,
    oneOff,
    referenceFree: true,
    reference: ctx.reference ?? input.reference,
    startsAt: input.startsAt ?? ctx.startsAt ?? null,
    endsAt: input.endsAt ?? ctx.endsAt ?? null,
    count: input.count ?? ctx.count ?? null,
  });
  return { ok: true, kindDetected: 'rrule', schedule: withExceptions(schedule, exceptions, zone) };
}

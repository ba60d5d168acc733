/**
 * `quartz` kind: Quartz 2.5 cron expressions (6 or 7 fields, seconds first). Fire times equal
 * Quartz's `CronExpression.getTimeAfter` in the schedule's zone (see evaluate.ts), canonical form
 * is the expression unchanged.
 */
import { errorAt, utf8Length } from '../../errors';
import { zoneOffsets } from '../../tz';
import type { Budget, CompileResult, CompiledSchedule, ScheduleInput } from '../../types';
import type { GrammarContext } from '../context';
import { fieldGapLowerBound } from '../../min-gap';
import { describeQuartz } from './describe';
import { neverMatchesStatically, quartzEquivalentAfter, quartzTimeAfter } from './evaluate';
import type { QuartzFields } from './fields';
import { parseQuartz } from './parse';
import { plainQuartz, plainQuartzTimeAfter } from './plain';

export { parseQuartz } from './parse';
export type { QuartzFields } from './fields';
export { quartzTimeAfter } from './evaluate';

/**
 * Compiles a Quartz expression. `ctx.timezone` must already be valid. The returned `next()` is
 * NOT bounded by startsAt/endsAt/count (the dispatcher applies them); it uses Quartz's MAX_YEAR =
 * year of `ctx.reference` (UTC) + 100.
 */
export function compileQuartz(input: ScheduleInput, ctx: GrammarContext): CompileResult {
  const aws = AWS_CRON.exec(input.expr);
  if (aws) {
    return compileAwsCron(input, ctx, aws[1]!, aws[2]!);
  }
  const parsed = parseQuartz(input.expr);
  if (!parsed.ok) {
    return { ok: false, kindDetected: 'quartz', errors: parsed.errors };
  }
  return { ok: true, kindDetected: 'quartz', schedule: quartzSchedule(parsed.fields, input.expr.trim(), ctx) };
}

/** EventBridge `cron(minutes hours day-of-month month day-of-week year)`. */
export const AWS_CRON = /^(\s*cron\s*\()([^()]*)\)\s*$/i;

/**
 * EventBridge's `cron(0 12 * * ? *)` is Quartz without the seconds field (same `?`, `L`, `W`, `#`,
 * 1 = Sunday): compiled as the Quartz expression `0 0 12 * * ? *`, which is its canonical form.
 * Error positions point into what the user wrote; a suggestion that is a whole Quartz expression
 * is dropped (it would be in the other spelling).
 */
function compileAwsCron(input: ScheduleInput, ctx: GrammarContext, open: string, inner: string): CompileResult {
  const fields = inner.trim() === '' ? [] : inner.trim().split(/[ \t]+/);
  if (fields.length !== 6) {
    return {
      ok: false,
      kindDetected: 'quartz',
      errors: [
        errorAt(
          input.expr,
          open.length,
          open.length + inner.length,
          'field_count',
          `cron(…) has 6 fields (minutes hours day-of-month month day-of-week year); got ${fields.length}`,
        ),
      ],
    };
  }
  const r = compileQuartz({ ...input, expr: `0 ${inner}` }, ctx);
  if (r.ok) {
    return r;
  }
  const shift = utf8Length(open) - 2;
  return {
    ok: false,
    kindDetected: 'quartz',
    errors: r.errors.map((e) => ({
      ...e,
      position: Math.max(utf8Length(open), e.position + shift),
      suggestion: e.suggestion !== null && /\s/.test(e.suggestion) ? null : e.suggestion,
    })),
  };
}

function quartzSchedule(q: QuartzFields, canonical: string, ctx: GrammarContext): CompiledSchedule {
  const zone = zoneOffsets(ctx.timezone);
  const maxYear = ctx.reference.getUTCFullYear() + 100;
  const never = neverMatchesStatically(q);
  const plain = plainQuartz(q);
  const schedule: CompiledSchedule = {
    kind: 'quartz',
    canonical,
    description: describeQuartz(q, ctx.timezone),
    timezone: ctx.timezone,
    oneOff: false,
    referenceFree: true,
    minGapLowerBoundMs: fieldGapLowerBound(q.seconds, q.minutes, q.hours, zone.isUtc),
    equivalentAfter: (afterMs: number): number | null => quartzEquivalentAfter(q, zone, afterMs),
    next(after: Date, count: number, budget?: Budget): Date[] {
      return fireTimes(after.getTime(), count, budget ?? ctx.budget).map((t) => new Date(t));
    },
    nextTimes: (afterMs: number, count: number, budget?: Budget): number[] =>
      fireTimes(afterMs, count, budget ?? ctx.budget),
  };
  function fireTimes(afterMs: number, count: number, b: Budget): number[] {
    const out: number[] = [];
    let t = afterMs;
    while (out.length < count && !never) {
      b.check();
      const n =
        (plain && plainQuartzTimeAfter(plain, zone, t, maxYear)) ?? quartzTimeAfter(q, t, { zone, maxYear, budget: b });
      if (n === null) {
        break;
      }
      out.push(n);
      t = n;
    }
    return out;
  }
  return schedule;
}

/**
 * Natural-language schedules (kind `natural`): `every weekday at 9am`, `every 15 minutes between
 * 9am and 5pm on weekdays`, `in 20 minutes`. See build.ts for the conventions and
 * docs/schedules.md for the user-facing grammar.
 */
import type { CompileResult, ScheduleInput } from '../../types';
import type { GrammarContext } from '../context';
import { ruleSchedule } from '../../recurrence/schedule';
import { formatRule } from '../../recurrence/rule';
import { buildNatural } from './build';
import { parseNatural } from './parser';
import type { Misspelling } from './spec';
import { utf8Offset } from '../../errors';
import type { ScheduleError } from '../../types';

/** Resolving a misspelling compiles each reading; more ambiguous words than this get no suggestion. */
const MAX_AMBIGUOUS = 2;

/**
 * A word as close to several words (`tice`: `time`, `twice`) is suggested only when the readings
 * agree: the candidates that make the expression compile all give the same schedule. Otherwise
 * the spelling alone cannot say what was meant, and a guess could change the meaning.
 */
function resolveMisspellings(
  input: ScheduleInput,
  ctx: GrammarContext,
  errors: ScheduleError[],
  words: Misspelling[],
): void {
  for (const m of words) {
    const e = errors.find((x) => x.kind === 'unknown_word' && x.position === utf8Offset(input.expr, m.start));
    if (!e) {
      continue;
    }
    if (words.length > MAX_AMBIGUOUS) {
      e.suggestion = null;
      continue;
    }
    const readings = new Set<string>();
    let first: string | null = null;
    for (const c of m.candidates) {
      const expr = input.expr.slice(0, m.start) + c + input.expr.slice(m.end);
      const r = compileNatural({ ...input, expr }, ctx);
      if (r.ok) {
        readings.add(r.schedule.canonical);
        first ??= c;
      }
    }
    e.suggestion = readings.size === 1 ? first : null;
    if (e.suggestion === null) {
      e.message = `unknown word "${input.expr.slice(m.start, m.end)}"; it could be ${m.candidates.map((c) => `"${c}"`).join(' or ')}`;
    }
  }
}

const RATE = /^(\s*)(rate\s*\()([^()]*)\)(\s*)$/i;

/**
 * EventBridge's `rate(5 minutes)` reads as `each 5 minutes`: the wrapper is overwritten in place
 * (same length, ASCII), so error positions still point into what the user wrote.
 */
export function rateAsEvery(expr: string): string {
  const m = RATE.exec(expr);
  if (!m) {
    return expr;
  }
  const open = m[2]!;
  return `${m[1]}each${' '.repeat(open.length - 4)}${m[3]} ${m[4]}`;
}

/** Compiles an English schedule expression. Positions in errors are UTF-8 byte offsets into `input.expr`. */
export function compileNatural(input: ScheduleInput, ctx: GrammarContext): CompileResult {
  const timezone = ctx.timezone ?? input.timezone ?? 'UTC';
  const reference = ctx.reference ?? input.reference;
  const rewritten = rateAsEvery(input.expr);
  const { spec, errors, ambiguous } = parseNatural(rewritten, ctx.budget);
  if (rewritten !== input.expr && spec.interval && (spec.interval.unit === 'day' || spec.interval.unit === 'week')) {
    // a rate is elapsed time from its start (EventBridge): rate(2 days) is every 48 hours, not midnights
    spec.interval = { ...spec.interval, n: spec.interval.n * (spec.interval.unit === 'week' ? 168 : 24), unit: 'hour' };
  }
  if (input.expr.trim() === '') {
    return {
      ok: false,
      kindDetected: 'natural',
      errors: [
        {
          kind: 'empty',
          position: 0,
          length: 0,
          message: 'the schedule is empty; try `every day at 9am`',
          suggestion: null,
        },
      ],
    };
  }
  const { built, errors: semantic } = buildNatural(input.expr, spec, timezone, reference);
  const all = [...errors, ...semantic];
  if (all.length || !built) {
    resolveMisspellings(input, ctx, all, ambiguous);
    all.sort((a, b) => a.position - b.position);
    return { ok: false, kindDetected: 'natural', errors: all };
  }
  const schedule = ruleSchedule({
    kind: 'natural',
    rule: built.rule,
    canonical: formatRule(built.rule),
    description: `${built.description} (${timezone})`,
    timezone,
    oneOff: built.oneOff,
    referenceFree: !built.usesReference,
    reference,
    startsAt: input.startsAt ?? ctx.startsAt ?? null,
    endsAt: input.endsAt ?? ctx.endsAt ?? null,
    count: input.count ?? ctx.count ?? null,
  });
  return { ok: true, kindDetected: 'natural', schedule };
}

/**
 * `compileSchedule`: the single entry point that turns user input into a `CompiledSchedule`.
 *
 * Responsibilities: input limits, time-zone validation, `auto` kind detection, dispatch to the
 * grammar, the cooperative budget, and the bounds (`startsAt`, `endsAt`, `count`) that apply to
 * every kind.
 *
 * Invariants of the returned schedule's `next(after, n)`:
 * - fire times are strictly after `after`, strictly ascending, at most `n`;
 * - none is before `startsAt` or after `endsAt`;
 * - with `count`, only the first `count` occurrences of the series exist; the series starts at
 *   `startsAt` (inclusive) or, without it, just after `reference` (exclusive);
 * - it throws `ScheduleBudgetError` when its budget runs out (never loops unbounded).
 */
import { BUDGET_EXCEEDED_MESSAGE, createBudget, createStepBudget, DEFAULT_BUDGET_MS, isBudgetError } from './budget';
import { errorAt, suggest, utf8Length, wholeExpressionError } from './errors';
import type { GrammarContext } from './grammar/context';
import { compileCron } from './grammar/cron';
import { compileNatural } from './grammar/natural';
import { compileQuartz } from './grammar/quartz';
import { compileRrule, looksLikeRrule } from './grammar/rrule';
import { tokenizeLoose } from './grammar/quartz/tokens';
import { isValidTimeZone, zoneOffsets } from './tz';
import {
  calendarExclusions,
  describeCalendarExclusion,
  splitCalendarExclusions,
  type CalendarReference,
} from './calendars';
import { withExceptions } from './exceptions';
import {
  SCHEDULE_KINDS,
  type Budget,
  type CompileResult,
  type CompiledSchedule,
  type ScheduleError,
  type ScheduleInput,
  type ScheduleKind,
} from './types';

/** Maximum expression size (spec: 4096 UTF-8 bytes). */
export const MAX_EXPR_BYTES = 4096;

export interface CompileOptions {
  /**
   * Clock for the time budget, in milliseconds (e.g. `() => performance.now()`). When absent the
   * library uses a deterministic step budget instead (no clock reads at all).
   */
  now?: () => number;
  /** Budget per compile and per `next()` call, in ms (default 100). Used only with `now`. */
  budgetMs?: number;
  /** Explicit budget for compilation (overrides `now`/`budgetMs` for the compile step only). */
  budget?: Budget;
}

/** Makes a fresh budget according to the options (time budget with a clock, else step budget). */
export function budgetFor(opts: CompileOptions | undefined): Budget {
  if (opts?.now) {
    return createBudget(opts.budgetMs ?? DEFAULT_BUDGET_MS, opts.now);
  }
  return createStepBudget();
}

const KINDS: ReadonlySet<string> = new Set(SCHEDULE_KINDS);
const CRON_MACROS = /^@(yearly|annually|monthly|weekly|daily|midnight|hourly)$/i;
const NUMERIC_FIELD = /^[\d*?/,-]+$/;
const NUMERIC_START = /^[\d*?/,-]/;
const CRON_TOKEN = /^(?:[\d*?/,#-]|L|W|JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC|SUN|MON|TUE|WED|THU|FRI|SAT)+$/i;

/**
 * Detects the kind of an expression (used when `kind` is `auto`):
 * `RRULE:`/`DTSTART`/`FREQ=` → `rrule`; at least 3 whitespace-separated cron-like tokens whose
 * first is numeric (`0`, `*`, `*\/5`, `0,30`), or 5-7 tokens whose first two are numeric (so that
 * a typo such as `0 0 12x * * ?` still gets Quartz's error messages) → `quartz` for 6 or more
 * fields, `cron` for 5 or fewer;
 * `@daily`-style macros → `cron`; anything else → `natural`.
 */
export function detectKind(expr: string): ScheduleKind {
  const s = expr.trim();
  if (looksLikeRrule(s)) {
    return 'rrule';
  }
  if (CRON_MACROS.test(s)) {
    return 'cron';
  }
  if (/^cron\s*\(/i.test(s)) {
    return 'quartz'; // EventBridge cron(…): Quartz without seconds
  }
  // Both cron-like forms start with a numeric field: anything else is natural language, without
  // splitting it into fields first.
  if (!NUMERIC_START.test(s)) {
    return 'natural';
  }
  const toks = tokenizeLoose(s).map((t) => t.text);
  const cronLike =
    (toks.length >= 3 && NUMERIC_FIELD.test(toks[0]) && toks.every((t) => CRON_TOKEN.test(t))) ||
    (toks.length >= 5 && toks.length <= 7 && NUMERIC_FIELD.test(toks[0]) && NUMERIC_FIELD.test(toks[1]));
  if (cronLike) {
    return toks.length >= 6 ? 'quartz' : 'cron';
  }
  return 'natural';
}

let zoneList: string[] | null = null;
function knownZones(): string[] {
  if (zoneList === null) {
    const intl = Intl as unknown as { supportedValuesOf?: (k: string) => string[] };
    zoneList = typeof intl.supportedValuesOf === 'function' ? intl.supportedValuesOf('timeZone') : [];
  }
  return zoneList;
}

function fail(kind: ScheduleKind | null, errors: ScheduleError[]): CompileResult {
  return { ok: false, kindDetected: kind, errors };
}

/**
 * Compiles a schedule in any supported format.
 *
 * - Never reads a clock: `input.reference` anchors relative expressions; `opts.now` (optional)
 *   only measures the budget.
 * - Returns `{ ok: false, errors }` for every user error (positions in UTF-8 bytes), including
 *   `unknown_timezone`, `too_long`, `empty`, `invalid_bounds` and `budget_exceeded`
 *   (`schedule computation budget exceeded`); it does not throw for bad input.
 * - Time zone: `input.timezone` (default `UTC`); quartz follows Quartz's DST behaviour, the other
 *   kinds RFC 5545's (see tz.ts).
 */
export function compileSchedule(input: ScheduleInput, opts: CompileOptions = {}): CompileResult {
  const expr = typeof input.expr === 'string' ? input.expr : '';
  const requested = input.kind ?? 'auto';
  const kind: ScheduleKind = requested === 'auto' ? detectKind(expr) : requested;
  if (!KINDS.has(kind)) {
    return fail(null, [
      {
        kind: 'unknown_kind',
        position: 0,
        length: 0,
        message: `unknown schedule kind '${String(requested)}' (use auto, natural, quartz, cron or rrule)`,
        suggestion: null,
      },
    ]);
  }
  if (utf8Length(expr) > MAX_EXPR_BYTES) {
    return fail(kind, [errorAt(expr, 0, 0, 'too_long', `the expression is longer than ${MAX_EXPR_BYTES} bytes`)]);
  }
  if (expr.trim() === '') {
    return fail(kind, [errorAt(expr, 0, expr.length, 'empty', 'the expression is empty')]);
  }

  const errors: ScheduleError[] = [];
  const timezone =
    input.timezone === null || input.timezone === undefined || input.timezone === '' ? 'UTC' : input.timezone;
  if (!isValidTimeZone(timezone)) {
    errors.push({
      kind: 'unknown_timezone',
      position: 0,
      length: 0,
      message: `unknown time zone '${timezone}' (use an IANA name such as Europe/Berlin)`,
      suggestion: suggest(timezone, knownZones()),
    });
  }
  const startsAt = input.startsAt ?? null;
  const endsAt = input.endsAt ?? null;
  const count = input.count ?? null;
  if (count !== null && (!Number.isInteger(count) || count < 1)) {
    errors.push({
      kind: 'invalid_bounds',
      position: 0,
      length: 0,
      message: `count must be a positive integer; got ${count}`,
      suggestion: null,
    });
  }
  if ((startsAt && Number.isNaN(startsAt.getTime())) || (endsAt && Number.isNaN(endsAt.getTime()))) {
    errors.push({
      kind: 'invalid_bounds',
      position: 0,
      length: 0,
      message: 'startsAt and endsAt must be valid instants',
      suggestion: null,
    });
  } else if (startsAt && endsAt && endsAt.getTime() < startsAt.getTime()) {
    errors.push({
      kind: 'invalid_bounds',
      position: 0,
      length: 0,
      message: 'endsAt is before startsAt',
      suggestion: null,
    });
  }
  if (!(input.reference instanceof Date) || Number.isNaN(input.reference.getTime())) {
    errors.push({
      kind: 'invalid_reference',
      position: 0,
      length: 0,
      message: 'a valid reference instant is required',
      suggestion: null,
    });
  }
  const budget = opts.budget ?? budgetFor(opts);
  const ctx: GrammarContext = {
    budget,
    timezone: errors.some((e) => e.kind === 'unknown_timezone') ? 'UTC' : timezone,
    reference: input.reference,
    startsAt,
    endsAt,
    count,
  };

  // `… except holidays:de-berlin`: the natural grammar compiles the schedule before it.
  const split = kind === 'natural' ? splitCalendarExclusions(expr) : null;
  const excluded: Array<CalendarReference | string> = [...(split?.calendars ?? []), ...(input.excludeCalendars ?? [])];
  let result: CompileResult;
  try {
    const normalized: ScheduleInput = { ...input, expr: split ? split.expr : expr, timezone: ctx.timezone, kind };
    switch (kind) {
      case 'quartz':
        result = compileQuartz(normalized, ctx);
        break;
      case 'cron':
        result = compileCron(normalized, ctx);
        break;
      case 'rrule':
        result = compileRrule(normalized, ctx);
        break;
      default:
        result = compileNatural(normalized, ctx);
    }
  } catch (e) {
    if (isBudgetError(e)) {
      return fail(kind, [wholeExpressionError(expr, 'budget_exceeded', BUDGET_EXCEEDED_MESSAGE)]);
    }
    throw e;
  }
  // Without calendar data (a stateless preview) the named calendars are neither checked nor applied.
  const calendars = excluded.length && input.calendars ? calendarExclusions(expr, excluded, input.calendars) : null;
  errors.push(...(calendars?.errors ?? []));
  if (!result.ok) {
    return fail(result.kindDetected ?? kind, [...errors, ...result.errors]);
  }
  if (errors.length) {
    return fail(result.kindDetected, errors);
  }
  let schedule = result.schedule;
  if (excluded.length) {
    const names = [...new Set(excluded.map((ref) => (typeof ref === 'string' ? ref : ref.name)))];
    schedule = {
      ...(calendars ? withExceptions(schedule, calendars.exceptions, zoneOffsets(schedule.timezone)) : schedule),
      description: describeCalendarExclusion(schedule.description, names, schedule.timezone),
    };
  }
  return { ok: true, kindDetected: result.kindDetected, schedule: withBounds(schedule, ctx, opts) };
}

/** Wraps a grammar's schedule with the input bounds and a default per-call budget. */
function withBounds(s: CompiledSchedule, ctx: GrammarContext, opts: CompileOptions): CompiledSchedule {
  const start = ctx.startsAt ? ctx.startsAt.getTime() : null;
  const end = ctx.endsAt ? ctx.endsAt.getTime() : null;
  const count = ctx.count;
  // the series is the fire times at or after startsAt, else strictly after the reference
  const walkFrom = start !== null ? start - 1 : ctx.reference.getTime();
  const inner = (afterMs: number, n: number, b: Budget): number[] =>
    s.nextTimes ? s.nextTimes(afterMs, n, b) : s.next(new Date(afterMs), n, b).map((d) => d.getTime());
  function fireTimes(afterMs: number, n: number, budget?: Budget): number[] {
    const b = budget ?? budgetFor(opts);
    const want = Math.max(0, Math.floor(n));
    const out: number[] = [];
    if (want === 0) {
      return out;
    }
    if (count === null) {
      const from = start !== null && afterMs < start - 1 ? start - 1 : afterMs;
      for (const t of inner(from, want, b)) {
        if (end !== null && t > end) {
          break;
        }
        out.push(t);
      }
      return out;
    }
    // count: walk the series from its start, counting occurrences
    let t = walkFrom;
    let seen = 0;
    while (seen < count && out.length < want) {
      b.check();
      const batch = inner(t, Math.min(count - seen, 100), b);
      if (batch.length === 0) {
        break;
      }
      for (const ms of batch) {
        seen++;
        if (end !== null && ms > end) {
          return out;
        }
        if (ms > afterMs) {
          out.push(ms);
          if (out.length >= want) {
            return out;
          }
        }
        if (seen >= count) {
          return out;
        }
      }
      t = batch[batch.length - 1];
    }
    return out;
  }
  return {
    kind: s.kind,
    canonical: s.canonical,
    description: s.description,
    timezone: s.timezone,
    oneOff: s.oneOff || count === 1,
    referenceFree: s.referenceFree && !(count !== null && start === null),
    // Bounds cut the series at its ends only: successive fire times stay successive.
    minGapLowerBoundMs: s.minGapLowerBoundMs,
    // With a count the series is walked from its start and filtered at `after` itself.
    equivalentAfter:
      s.equivalentAfter && count === null
        ? (a: number): number | null =>
            (s.equivalentAfter as (x: number) => number | null)(start !== null && a < start - 1 ? start - 1 : a)
        : undefined,
    next: (after: Date, n: number, budget?: Budget): Date[] =>
      fireTimes(after.getTime(), n, budget).map((t) => new Date(t)),
    nextTimes: fireTimes,
  };
}

/** Shared helpers for the natural/RRULE grammar specs (not a spec file itself). */
import { compileNatural } from '../src/grammar/natural';
import { compileRrule } from '../src/grammar/rrule';
import type { GrammarContext } from '../src/grammar/context';
import type { CompileResult, CompiledSchedule, ScheduleError, ScheduleInput } from '../src/types';

/** Monday 2026-11-30 10:17:23.456 UTC. */
export const REF = new Date('2026-11-30T10:17:23.456Z');

export function ctxFor(input: ScheduleInput): GrammarContext {
  return {
    budget: { check: () => undefined },
    timezone: input.timezone ?? 'UTC',
    reference: input.reference,
    startsAt: input.startsAt ?? null,
    endsAt: input.endsAt ?? null,
    count: input.count ?? null,
  };
}

/** A grammar's compile as the specs call it: expression, zone (UTC), reference (REF), other input. */
type GrammarCall = (expr: string, timezone?: string, reference?: Date, extra?: Partial<ScheduleInput>) => CompileResult;

function grammarCall(compile: (input: ScheduleInput, ctx: GrammarContext) => CompileResult): GrammarCall {
  return (expr, timezone = 'UTC', reference = REF, extra = {}) => {
    const input: ScheduleInput = { expr, timezone, reference, ...extra };
    return compile(input, ctxFor(input));
  };
}

export const natural = grammarCall(compileNatural);
export const rrule = grammarCall(compileRrule);

export function ok(r: CompileResult): CompiledSchedule {
  if (!r.ok) {
    throw new Error(`expected a schedule, got errors: ${JSON.stringify(r.errors)}`);
  }
  return r.schedule;
}

export function errs(r: CompileResult): ScheduleError[] {
  if (r.ok) {
    throw new Error(`expected errors, got ${r.schedule.canonical}`);
  }
  return r.errors;
}

/** ISO strings of the next `n` fire times after `after` (default: the reference). */
export function fires(s: CompiledSchedule, n: number, after: Date = REF): string[] {
  return s.next(after, n).map((d) => d.toISOString().replace('.000Z', 'Z'));
}

/** ISO strings of the first `n` (fewer if it ends) fire times of an rrule.js rule or set after the reference. */
export function rrulejsFires(theirs: { after(date: Date, inc?: boolean): Date | null }, n: number): string[] {
  const found: string[] = [];
  let t = REF;
  for (let i = 0; i < n; i++) {
    const next = theirs.after(t, false);
    if (!next) {
      break;
    }
    found.push(next.toISOString().replace('.000Z', 'Z'));
    t = next;
  }
  return found;
}

/** UTF-8 byte offset of the first occurrence of `needle` in `hay`. */
export function bytePos(hay: string, needle: string): number {
  return new TextEncoder().encode(hay.slice(0, hay.indexOf(needle))).length;
}
export function byteLen(s: string): number {
  return new TextEncoder().encode(s).length;
}

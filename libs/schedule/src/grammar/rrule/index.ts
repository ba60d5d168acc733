import type { CompileResult, ScheduleInput } from '../../types';
import type { GrammarContext } from '../context';

/** True when `expr` looks like an RFC 5545 recurrence rule (`RRULE:...`, `FREQ=...`, or a `DTSTART` line). */
export function looksLikeRrule(expr: string): boolean {
  return /^\s*(RRULE:|FREQ=|DTSTART[:;]|EXDATE|RDATE)/i.test(expr);
}

/** Compiles a raw RFC 5545 `RRULE` (with an optional `DTSTART` line). */
export function compileRrule(input: ScheduleInput, _ctx: GrammarContext): CompileResult {
  return {
    ok: false,
    kindDetected: 'rrule',
    errors: [
      { kind: 'not_implemented', position: 0, length: 0, message: `rrule schedules are not implemented yet: ${input.expr}`, suggestion: null },
    ],
  };
}

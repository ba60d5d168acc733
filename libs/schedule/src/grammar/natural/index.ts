import type { CompileResult, ScheduleInput } from '../../types';
import type { NaturalContext } from './internal/context';

/** Compiles an English schedule expression (`every weekday at 9am`). */
export function compileNatural(input: ScheduleInput, _ctx: NaturalContext): CompileResult {
  return {
    ok: false,
    kindDetected: 'natural',
    errors: [
      { kind: 'not_implemented', position: 0, length: 0, message: `natural schedules are not implemented yet: ${input.expr}`, suggestion: null },
    ],
  };
}

import type { CompileResult, ScheduleInput } from '../../types';
import type { GrammarContext } from '../context';

/** Placeholder until the 5-field engine lands. */
export function compileCron(input: ScheduleInput, _ctx: GrammarContext): CompileResult {
  return { ok: false, kindDetected: 'cron', errors: [{ kind: 'not_implemented', position: 0, length: 0, message: `cron schedules are not implemented yet: ${input.expr}`, suggestion: null }] };
}

import { compileSchedule, UNLIMITED_BUDGET, type CompiledSchedule, type ScheduleInput } from '@svc/schedule';

export const REF = new Date('2026-01-01T00:00:00Z');

/** Compiles or fails the test with the errors. */
export function compiled(expr: string, timezone = 'UTC', extra: Partial<ScheduleInput> = {}): CompiledSchedule {
  const r = compileSchedule({ expr, timezone, reference: REF, ...extra });
  if (!r.ok) {
    throw new Error(`expected ${expr} to compile: ${JSON.stringify(r.errors)}`);
  }
  return r.schedule;
}

/** ISO strings of the next `n` fire times after `after`. */
export function fires(
  expr: string,
  after: string,
  n: number,
  timezone = 'UTC',
  extra: Partial<ScheduleInput> = {},
): string[] {
  return compiled(expr, timezone, extra)
    .next(new Date(after), n, UNLIMITED_BUDGET)
    .map((d) => d.toISOString().replace('.000Z', 'Z'));
}

/** Errors of an expression that must not compile. */
export function errorsOf(expr: string, extra: Partial<ScheduleInput> = {}) {
  const r = compileSchedule({ expr, reference: REF, ...extra });
  if (r.ok) {
    throw new Error(`expected ${expr} to be rejected`);
  }
  return r.errors;
}

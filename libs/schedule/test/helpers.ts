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

/** A test per case, named `name`: the fire times of `expr` in `timezone` (UTC) after `after` are `expected`. */
export function firesCases(
  cases: Array<[name: string, expr: string, after: string, expected: string[], timezone?: string]>,
): void {
  // Every row with its zone: a shorter row would hand the zone parameter jest's `done` callback.
  const rows = cases.map(
    ([name, expr, after, expected, timezone = 'UTC']) => [name, expr, after, expected, timezone] as const,
  );
  it.each(rows)('%s', (_name, expr, after, expected, timezone) => {
    expect(fires(expr, after, expected.length, timezone)).toEqual(expected);
  });
}

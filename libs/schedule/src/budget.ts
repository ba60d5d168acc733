/**
 * Cooperative computation budget. Loops call `budget.check()`; once the budget is spent it throws
 * `ScheduleBudgetError`, which `compileSchedule` / `validateSchedule` turn into the structured error
 * `schedule computation budget exceeded` (kind `budget_exceeded`). The budget never reads a clock
 * itself: the caller injects `now` (style.md rule 13), so it is deterministic in tests and safe in
 * the Temporal workflow sandbox.
 */
import type { Budget } from './types';

/** Message of the structured error (spec wording). */
export const BUDGET_EXCEEDED_MESSAGE = 'schedule computation budget exceeded';
/** Default budget (spec: 100 ms). */
export const DEFAULT_BUDGET_MS = 100;
/** Default step budget used when no clock is injected (each `check()` is one step). */
export const DEFAULT_BUDGET_STEPS = 2_000_000;

/** Thrown by `Budget.check()` when the budget is spent. */
export class ScheduleBudgetError extends Error {
  readonly kind = 'budget_exceeded';
  constructor() {
    super(BUDGET_EXCEEDED_MESSAGE);
    this.name = 'ScheduleBudgetError';
  }
}

/**
 * Time budget of `ms` milliseconds measured with the injected clock `now` (milliseconds, any
 * monotonic origin, e.g. `performance.now`). The clock is sampled at creation and then every
 * `sampleEvery` checks (default 64) to keep `check()` cheap; so the budget can overrun by at most
 * `sampleEvery` loop iterations.
 */
export function createBudget(ms: number, now: () => number, sampleEvery = 64): Budget {
  const deadline = now() + ms;
  let n = 0;
  return {
    check(): void {
      if (++n % sampleEvery !== 0) {
        return;
      }
      if (now() > deadline) {
        throw new ScheduleBudgetError();
      }
    },
  };
}

/**
 * Deterministic budget of `steps` calls to `check()`, no clock at all (default for library calls
 * that did not inject a clock, and for workflow code where determinism matters).
 */
export function createStepBudget(steps: number = DEFAULT_BUDGET_STEPS): Budget {
  let left = steps;
  return {
    check(): void {
      if (--left < 0) {
        throw new ScheduleBudgetError();
      }
    },
  };
}

/**
 * A budget that never runs out: tests, benchmarks, and loops bounded by themselves (a recurrence
 * expanded without a caller's budget, the cron evaluator's search of at most 400 years of months).
 */
export const UNLIMITED_BUDGET: Budget = { check(): void {} };

/** True for the error thrown by a spent budget. */
export function isBudgetError(e: unknown): e is ScheduleBudgetError {
  return e instanceof ScheduleBudgetError;
}

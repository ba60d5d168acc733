/**
 * Context the dispatcher (`compileSchedule`) hands to every grammar.
 *
 * Invariants:
 * - `timezone` is already validated (a real IANA zone known to luxon/Intl); grammars need not check it.
 * - `reference` is the anchor instant for relative expressions and interval phases (never a clock read).
 * - The dispatcher applies `startsAt`, `endsAt` and `count` from the input on top of whatever a grammar
 *   returns, so a grammar may ignore them; they are passed so that a grammar can use `startsAt` as a
 *   series start (e.g. an RRULE without `DTSTART`) if it wants.
 * - Every loop in a grammar must call `budget.check()` (it throws `ScheduleBudgetError` when spent;
 *   the dispatcher turns that into the structured `budget_exceeded` error).
 */
import type { Budget } from '../types';

export interface GrammarContext {
  /** Cooperative budget for compilation; `next()` calls receive their own budget. */
  budget: Budget;
  /** Validated IANA zone name (default `UTC`). */
  timezone: string;
  /** Reference instant (see `ScheduleInput.reference`). */
  reference: Date;
  /** Input bounds, informational (the dispatcher enforces them). */
  startsAt: Date | null;
  endsAt: Date | null;
  count: number | null;
}

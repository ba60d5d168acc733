/** What the natural-language parser reads out of an expression, for the builder to turn into a rule. */
import { errorAt } from '../../errors';
import type { ScheduleError } from '../../types';
import type { Unit } from './vocab';

export interface Span {
  start: number;
  end: number;
}
export interface TimeOfDay {
  /** Seconds after local midnight. */
  sec: number;
  span: Span;
}
export type OneOff =
  | { kind: 'in'; n: number; unit: Unit; span: Span }
  | { kind: 'date'; fl: number; hasTime: boolean; span: Span }
  | { kind: 'day'; offset: number; span: Span }
  /** `next friday`: the first such weekday after the reference's date (never the same day). */
  | { kind: 'next'; weekday: number; span: Span };

export interface Spec {
  interval: { n: number; unit: Unit; span: Span } | null;
  weekdays: { days: number[]; span: Span } | null;
  nthWeekdays: { list: { n: number; day: number }[]; span: Span } | null;
  /**
   * `the last weekday of the month`, `the first and last workday`, `the 2nd weekend day`: the nth
   * (negative: from the end) of `days` (0 = Monday) in each month, i.e. BYDAY + BYSETPOS.
   */
  setPos: { ns: number[]; days: number[]; label: 'weekday' | 'weekend day'; span: Span } | null;
  monthDays: { days: number[]; span: Span } | null;
  months: { months: number[]; span: Span } | null;
  /** A month-and-day (`march 15`) was given: the schedule is yearly. */
  yearDate: Span | null;
  /** `of every month` / `of the month` seen. */
  monthly: Span | null;
  times: TimeOfDay[];
  window: { from: number; to: number; span: Span } | null;
  /** `relDays` set for `starting today/tomorrow` (resolved against the reference by the builder). */
  starting: { fl: number; span: Span; relDays?: number } | null;
  until: { fl: number; hasTime: boolean; span: Span } | null;
  count: { n: number; span: Span } | null;
  oneOff: OneOff | null;
  /** `every 6 hours starting at 2am`: the time of day that phases a sub-daily interval. */
  phase: { sec: number; span: Span; minuteOfHour?: boolean } | null;
  /** `twice a day`, `3 times a day`: this many times a day. */
  perDay: { k: number; span: Span } | null;
  /** `except weekends`, `except on monday and friday`: days taken out. */
  except: { days: number[]; span: Span } | null;
}

export interface Misspelling {
  start: number;
  end: number;
  candidates: string[];
}

export interface ParseResult {
  spec: Spec;
  errors: ScheduleError[];
  ambiguous: Misspelling[];
}

/** The errors a build collects, and `err`, which adds one at a span of `expr`. */
export function spanErrors(expr: string): {
  errors: ScheduleError[];
  err: (span: Span, kind: string, message: string, suggestion?: string | null) => void;
} {
  const errors: ScheduleError[] = [];
  const err = (span: Span, kind: string, message: string, suggestion: string | null = null): void => {
    errors.push(errorAt(expr, span.start, span.end, kind, message, suggestion));
  };
  return { errors, err };
}

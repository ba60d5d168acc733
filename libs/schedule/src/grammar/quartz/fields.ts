/** The Quartz field numbering and the value sets the parser builds (with Quartz's own markers). */

export const ALL_SPEC = 99;
export const NO_SPEC = 98;
export const MAX_LAST_DAY_OFFSET = 30;
export const LAST_DAY_OFFSET_START = 32;
export const LAST_DAY_OFFSET_END = LAST_DAY_OFFSET_START + MAX_LAST_DAY_OFFSET; // 'L'

export const enum F {
  SECOND = 0,
  MINUTE = 1,
  HOUR = 2,
  DAY_OF_MONTH = 3,
  MONTH = 4,
  DAY_OF_WEEK = 5,
  YEAR = 6,
}

export const FIELD_NAMES = ['second', 'minute', 'hour', 'day-of-month', 'month', 'day-of-week', 'year'];

/** Parsed Quartz expression: sorted value sets, as Quartz's TreeSets. */
export interface QuartzFields {
  seconds: number[];
  minutes: number[];
  hours: number[];
  /** Day-of-month values 1-31, `L`/`L-n` encoded 32..62, or the markers 98/99. */
  daysOfMonth: number[];
  /** `nW` values 1-31 and `LW`/`L-nW` encoded like daysOfMonth. */
  nearestWeekdays: number[];
  months: number[];
  /** 1 = Sunday … 7 = Saturday (Quartz/Java numbering), or the markers. */
  daysOfWeek: number[];
  /** Explicit years, or null for `*`/absent (1970 … maxYear at evaluation). */
  years: number[] | null;
  lastDayOfWeek: boolean;
  nthDayOfWeek: number;
}

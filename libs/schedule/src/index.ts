/**
 * `@svc/schedule`: pure schedule engine (natural language, Quartz, 5-field cron, RRULE).
 * No I/O, no framework, no clock reads; safe in the Temporal workflow sandbox.
 */
export * from './types';
export { compileSchedule, detectKind, budgetFor, MAX_EXPR_BYTES } from './compile';
export type { CompileOptions } from './compile';
export { validateSchedule, checkFireTimes } from './validate';
export type { FireTimeSource } from './validate';
export type { ValidateOptions, ValidationResult } from './validate';
export {
  createBudget,
  createStepBudget,
  ScheduleBudgetError,
  isBudgetError,
  BUDGET_EXCEEDED_MESSAGE,
  DEFAULT_BUDGET_MS,
  UNLIMITED_BUDGET,
} from './budget';
export { errorAt, suggest, levenshtein, utf8Offset, utf8Length } from './errors';
export { isValidTimeZone, wallToInstant, classifyWall, zoneOffsets } from './tz';
export { toIsoUtc } from './civil';
export type { DstPolicy } from './tz';
export type { GrammarContext } from './grammar/context';
export { ScheduleValidationCache, DEFAULT_CACHE_ENTRIES } from './validate-cache';
export {
  CALENDAR_DATE_PATTERN,
  CALENDAR_NAME_MAX_LENGTH,
  CALENDAR_NAME_PATTERN,
  calendarDay,
  isCalendarName,
  splitCalendarExclusions,
} from './calendars';
export { icalDates } from './ical-dates';
export type { IcalDates } from './ical-dates';

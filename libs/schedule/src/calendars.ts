/**
 * Workspace calendars as exclusions: named sets of dates (`holidays:de-berlin`) whose
 * days have no occurrence, in the schedule's zone. A natural-language schedule names them at its
 * end (`every weekday at 9am except holidays:de-berlin`, `… except calendar office-closed`); a job
 * names them in `exclude_calendars`. The dates arrive as data (`ScheduleInput.calendars`): this
 * library never reads them.
 */
import { daysFromCivil, daysInMonth } from './civil';
import { errorAt } from './errors';
import type { OccurrenceExceptions } from './exceptions';
import type { ScheduleError } from './types';

/**
 * A calendar's name: lowercase words of letters, digits, `-` and `_`, joined by `:` (a namespace:
 * `holidays:de-berlin`, `company:office-closed`), starting with a letter; at most 64 characters.
 */
export const CALENDAR_NAME_PATTERN = /^[a-z][a-z0-9_-]*(?::[a-z0-9][a-z0-9_-]*)*$/;
export const CALENDAR_NAME_MAX_LENGTH = 64;
/** A calendar date: `YYYY-MM-DD`. */
export const CALENDAR_DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

export function isCalendarName(name: string): boolean {
  return name.length <= CALENDAR_NAME_MAX_LENGTH && CALENDAR_NAME_PATTERN.test(name);
}

/** The day number (days since 1970-01-01) of a `YYYY-MM-DD` date, or null when it is no date. */
export function calendarDay(date: string): number | null {
  const m = CALENDAR_DATE_PATTERN.exec(date);
  if (!m) {
    return null;
  }
  const [y, mo, d] = [+m[1]!, +m[2]!, +m[3]!];
  return mo >= 1 && mo <= 12 && d >= 1 && d <= daysInMonth(y, mo) ? daysFromCivil(y, mo, d) : null;
}

/** A calendar named in an expression, with where (UTF-16 offsets in the expression). */
export interface CalendarReference {
  name: string;
  start: number;
  end: number;
}

/**
 * Splits `every weekday at 9am except holidays:de-berlin and calendar office-closed` into the
 * schedule (`every weekday at 9am`) and the calendars it excludes. Only a final `except` whose
 * every item is a calendar counts (`calendar <name>`, or a name with a `:`), so `except weekends`
 * stays the natural grammar's. Null when there is none.
 */
export function splitCalendarExclusions(expr: string): { expr: string; calendars: CalendarReference[] } | null {
  const at = expr.search(/\s+except\s+(?!.*\bexcept\b)/i);
  if (at < 0) {
    return null;
  }
  const clause = /^\s+except\s+/i.exec(expr.slice(at))!;
  const listStart = at + clause[0].length;
  const calendars: CalendarReference[] = [];
  const item = /(\s*)(?:(calendar)(\s+))?([^\s,]+)\s*(,|\band\b|$)/giy;
  item.lastIndex = listStart;
  let m: RegExpExecArray | null;
  while (item.lastIndex < expr.length && (m = item.exec(expr)) !== null) {
    const name = m[4]!;
    if (!m[2] && !name.includes(':')) {
      return null;
    }
    const start = m.index + m[1]!.length + (m[2] ? m[2].length + m[3]!.length : 0);
    calendars.push({ name, start, end: start + name.length });
    if (!m[5]) {
      break;
    }
  }
  if (calendars.length === 0 || expr.slice(item.lastIndex).trim() !== '') {
    return null;
  }
  return { expr: expr.slice(0, at), calendars };
}

/**
 * The days of the named calendars as exclusions, or an `unknown_calendar` error per name that
 * `calendars` does not hold (positioned in `expr` for names written there, else at 0).
 */
export function calendarExclusions(
  expr: string,
  named: ReadonlyArray<CalendarReference | string>,
  calendars: Readonly<Record<string, readonly string[]>>,
): { exceptions: OccurrenceExceptions; names: string[]; errors: ScheduleError[] } {
  const excludedDays = new Set<number>();
  const errors: ScheduleError[] = [];
  const names: string[] = [];
  for (const ref of named) {
    const name = typeof ref === 'string' ? ref : ref.name;
    const dates = Object.prototype.hasOwnProperty.call(calendars, name) ? calendars[name] : undefined;
    if (!dates) {
      const [start, end] = typeof ref === 'string' ? [0, 0] : [ref.start, ref.end];
      errors.push(errorAt(expr, start, end, 'unknown_calendar', `unknown calendar "${name}"`));
      continue;
    }
    if (!names.includes(name)) {
      names.push(name);
    }
    for (const date of dates) {
      const day = calendarDay(date);
      if (day !== null) {
        excludedDays.add(day);
      }
    }
  }
  return { exceptions: { excludedInstants: new Set(), excludedDays, added: [] }, names, errors };
}

/** `Every weekday at 09:00, except the days of holidays:de-berlin (Europe/Berlin)`. */
export function describeCalendarExclusion(description: string, names: string[], timezone: string): string {
  if (names.length === 0) {
    return description;
  }
  const list = names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}` : names[0]!;
  const phrase = `, except the days of ${list}`;
  const zoneSuffix = ` (${timezone})`;
  return description.endsWith(zoneSuffix)
    ? `${description.slice(0, -zoneSuffix.length)}${phrase}${zoneSuffix}`
    : `${description}${phrase}`;
}

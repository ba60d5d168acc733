/**
 * The dates of an iCalendar file (RFC 5545), for a workspace calendar imported from one:
 * each `VEVENT`'s `DTSTART` day, through the day before its `DTEND` for a multi-day all-day event.
 * A date-time `DTSTART` counts by its written date (the wall date in its TZID, or UTC for `…Z`).
 * Recurring events (`RRULE`, `RDATE`) are refused rather than silently cut to their first date.
 */
import { daysFromCivil, daysInMonth, toIsoUtc } from './civil';

/** Days one event may span at most. */
const MAX_EVENT_DAYS = 366;

export type IcalDates = { ok: true; dates: string[] } | { ok: false; error: string };

export function icalDates(text: string): IcalDates {
  // Unfold (a CRLF or LF followed by a space or tab continues the line).
  const lines = text.replace(/\r?\n[ \t]/g, '').split(/\r?\n/);
  if (!lines.some((line) => /^BEGIN:VCALENDAR\s*$/i.test(line))) {
    return { ok: false, error: 'is not an iCalendar file (no BEGIN:VCALENDAR)' };
  }
  const days = new Set<number>();
  let event: { start: number | null; end: number | null; line: number } | null = null;
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    const name = /^[A-Za-z-]+/.exec(line)?.[0]?.toUpperCase() ?? '';
    if (/^BEGIN:VEVENT$/i.test(line)) {
      event = { start: null, end: null, line: i + 1 };
    } else if (/^END:VEVENT$/i.test(line) && event) {
      if (event.start === null) {
        return { ok: false, error: `the event at line ${event.line} has no DTSTART` };
      }
      const end = event.end !== null && event.end > event.start ? event.end : event.start + 1;
      if (end - event.start > MAX_EVENT_DAYS) {
        return { ok: false, error: `the event at line ${event.line} spans more than ${MAX_EVENT_DAYS} days` };
      }
      for (let d = event.start; d < end; d++) {
        days.add(d);
      }
      event = null;
    } else if (event && (name === 'RRULE' || name === 'RDATE')) {
      return {
        ok: false,
        error: `the event at line ${event.line} recurs (${name}); recurring events are not supported: list its dates`,
      };
    } else if (event && (name === 'DTSTART' || name === 'DTEND')) {
      const day = dayOf(line.slice(line.lastIndexOf(':') + 1));
      if (day === null) {
        return { ok: false, error: `line ${i + 1}: ${name} must be a date (20261224) or date-time (20261224T090000)` };
      }
      if (name === 'DTSTART') {
        event.start = day;
      } else {
        // DTEND is exclusive for a DATE; a date-time end keeps its own day.
        event.end = /T/i.test(line.slice(line.lastIndexOf(':') + 1)) ? day + 1 : day;
      }
    }
  }
  return {
    ok: true,
    dates: [...days].sort((a, b) => a - b).map((d) => toIsoUtc(d * 86_400_000).slice(0, 10)),
  };
}

function dayOf(value: string): number | null {
  const m = /^(\d{4})(\d{2})(\d{2})(?:T\d{6}Z?)?$/i.exec(value.trim());
  if (!m) {
    return null;
  }
  const [y, mo, d] = [+m[1]!, +m[2]!, +m[3]!];
  return mo >= 1 && mo <= 12 && d >= 1 && d <= daysInMonth(y, mo) ? daysFromCivil(y, mo, d) : null;
}

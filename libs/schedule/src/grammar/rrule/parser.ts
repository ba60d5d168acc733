/**
 * Parser for raw RFC 5545 recurrence rules: an `RRULE:` line (or bare `FREQ=…` parts), optionally
 * with a `DTSTART` line (`DTSTART;TZID=Europe/Berlin:20261204T090000`, `DTSTART:20261204T080000Z`,
 * or floating `DTSTART:20261204T090000`). Extension: `DTSTART=…` may also appear as a part of the
 * rule itself, which is how our canonical form carries it.
 */
import { errorAt, suggest } from '../../errors';
import type { ScheduleError } from '../../types';
import { daysInMonth, wallFromFields } from '../../civil';
import { FREQS, MAX_INTERVAL, WEEKDAY_CODES, emptyRule } from '../../recurrence/rule';
import type { Freq, Rule, TimePoint, WeekdayNum } from '../../recurrence/rule';
import { hasZoneOffsets } from '../../tz';

/**
 * One `EXDATE` / `RDATE` value: an instant (`…Z`), a wall time in the schedule's zone (floating), a
 * wall time in the zone its `TZID` names, or (`EXDATE;VALUE=DATE`) a whole day in the schedule's zone.
 */
export type ExceptionValue =
  { instant: number } | { floating: number } | { zoned: number; tzid: string } | { day: number };

/** The `EXDATE` and `RDATE` lines of a rule, in order. */
export interface RuleExceptionValues {
  exdates: ExceptionValue[];
  rdates: ExceptionValue[];
}

export interface RruleParse {
  rule: Rule | null;
  /** Zone from `DTSTART;TZID=…`, if any. */
  tzid: string | null;
  exceptions: RuleExceptionValues;
  errors: ScheduleError[];
}

const PART_NAMES = [
  'FREQ',
  'INTERVAL',
  'COUNT',
  'UNTIL',
  'BYSECOND',
  'BYMINUTE',
  'BYHOUR',
  'BYDAY',
  'BYMONTHDAY',
  'BYYEARDAY',
  'BYWEEKNO',
  'BYMONTH',
  'BYSETPOS',
  'WKST',
  'DTSTART',
];
const LIST_RANGES: Record<string, [number, number, boolean, string]> = {
  // name: [min, max, negative allowed, what]
  BYSECOND: [0, 59, false, 'seconds go from 0 to 59'],
  BYMINUTE: [0, 59, false, 'minutes go from 0 to 59'],
  BYHOUR: [0, 23, false, 'hours go from 0 to 23'],
  BYMONTHDAY: [1, 31, true, 'month days go from 1 to 31 or -31 to -1'],
  BYYEARDAY: [1, 366, true, 'year days go from 1 to 366 or -366 to -1'],
  BYWEEKNO: [1, 53, true, 'week numbers go from 1 to 53 or -53 to -1'],
  BYMONTH: [1, 12, false, 'months go from 1 to 12'],
  BYSETPOS: [1, 366, true, 'positions go from 1 to 366 or -366 to -1'],
};
const DATE_RE = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z)?)?$/i;

export function parseRrule(expr: string): RruleParse {
  const errors: ScheduleError[] = [];
  const err = (start: number, end: number, kind: string, message: string, suggestion: string | null = null): void => {
    errors.push(errorAt(expr, start, end, kind, message, suggestion));
  };
  let tzid: string | null = null;
  let dtstart: TimePoint | null = null;
  let ruleText: { text: string; offset: number } | null = null;
  const exceptions: RuleExceptionValues = { exdates: [], rdates: [] };

  const parseDate = (text: string, start: number, what: string): TimePoint | null => {
    const m = DATE_RE.exec(text);
    if (!m) {
      err(
        start,
        start + text.length,
        'invalid_value',
        `${what} must look like 20261204T090000, 20261204T080000Z or 20261204`,
      );
      return null;
    }
    const [y, mo, d] = [+m[1]!, +m[2]!, +m[3]!];
    const [h, mi, s] = m[4] ? [+m[4], +m[5]!, +m[6]!] : [0, 0, 0];
    if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || s > 59) {
      err(start, start + text.length, 'out_of_range', `${what} ${text} is not a valid date-time`);
      return null;
    }
    const fl = wallFromFields(y, mo, d, h, mi, s);
    return m[7] ? { instant: fl } : { floating: fl };
  };

  /**
   * `EXDATE[;TZID=zone][;VALUE=DATE|DATE-TIME]:v1,v2,…` or the same for `RDATE` (RFC 5545 3.8.5.1-2).
   * A bare date (`20261224`) is a DATE value: for EXDATE the whole day in the schedule's zone; an
   * RDATE needs a time. `VALUE=PERIOD` is not supported.
   */
  const parseDateList = (text: string, at: number): void => {
    const which = text.toUpperCase().startsWith('EXDATE') ? 'EXDATE' : 'RDATE';
    const colon = text.indexOf(':');
    if (colon < 0) {
      err(at, at + text.length, 'invalid_value', `${which} needs a value: \`${which}:20261224T090000Z\``);
      return;
    }
    let zone: string | null = null;
    let dateOnly = false;
    let p = at + which.length;
    for (const param of text.slice(which.length, colon).split(';').slice(1)) {
      p += 1;
      const [key, value = ''] = param.split('=', 2) as [string, string?];
      if (key.toUpperCase() === 'TZID' && hasZoneOffsets(value)) {
        zone = value;
      } else if (key.toUpperCase() === 'TZID') {
        err(p + 5, p + param.length, 'unknown_timezone', `unknown time zone "${value}"`);
      } else if (key.toUpperCase() === 'VALUE' && /^DATE(-TIME)?$/i.test(value)) {
        dateOnly = value.toUpperCase() === 'DATE';
      } else {
        err(
          p,
          p + param.length,
          'invalid_value',
          `${which} parameters are TZID and VALUE=DATE or VALUE=DATE-TIME (periods are not supported)`,
        );
      }
      p += param.length;
    }
    const into = which === 'EXDATE' ? exceptions.exdates : exceptions.rdates;
    let v = at + colon + 1;
    for (const raw of text.slice(colon + 1).split(',')) {
      const item = raw.trim();
      const start = v + (raw.length - raw.trimStart().length);
      v += raw.length + 1;
      const isDate = /^\d{8}$/.test(item);
      const point = parseDate(item, start, which);
      if (!point) {
        continue;
      }
      if (dateOnly && !isDate) {
        err(start, start + item.length, 'invalid_value', `${which};VALUE=DATE takes dates like 20261224`);
      } else if (isDate && which === 'RDATE') {
        err(start, start + item.length, 'invalid_value', 'an RDATE needs a time of day: 20261224T090000');
      } else if (isDate) {
        into.push({ day: Math.floor((point as { floating: number }).floating / 86_400_000) });
      } else if ('instant' in point && zone) {
        err(start, start + item.length, 'conflict', `a ${which} with TZID must not end in Z`);
      } else if ('instant' in point) {
        into.push(point);
      } else {
        into.push(zone ? { zoned: point.floating, tzid: zone } : point);
      }
    }
  };

  // lines
  let pos = 0;
  for (const rawLine of expr.split(/\n/)) {
    const lineStart = pos;
    pos += rawLine.length + 1;
    const line = rawLine.replace(/\r$/, '');
    const lead = line.length - line.trimStart().length;
    const text = line.trim();
    if (!text) {
      continue;
    }
    const at = lineStart + lead;
    const upper = text.toUpperCase();
    if (upper.startsWith('DTSTART')) {
      const colon = text.indexOf(':');
      if (colon < 0) {
        err(
          at,
          at + text.length,
          'invalid_value',
          'DTSTART needs a value: `DTSTART:20261204T090000` or `DTSTART;TZID=Europe/Berlin:20261204T090000`',
        );
        continue;
      }
      const params = text.slice(7, colon);
      if (params) {
        const m = /^;TZID=(.+)$/i.exec(params);
        if (!m) {
          err(
            at + 7,
            at + colon,
            'invalid_value',
            'the only DTSTART parameter supported is TZID (`DTSTART;TZID=Europe/Berlin:…`)',
          );
        } else if (!hasZoneOffsets(m[1]!)) {
          err(at + 13, at + colon, 'unknown_timezone', `unknown time zone "${m[1]}"`);
        } else {
          tzid = m[1]!;
        }
      }
      if (dtstart) {
        err(at, at + text.length, 'conflict', 'DTSTART is given twice');
      }
      const value = text.slice(colon + 1);
      const p = parseDate(value, at + colon + 1, 'DTSTART');
      if (p && tzid && 'instant' in p) {
        err(at + colon + 1, at + text.length, 'conflict', 'a DTSTART with TZID must not end in Z');
      } else if (p) {
        dtstart = p;
      }
      continue;
    }
    if (/^(EXDATE|RDATE)([:;]|$)/.test(upper)) {
      parseDateList(text, at);
      continue;
    }
    if (upper.startsWith('RRULE:')) {
      if (ruleText) {
        err(at, at + text.length, 'unsupported', 'only one RRULE is supported');
      } else {
        ruleText = { text: text.slice(6), offset: at + 6 };
      }
      continue;
    }
    if (upper.startsWith('FREQ=') || /^[A-Z]+=/i.test(text)) {
      if (ruleText) {
        err(at, at + text.length, 'unsupported', 'only one RRULE is supported');
      } else {
        ruleText = { text, offset: at };
      }
      continue;
    }
    const name = /^[A-Za-z-]+/.exec(text)?.[0] ?? text;
    const sug = suggest(name.toUpperCase(), ['RRULE', 'DTSTART', 'EXDATE', 'RDATE']);
    err(
      at,
      at + name.length,
      'unsupported',
      `unsupported line "${name}": give an RRULE line and optionally DTSTART, EXDATE and RDATE lines (EXRULE is not supported)`,
      sug,
    );
  }
  if (!ruleText) {
    if (!errors.length) {
      err(0, expr.length, 'incomplete', 'an RRULE is required, e.g. `RRULE:FREQ=DAILY;BYHOUR=9;BYMINUTE=0`');
    }
    return { rule: null, tzid, exceptions, errors };
  }

  // parts
  const seen = new Map<string, [number, number]>();
  const values: Record<string, { v: string; at: number }> = {};
  let off = ruleText.offset;
  for (const part of ruleText.text.split(';')) {
    const start = off;
    off += part.length + 1;
    if (!part.trim()) {
      if (part.length || off - 1 < ruleText.offset + ruleText.text.length) {
        err(start, start + part.length, 'invalid_value', 'empty rule part (two `;` in a row?)');
      }
      continue;
    }
    const eq = part.indexOf('=');
    const name = (eq < 0 ? part : part.slice(0, eq)).trim().toUpperCase();
    if (eq < 0) {
      err(start, start + part.length, 'invalid_value', `rule part "${part}" needs a value (NAME=value)`);
      continue;
    }
    if (!PART_NAMES.includes(name)) {
      const s = suggest(name, PART_NAMES);
      err(
        start,
        start + eq,
        'unknown_part',
        s ? `unknown rule part "${part.slice(0, eq)}"; did you mean ${s}?` : `unknown rule part "${part.slice(0, eq)}"`,
        s,
      );
      continue;
    }
    if (seen.has(name)) {
      err(start, start + part.length, 'conflict', `${name} is given twice`);
      continue;
    }
    seen.set(name, [start, start + part.length]);
    values[name] = {
      v: part.slice(eq + 1).trim(),
      at: start + eq + 1 + (part.slice(eq + 1).length - part.slice(eq + 1).trimStart().length),
    };
  }

  const freqV = values.FREQ;
  let freq: Freq | null = null;
  if (!freqV) {
    err(
      ruleText.offset,
      ruleText.offset + ruleText.text.length,
      'incomplete',
      'FREQ is required (SECONDLY, MINUTELY, HOURLY, DAILY, WEEKLY, MONTHLY or YEARLY)',
    );
  } else if (!FREQS.includes(freqV.v.toUpperCase() as Freq)) {
    const s = suggest(freqV.v.toUpperCase(), FREQS);
    err(freqV.at, freqV.at + freqV.v.length, 'invalid_value', `FREQ must be one of ${FREQS.join(', ')}`, s);
  } else {
    freq = freqV.v.toUpperCase() as Freq;
  }
  const rule = emptyRule(freq ?? 'DAILY');

  const int = (name: string, min: number, max: number): number | null => {
    const x = values[name];
    if (!x) {
      return null;
    }
    if (!/^\d+$/.test(x.v) || +x.v < min || +x.v > max) {
      err(x.at, x.at + x.v.length, 'out_of_range', `${name} must be a whole number from ${min} to ${max}`);
      return null;
    }
    return +x.v;
  };
  // RFC 5545 sets no bound; the natural grammar's (a Java/C int, as Quartz and cron steps)
  rule.interval = int('INTERVAL', 1, MAX_INTERVAL) ?? 1;
  rule.count = int('COUNT', 1, 1_000_000);
  for (const [name, [min, max, neg, what]] of Object.entries(LIST_RANGES)) {
    const x = values[name];
    if (!x) {
      continue;
    }
    const out: number[] = [];
    let p = x.at;
    for (const item of x.v.split(',')) {
      const ok =
        /^[+-]?\d{1,3}$/.test(item) &&
        Math.abs(+item) >= min &&
        Math.abs(+item) <= max &&
        (neg || +item >= 0) &&
        (min > 0 ? +item !== 0 : true);
      if (!ok) {
        err(p, p + item.length, 'out_of_range', `${name} value "${item}" is out of range: ${what}`);
      } else {
        out.push(+item);
      }
      p += item.length + 1;
    }
    (rule as unknown as Record<string, number[] | null>)[camel(name)] = out.length ? out : null;
  }
  if (values.BYDAY) {
    const x = values.BYDAY;
    const out: WeekdayNum[] = [];
    let p = x.at;
    for (const item of x.v.split(',')) {
      const m = /^([+-]?\d{1,2})?([A-Za-z]{2})$/.exec(item);
      const day = m ? WEEKDAY_CODES.indexOf(m[2]!.toUpperCase() as (typeof WEEKDAY_CODES)[number]) : -1;
      const n = m?.[1] ? +m[1] : 0;
      if (!m || day < 0) {
        const s = suggest(item.replace(/^[+-]?\d+/, '').toUpperCase(), WEEKDAY_CODES);
        err(
          p,
          p + item.length,
          'invalid_value',
          `BYDAY value "${item}" must be a weekday code MO, TU, WE, TH, FR, SA or SU, optionally with an ordinal (1MO, -1FR)`,
          s ? item.replace(/[A-Za-z]+$/, s) : null,
        );
      } else if (n !== 0 && (Math.abs(n) > 53 || (freq !== 'MONTHLY' && freq !== 'YEARLY'))) {
        err(
          p,
          p + item.length,
          'invalid_value',
          Math.abs(n) > 53
            ? `BYDAY ordinal ${n} is out of range`
            : `an ordinal weekday (${item}) needs FREQ=MONTHLY or FREQ=YEARLY`,
        );
      } else if (n !== 0 && freq === 'MONTHLY' && Math.abs(n) > 5) {
        err(p, p + item.length, 'out_of_range', `a month has at most 5 of each weekday; got ${item}`);
      } else {
        out.push({ day, n });
      }
      p += item.length + 1;
    }
    rule.byDay = out.length ? out : null;
  }
  if (values.WKST) {
    const x = values.WKST;
    const d = WEEKDAY_CODES.indexOf(x.v.toUpperCase() as (typeof WEEKDAY_CODES)[number]);
    if (d < 0) {
      err(x.at, x.at + x.v.length, 'invalid_value', 'WKST must be a weekday code (MO … SU)');
    } else {
      rule.wkst = d;
    }
  }
  if (values.UNTIL) {
    rule.until = parseDate(values.UNTIL.v, values.UNTIL.at, 'UNTIL');
  }
  if (values.DTSTART) {
    if (dtstart) {
      err(values.DTSTART.at, values.DTSTART.at + values.DTSTART.v.length, 'conflict', 'DTSTART is given twice');
    } else {
      dtstart = parseDate(values.DTSTART.v, values.DTSTART.at, 'DTSTART');
    }
  }
  rule.dtstart = dtstart;
  if (rule.until && 'floating' in rule.until && values.UNTIL && !/T/i.test(values.UNTIL.v)) {
    rule.until = { floating: rule.until.floating + 86_399_000 }; // a DATE value includes that day
  }

  // RFC 5545 combination rules
  const span = (name: string): [number, number] => seen.get(name) ?? [0, expr.length];
  if (values.COUNT && values.UNTIL) {
    err(...span('UNTIL'), 'conflict', 'COUNT and UNTIL cannot both be given (RFC 5545)');
  }
  if (freq) {
    if (rule.byWeekNo && freq !== 'YEARLY') {
      err(...span('BYWEEKNO'), 'conflict', 'BYWEEKNO is only allowed with FREQ=YEARLY');
    }
    if (rule.byYearDay && (freq === 'DAILY' || freq === 'WEEKLY' || freq === 'MONTHLY')) {
      err(...span('BYYEARDAY'), 'conflict', `BYYEARDAY is not allowed with FREQ=${freq}`);
    }
    if (rule.byMonthDay && freq === 'WEEKLY') {
      err(...span('BYMONTHDAY'), 'conflict', 'BYMONTHDAY is not allowed with FREQ=WEEKLY');
    }
    if (
      rule.bySetPos &&
      !(
        rule.byMonth ||
        rule.byWeekNo ||
        rule.byYearDay ||
        rule.byMonthDay ||
        rule.byDay ||
        rule.byHour ||
        rule.byMinute ||
        rule.bySecond
      )
    ) {
      err(...span('BYSETPOS'), 'conflict', 'BYSETPOS needs another BY rule part to select from');
    }
  }
  if (rule.until && rule.dtstart && 'floating' in rule.until === 'floating' in rule.dtstart) {
    const u = 'floating' in rule.until ? rule.until.floating : rule.until.instant;
    const d = 'floating' in rule.dtstart ? rule.dtstart.floating : rule.dtstart.instant;
    if (u < d) {
      err(...span('UNTIL'), 'never_fires', 'UNTIL is before DTSTART: this rule never fires');
    }
  }
  return { rule: errors.length ? null : rule, tzid, exceptions, errors };
}

function camel(name: string): string {
  const map: Record<string, string> = {
    BYSECOND: 'bySecond',
    BYMINUTE: 'byMinute',
    BYHOUR: 'byHour',
    BYMONTHDAY: 'byMonthDay',
    BYYEARDAY: 'byYearDay',
    BYWEEKNO: 'byWeekNo',
    BYMONTH: 'byMonth',
    BYSETPOS: 'bySetPos',
  };
  return map[name]!;
}

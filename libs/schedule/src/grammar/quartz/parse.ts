/**
 * Strict parser for Quartz 2.5 cron expressions (`CronExpression`): 6 or 7 whitespace-separated
 * fields `second minute hour day-of-month month day-of-week [year]`.
 *
 * The resulting sets mirror the `TreeSet`s Quartz builds (including its markers `99` = `*` and
 * `98` = `?`, and `L`/`L-n` encoded as `32 + 30 - n` in the day-of-month set), so that the
 * evaluator can be a line-by-line port of `CronExpression.getTimeAfter`.
 *
 * Accepted: exactly what Quartz accepts, minus the leniencies decisions.md rejects: `98`/`99` as
 * wildcards (out of range here), characters trailing a valid token (`12x`, `MON/2`, `*5`, `?x`),
 * `W` after a range (`1-15W`), `L` in fields other than day-of-month/day-of-week (`0 0 12 * L ?`,
 * which Quartz accepts but cannot evaluate), `L`/`#` mixed with other day-of-week items, `?` inside
 * a list, a step of 0, `L-0`, `W` with several hours (Quartz's own
 * evaluation skips the later hours on a shifted day), any character outside ASCII (Java's
 * `toUpperCase` would turn `ſun` into `SUN`), and separators other than spaces and tabs (a line
 * break, CR, VT, FF, NBSP …, which Quartz's tokenizer does not split on).
 */
import { asciiUpper, firstNonAscii } from '../../ascii';
import { errorAt, suggest } from '../../errors';
import type { ScheduleError } from '../../types';
import { DAYS, FULL_DAYS, FULL_MONTHS, MONTHS } from '../names';
import { FieldError, nearestWeekdayWithHours, nonAsciiError, separatorErrors } from './field-errors';
import {
  ALL_SPEC,
  F,
  FIELD_NAMES,
  LAST_DAY_OFFSET_END,
  MAX_LAST_DAY_OFFSET,
  NO_SPEC,
  type QuartzFields,
} from './fields';
import { tokenizeLoose, type Token } from './tokens';

const MIN = [0, 0, 0, 1, 1, 1, 1970];
const MAX = [59, 59, 23, 31, 12, 7, 2999];
/** Number of values of each field. */
const FIELD_SIZE = [60, 60, 24, 31, 12, 7, Infinity];
/** Quartz's `checkIncrementRange` (for `*\/s` and `a/s`): the largest step per field; none for years. */
const QUARTZ_STEP_MAX: Array<number | undefined> = [59, 59, 23, 31, 12, 7, undefined];
const INT_MAX = 2_147_483_647;

type Result = { ok: true; fields: QuartzFields } | { ok: false; errors: ScheduleError[] };

/** One field's values (sorted; shared, read-only) and the markers its items set. */
interface ParsedField {
  values: number[];
  /** `W` days of a day-of-month field. */
  nearest: number[];
  lastDayOfWeek: boolean;
  nthDayOfWeek: number;
}

const EMPTY_FIELD: ParsedField = { values: [], nearest: [], lastDayOfWeek: false, nthDayOfWeek: 0 };

/**
 * Parsed fields by field type and text: a field's meaning does not depend on the rest of the
 * expression (only its errors carry positions, and errors are not kept), and a stream of distinct
 * expressions mostly recombines fields already seen. Bounded; cleared when full.
 */
const FIELD_MEMO = new Map<string, ParsedField>();
const FIELD_MEMO_SIZE = 4096;

function parseFieldMemo(expr: string, tok: Token, type: F): ParsedField {
  const key = `${type}:${tok.text}`;
  let parsed = FIELD_MEMO.get(key);
  if (parsed === undefined) {
    const set = new Set<number>();
    const nearest = new Set<number>();
    const markers = { lastDayOfWeek: false, nthDayOfWeek: 0 } as QuartzFields;
    parseField(expr, tok, type, set, nearest, markers);
    const sorted = (values: Set<number>): number[] => [...values].sort((a, b) => a - b);
    parsed = {
      values: sorted(set),
      nearest: sorted(nearest),
      lastDayOfWeek: markers.lastDayOfWeek,
      nthDayOfWeek: markers.nthDayOfWeek,
    };
    if (FIELD_MEMO.size >= FIELD_MEMO_SIZE) {
      FIELD_MEMO.clear();
    }
    FIELD_MEMO.set(key, parsed);
  }
  return parsed;
}

/** Parses a Quartz expression; several independent field errors are reported together. */
export function parseQuartz(expr: string): Result {
  const toks = tokenizeLoose(expr);
  const errors: ScheduleError[] = separatorErrors(expr);
  if (toks.length < 6 || toks.length > 7) {
    const hint = toks.length === 5 ? `0 ${toks.map((t) => t.text).join(' ')}` : null;
    errors.push(
      errorAt(
        expr,
        0,
        expr.length,
        'field_count',
        `a Quartz expression has 6 or 7 fields (second minute hour day-of-month month day-of-week [year]); found ${toks.length}` +
          (toks.length === 5 ? '. Five fields is classic cron: add a seconds field, or use kind "cron"' : ''),
        hint,
      ),
    );
    return { ok: false, errors };
  }
  const fields: ParsedField[] = [];
  for (let type = 0; type < toks.length; type++) {
    try {
      fields.push(parseFieldMemo(expr, toks[type], type as F));
    } catch (e) {
      if (e instanceof FieldError) {
        errors.push(e.error);
        fields.push(EMPTY_FIELD);
      } else {
        throw e;
      }
    }
  }
  if (errors.length === 0) {
    const domNoSpec = fields[F.DAY_OF_MONTH].values.includes(NO_SPEC);
    const dowNoSpec = fields[F.DAY_OF_WEEK].values.includes(NO_SPEC);
    if (domNoSpec === dowNoSpec) {
      const dom = toks[F.DAY_OF_MONTH];
      const dow = toks[F.DAY_OF_WEEK];
      const fixed = (i: number, repl: string): string => toks.map((t, k) => (k === i ? repl : t.text)).join(' ');
      if (domNoSpec) {
        errors.push(
          errorAt(
            expr,
            dom.start,
            dow.end,
            'day_fields_conflict',
            "Quartz needs '?' in exactly one of day-of-month and day-of-week, not both",
            fixed(F.DAY_OF_MONTH, '*'),
          ),
        );
      } else {
        const dowStar = dow.text === '*';
        const domStar = dom.text === '*';
        const suggestion = dowStar ? fixed(F.DAY_OF_WEEK, '?') : domStar ? fixed(F.DAY_OF_MONTH, '?') : null;
        errors.push(
          errorAt(
            expr,
            dowStar || !domStar ? dow.start : dom.start,
            dowStar || !domStar ? dow.end : dom.end,
            'day_fields_conflict',
            "Quartz needs '?' in exactly one of day-of-month and day-of-week: '?' means \"no specific value\" for the day field you are not using" +
              (suggestion
                ? ''
                : '; Quartz cannot combine a day-of-month with a day-of-week (use two schedules, or 5-field cron where they are OR-ed)'),
            suggestion,
          ),
        );
      }
    }
  }
  if (errors.length === 0 && fields[F.DAY_OF_MONTH].nearest.length > 0 && fields[F.HOUR].values.length > 1) {
    errors.push(nearestWeekdayWithHours(expr, toks[F.DAY_OF_MONTH], toks[F.HOUR]));
  }
  if (errors.length) {
    return { ok: false, errors };
  }
  const year = toks.length === 7 ? fields[F.YEAR].values : null;
  const f: QuartzFields = {
    seconds: fields[F.SECOND].values,
    minutes: fields[F.MINUTE].values,
    hours: fields[F.HOUR].values,
    daysOfMonth: fields[F.DAY_OF_MONTH].values,
    nearestWeekdays: fields[F.DAY_OF_MONTH].nearest,
    months: fields[F.MONTH].values,
    daysOfWeek: fields[F.DAY_OF_WEEK].values,
    years: year && !year.includes(ALL_SPEC) ? year : null,
    lastDayOfWeek: fields[F.DAY_OF_WEEK].lastDayOfWeek,
    nthDayOfWeek: fields[F.DAY_OF_WEEK].nthDayOfWeek,
  };
  return { ok: true, fields: f };
}

function parseField(expr: string, tok: Token, type: F, set: Set<number>, nearest: Set<number>, f: QuartzFields): void {
  const bad = firstNonAscii(tok.text);
  if (bad >= 0) {
    throw new FieldError(nonAsciiError(expr, tok, type, bad));
  }
  const text = asciiUpper(tok.text);
  const items: Token[] = [];
  let pos = 0;
  for (const part of text.split(',')) {
    items.push({ text: part, start: tok.start + pos, end: tok.start + pos + part.length });
    pos += part.length + 1;
  }
  const fail = (
    it: Token,
    kind: string,
    message: string,
    suggestion: string | null = null,
    s = it.start,
    e = it.end,
  ): never => {
    throw new FieldError(errorAt(expr, s, e, kind, message, suggestion));
  };
  if (items.length > 1) {
    for (const it of items) {
      if (it.text === '') {
        fail(tok, 'syntax', `empty item in the ${FIELD_NAMES[type]} list`);
      }
      if (it.text === '?') {
        fail(it, 'syntax', "'?' must stand alone in its field, not inside a list");
      }
    }
    if (type === F.DAY_OF_WEEK && items.some((it) => /L|#/.test(it.text))) {
      fail(tok, 'unsupported', "Quartz cannot combine 'L' or '#' with other day-of-week values in a list");
    }
  }
  for (const it of items) {
    parseItem(expr, it, type, set, nearest, f, fail);
  }
}

type Fail = (it: Token, kind: string, message: string, suggestion?: string | null, s?: number, e?: number) => never;

function parseItem(
  expr: string,
  it: Token,
  type: F,
  set: Set<number>,
  nearest: Set<number>,
  f: QuartzFields,
  fail: Fail,
): void {
  const t = it.text;
  const name = FIELD_NAMES[type];
  if (t === '') {
    fail(it, 'syntax', `the ${name} field is empty`);
  }
  if (t === '?') {
    if (type !== F.DAY_OF_MONTH && type !== F.DAY_OF_WEEK) {
      fail(it, 'syntax', "'?' can only be used in the day-of-month or day-of-week field");
    }
    set.add(NO_SPEC);
    return;
  }
  const num = (s: string, offset: number, lo = MIN[type], hi = MAX[type]): number => {
    const v = parseInt(s, 10);
    if (v < lo || v > hi) {
      fail(
        it,
        'out_of_range',
        `${name} value ${s} is out of range ${lo}-${hi}`,
        null,
        it.start + offset,
        it.start + offset + s.length,
      );
    }
    return v;
  };
  /**
   * A step, bounded exactly as Quartz 2.5.2 bounds it: `*\/s` and `a/s` go through
   * `checkIncrementRange` (at most 59 for seconds and minutes, 23 for hours, 31 for day-of-month,
   * 12 for month, 7 for day-of-week, no check for years), `a-b/s` through no check at all; a Java
   * `int` in both. Where Quartz does not check, a step past 2^31 - 1 - `from` would overflow its
   * loop counter (it loops on), so that is the bound. `from` is the first value the step picks.
   */
  const step = (s: string, offset: number, from: number, ranged: boolean): number => {
    const v = s.length > 10 ? Number.MAX_SAFE_INTEGER : parseInt(s, 10);
    const at = [it.start + offset, it.start + offset + s.length] as const;
    if (v < 1) {
      fail(it, 'out_of_range', `a ${name} step must be at least 1; got ${s}`, null, ...at);
    }
    const checked = ranged ? undefined : QUARTZ_STEP_MAX[type];
    if (checked !== undefined && v > checked) {
      // `*\/60` in seconds is every 60 seconds: once a minute, at `from` (the suggestion replaces
      // the whole item); a larger step has no such reading
      const once = v === checked + 1 && checked + 1 === FIELD_SIZE[type];
      fail(
        it,
        'out_of_range',
        `a ${name} step can be at most ${checked} (as in Quartz); got ${s}${once ? `: '${it.text}' is once a ${['minute', 'hour', 'day'][type]}, at ${from}` : ''}`,
        once ? `${from}` : null,
        ...(once ? ([it.start, it.end] as const) : at),
      );
    }
    if (v > INT_MAX - from) {
      fail(it, 'out_of_range', `a ${name} step can be at most ${INT_MAX - from} here; got ${s}`, null, ...at);
    }
    return v;
  };
  let m: RegExpExecArray | null;
  // --- wildcards and numeric forms (all fields) ---
  if (t === '*') {
    addToSet(set, type, ALL_SPEC, -1, 0);
    return;
  }
  if ((m = /^\*\/(\d+)$/.exec(t))) {
    addToSet(set, type, ALL_SPEC, -1, step(m[1], 2, MIN[type], false));
    return;
  }
  if ((m = /^\/(\d+)$/.exec(t))) {
    fail(it, 'syntax', `a step needs a start: write */${m[1]}`, `*/${m[1]}`);
  }
  if ((m = /^(\d+)$/.exec(t))) {
    addToSet(set, type, num(m[1], 0), -1, -1);
    return;
  }
  if ((m = /^(\d+)-(\d+)(?:\/(\d+))?$/.exec(t))) {
    const a = num(m[1], 0);
    const b = num(m[2], m[1].length + 1);
    if (type === F.YEAR && b < a) {
      fail(it, 'out_of_range', `year range ${t} ends before it starts`);
    }
    const s = m[3] !== undefined ? step(m[3], m[1].length + m[2].length + 2, a, true) : 1;
    addToSet(set, type, a, b, s);
    return;
  }
  if ((m = /^(\d+)\/(\d+)$/.exec(t))) {
    const a = num(m[1], 0);
    addToSet(set, type, a, -1, step(m[2], m[1].length + 1, a, false));
    return;
  }
  // --- day-of-month specials ---
  if (type === F.DAY_OF_MONTH) {
    if ((m = /^L(?:-(\d+))?(W?)$/.exec(t))) {
      let dom = LAST_DAY_OFFSET_END;
      if (m[1] !== undefined) {
        const off = parseInt(m[1], 10);
        if (off === 0) {
          fail(
            it,
            'out_of_range',
            `the offset from the last day must be between 1 and ${MAX_LAST_DAY_OFFSET}: '${it.text}' is the last day itself; write L${m[2]}`,
            `L${m[2]}`,
          );
        }
        if (off > MAX_LAST_DAY_OFFSET) {
          fail(
            it,
            'out_of_range',
            `the offset from the last day must be at most ${MAX_LAST_DAY_OFFSET}; got ${m[1]}`,
            null,
            it.start + 2,
            it.start + 2 + m[1].length,
          );
        }
        dom -= off;
      }
      (m[2] ? nearest : set).add(dom);
      return;
    }
    if ((m = /^(\d+)W$/.exec(t))) {
      nearest.add(num(m[1], 0));
      return;
    }
    if (/^\d+-\d+W$/.test(t)) {
      fail(it, 'syntax', "'W' applies to a single day of the month (e.g. 15W), not to a range", null);
    }
  }
  // --- day-of-week specials ---
  if (type === F.DAY_OF_WEEK) {
    if (t === 'L') {
      set.add(7); // Quartz: a lone 'L' in day-of-week means 7 = Saturday
      return;
    }
    const dayVal = (s: string, offset: number): number => {
      if (/^\d+$/.test(s)) {
        return num(s, offset);
      }
      const i = DAYS.indexOf(s);
      if (i < 0) {
        unknownName(s, offset);
      }
      return i + 1;
    };
    const unknownName = (s: string, offset: number): never =>
      failUnknownName(
        fail,
        it,
        s,
        offset,
        `'${s}' is not a day-of-week name (use SUN, MON, TUE, WED, THU, FRI, SAT or 1-7 with 1 = Sunday)`,
        DAYS,
        FULL_DAYS,
      );
    if ((m = /^(\d+|[A-Z]+)L$/.exec(t))) {
      set.add(dayVal(m[1], 0));
      f.lastDayOfWeek = true;
      return;
    }
    if ((m = /^(\d+|[A-Z]+)#(\d+)$/.exec(t))) {
      const d = dayVal(m[1], 0);
      const n = parseInt(m[2], 10);
      if (n < 1 || n > 5) {
        fail(it, 'out_of_range', "a number between 1 and 5 must follow '#'", null, it.start + m[1].length + 1, it.end);
      }
      set.add(d);
      f.nthDayOfWeek = n;
      return;
    }
    if ((m = /^([A-Z]+)(?:-([A-Z]+))?$/.exec(t))) {
      addNames(set, type, m, dayVal);
      return;
    }
    if (/^[A-Z]+(-[A-Z]+)?\/\d+$/.test(t)) {
      fail(it, 'syntax', 'Quartz ignores a step after day names; use numbers (1 = Sunday), e.g. 2-6/2', null);
    }
  }
  if (type !== F.DAY_OF_MONTH && type !== F.DAY_OF_WEEK && /^(\d*L|L-\d*W?|LW)$/.test(t)) {
    fail(it, 'syntax', `'L' (last) is only valid in the day-of-month and day-of-week fields, not in the ${name} field`);
  }
  if (type === F.MONTH && (m = /^([A-Z]+)(?:-([A-Z]+))?$/.exec(t))) {
    const mon = (s: string, offset: number): number => {
      const i = MONTHS.indexOf(s);
      if (i >= 0) {
        return i + 1;
      }
      return failUnknownName(
        fail,
        it,
        s,
        offset,
        `'${s}' is not a month name (use JAN … DEC or 1-12)`,
        MONTHS,
        FULL_MONTHS,
      );
    };
    addNames(set, type, m, mon);
    return;
  }
  if (type === F.MONTH && /^[A-Z]+(-[A-Z]+)?\/\d+$/.test(t)) {
    fail(it, 'syntax', 'Quartz ignores a step after month names; use numbers, e.g. 1-12/3', null);
  }
  // --- errors that teach ---
  if (t.includes('L') && type !== F.DAY_OF_MONTH && type !== F.DAY_OF_WEEK) {
    fail(it, 'syntax', `'L' (last) is only valid in the day-of-month and day-of-week fields, not in the ${name} field`);
  }
  if (t.includes('W') && /\d/.test(t) && type !== F.DAY_OF_MONTH) {
    fail(it, 'syntax', `'W' (nearest weekday) is only valid in the day-of-month field`);
  }
  if (t.includes('#') && type !== F.DAY_OF_WEEK) {
    fail(it, 'syntax', `'#' (nth weekday) is only valid in the day-of-week field`);
  }
  if (/^[A-Z]+$/.test(t)) {
    const vocab = type === F.MONTH ? MONTHS : type === F.DAY_OF_WEEK ? DAYS : [];
    fail(it, 'unknown_word', `'${it.text}' is not valid in the ${name} field`, vocab.length ? suggest(t, vocab) : null);
  }
  // trailing garbage after a valid prefix (`12x`, `*5`, `MON/2`): point at the first bad character
  const prefix = /^(\*(\/\d+)?|\d+(-\d+)?(\/\d+)?|[A-Z]{3}(-[A-Z]{3})?)/.exec(t);
  if (prefix && prefix[0].length < t.length) {
    const bad = prefix[0].length;
    fail(
      it,
      'syntax',
      `unexpected '${it.text.slice(bad)}' after '${it.text.slice(0, bad)}' in the ${name} field`,
      null,
      it.start + bad,
      it.end,
    );
  }
  fail(it, 'syntax', `'${it.text}' is not a valid ${name} value`);
}

/**
 * Adds the name or range of names `A-B` that `m` matched (`^([A-Z]+)(?:-([A-Z]+))?$`) to `set`,
 * each name's value from `valueOf(name, offset in the item)`.
 */
function addNames(set: Set<number>, type: F, m: RegExpExecArray, valueOf: (s: string, offset: number) => number): void {
  const a = valueOf(m[1], 0);
  if (m[2] === undefined) {
    addToSet(set, type, a, -1, -1);
  } else {
    addToSet(set, type, a, valueOf(m[2], m[1].length + 1), 1);
  }
}

/** Fails on the unknown day or month name `s` (at `offset` in item `it`), suggesting the abbreviation it meant. */
function failUnknownName(
  fail: Fail,
  it: Token,
  s: string,
  offset: number,
  message: string,
  abbreviations: readonly string[],
  fullNames: readonly string[],
): never {
  const suggestion = nameSuggestion(s, abbreviations, fullNames);
  return fail(it, 'unknown_word', message, suggestion, it.start + offset, it.start + offset + s.length);
}

/**
 * The abbreviation an unknown day or month name most likely meant: that of the full name it is,
 * else the nearest abbreviation, else the abbreviation of the nearest full name; null if none is near.
 */
function nameSuggestion(s: string, abbreviations: readonly string[], fullNames: readonly string[]): string | null {
  const full = fullNames.indexOf(s);
  if (full >= 0) {
    return abbreviations[full];
  }
  const nearFull = (): string | null => {
    const near = suggest(s, fullNames);
    return near ? abbreviations[fullNames.indexOf(near)] : null;
  };
  return suggest(s, abbreviations) ?? nearFull();
}

/** Port of Quartz `addToSet` (value checks are done by the caller). incr -1/0 = single value. */
function addToSet(set: Set<number>, type: F, val: number, end: number, incr: number): void {
  if ((incr === 0 || incr === -1) && val !== ALL_SPEC) {
    set.add(val);
    return;
  }
  let startAt = val;
  let stopAt = end;
  if (val === ALL_SPEC && incr <= 0) {
    incr = 1;
    set.add(ALL_SPEC);
  }
  const lo = [0, 0, 0, 1, 1, 1, 1970][type];
  const hi = [59, 59, 23, 31, 12, 7, 2999][type];
  if (stopAt === -1) {
    stopAt = hi;
  }
  if (startAt === -1 || startAt === ALL_SPEC) {
    startAt = lo;
  }
  let max = -1;
  if (stopAt < startAt) {
    max = [60, 60, 24, 31, 12, 7, -1][type];
    stopAt += max;
  }
  for (let i = startAt; i <= stopAt; i += incr) {
    if (max === -1) {
      set.add(i);
    } else {
      let i2 = i % max;
      if (i2 === 0 && (type === F.MONTH || type === F.DAY_OF_WEEK || type === F.DAY_OF_MONTH)) {
        i2 = max;
      }
      set.add(i2);
    }
  }
}

/**
 * Classic 5-field Unix cron (`minute hour day-of-month month day-of-week`), Vixie cron semantics:
 * names (JAN-DEC, SUN-SAT, case-insensitive), `*`, ranges, lists, steps (`*\/5`, `1-30/2`, and
 * `5/15` meaning `5-59/15` as most libraries accept), day-of-week 0-7 (0 and 7 are Sunday), and
 * the macros `@yearly @annually @monthly @weekly @daily @midnight @hourly`.
 *
 * Day rule (Vixie cron): if the day-of-month or the day-of-week field STARTS WITH `*` (including
 * `*\/2`), a day must match both fields; if both are restricted, a day matching EITHER fires.
 */
import { asciiLower, asciiUpper, charAt, codePointName, firstNonAscii } from '../../ascii';
import { errorAt, suggest } from '../../errors';
import type { ScheduleError } from '../../types';
import { tokenize, type Token } from '../quartz/tokens';
import { DAYS, FULL_DAYS, FULL_MONTHS, MONTHS } from '../names';

/** A C `int` (cronie reads steps with strtol into an int). */
const CRON_INT_MAX = 2_147_483_647;

export interface CronFields {
  /** Bit i set = minute i allowed (0-59), as two 30-bit halves for speed: lo = 0-29, hi = 30-59. */
  minutes: boolean[];
  hours: boolean[];
  /** Index 1-31. */
  dom: boolean[];
  /** Index 1-12. */
  months: boolean[];
  /** Index 0-6, 0 = Sunday. */
  dow: boolean[];
  domStar: boolean;
  dowStar: boolean;
  /** The 5-field form actually evaluated (macros expanded). */
  fields: string[];
}

export const CRON_FIELD_NAMES = ['minute', 'hour', 'day-of-month', 'month', 'day-of-week'];
const LO = [0, 0, 1, 1, 0];
const HI = [59, 23, 31, 12, 7];

export const MACROS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

class FieldError extends Error {
  constructor(readonly error: ScheduleError) {
    super(error.message);
  }
}

/** Parses a 5-field cron expression or macro; independent field errors are reported together. */
export function parseCron(expr: string): { ok: true; fields: CronFields } | { ok: false; errors: ScheduleError[] } {
  const trimmed = expr.trim();
  if (trimmed.startsWith('@')) {
    const macro = MACROS[asciiLower(trimmed)];
    if (!macro) {
      const start = expr.indexOf('@');
      const word = trimmed.split(/\s+/)[0];
      return {
        ok: false,
        errors: [
          errorAt(
            expr,
            start,
            start + word.length,
            asciiLower(trimmed) === '@reboot' ? 'unsupported' : 'unknown_word',
            asciiLower(trimmed) === '@reboot'
              ? '@reboot has no fire times in a scheduler'
              : `unknown macro '${word}' (use ${Object.keys(MACROS).join(', ')})`,
            suggest(asciiLower(word), Object.keys(MACROS)),
          ),
        ],
      };
    }
    return parseFields(macro, tokenize(macro), macro);
  }
  const toks = tokenize(expr);
  if (toks.length !== 5) {
    const sug =
      toks.length === 6 && toks.every((t) => /^[\d*/,-]+$/.test(t.text))
        ? toks
            .slice(1)
            .map((t) => t.text)
            .join(' ')
        : null;
    return {
      ok: false,
      errors: [
        errorAt(
          expr,
          0,
          expr.length,
          'field_count',
          `a cron expression has 5 fields (minute hour day-of-month month day-of-week); found ${toks.length}` +
            (toks.length === 6 || toks.length === 7
              ? '. With a seconds field it is a Quartz expression: use kind "quartz"'
              : ''),
          sug,
        ),
      ],
    };
  }
  return parseFields(expr, toks, null);
}

function parseFields(
  expr: string,
  toks: Token[],
  macroOf: string | null,
): { ok: true; fields: CronFields } | { ok: false; errors: ScheduleError[] } {
  const errors: ScheduleError[] = [];
  const sets: boolean[][] = [];
  for (let type = 0; type < 5; type++) {
    try {
      sets.push(parseField(expr, toks[type], type));
    } catch (e) {
      if (!(e instanceof FieldError)) {
        throw e;
      }
      errors.push(macroOf ? { ...e.error, position: 0, length: 0 } : e.error);
      sets.push([]);
    }
  }
  if (errors.length) {
    return { ok: false, errors };
  }
  const dow = new Array<boolean>(7).fill(false);
  for (let i = 0; i <= 7; i++) {
    if (sets[4][i]) {
      dow[i % 7] = true;
    }
  }
  return {
    ok: true,
    fields: {
      minutes: sets[0],
      hours: sets[1],
      dom: sets[2],
      months: sets[3],
      dow,
      domStar: toks[2].text.startsWith('*'),
      dowStar: toks[4].text.startsWith('*'),
      fields: toks.map((t) => t.text),
    },
  };
}

/** `*` or a plain in-range number: the common fields, without building the general parser's closures. */
function fastField(text: string, type: number): boolean[] | null {
  if (text === '*') {
    const all = new Array<boolean>(HI[type] + 1).fill(true);
    for (let v = 0; v < LO[type]; v++) {
      all[v] = false;
    }
    if (type === 4) {
      all[7] = false; // `*` is 0-6; 7 is Sunday's alias, added by the caller from 0
    }
    return all;
  }
  if (text.length > 2) {
    return null;
  }
  let v = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i) - 48;
    if (c < 0 || c > 9) {
      return null;
    }
    v = v * 10 + c;
  }
  if (v < LO[type] || v > HI[type]) {
    return null; // the general parser explains the range
  }
  const one = new Array<boolean>(HI[type] + 1).fill(false);
  one[v] = true;
  return one;
}

/**
 * Parsed fields by `type|text`. Expressions differ, their fields mostly do not (`*`, `1-5`, `0`,
 * `*\/15`), so a stream of unseen expressions parses almost no field twice. Only successful
 * parses are kept; the arrays are shared, so nothing may modify them.
 */
const FIELD_MEMO = new Map<string, boolean[]>();
const FIELD_MEMO_MAX = 4096;

function parseField(expr: string, tok: Token, type: number): boolean[] {
  const key = `${type}|${tok.text}`;
  const known = FIELD_MEMO.get(key);
  if (known !== undefined) {
    return known;
  }
  const set = fastField(tok.text, type) ?? parseFieldText(expr, tok, type);
  if (FIELD_MEMO.size >= FIELD_MEMO_MAX) {
    FIELD_MEMO.clear();
  }
  FIELD_MEMO.set(key, set);
  return set;
}

function parseFieldText(expr: string, tok: Token, type: number): boolean[] {
  const set = new Array<boolean>(HI[type] + 1).fill(false);
  const name = CRON_FIELD_NAMES[type];
  const bad = firstNonAscii(tok.text);
  if (bad >= 0) {
    // names are ASCII: Unicode case mapping would read 'ſun' as SUN and 'frı' as FRI
    const ch = charAt(tok.text, bad);
    throw new FieldError(
      errorAt(
        expr,
        tok.start + bad,
        tok.start + bad + ch.length,
        /\p{L}/u.test(ch) ? 'unknown_word' : 'syntax',
        `'${ch}' (${codePointName(ch)}) is not allowed in the ${name} field: cron fields use ASCII digits, names (${type === 3 ? 'JAN … DEC' : 'SUN … SAT'}) and * , - /`,
        null,
      ),
    );
  }
  let pos = 0;
  for (const raw of tok.text.split(',')) {
    const start = tok.start + pos;
    const it = { raw, text: asciiUpper(raw), start, end: start + raw.length };
    pos += raw.length + 1;
    const fail = (kind: string, message: string, suggestion: string | null = null, s = it.start, e = it.end): never => {
      throw new FieldError(errorAt(expr, s, e, kind, message, suggestion));
    };
    if (raw === '') {
      fail('syntax', `empty item in the ${name} list`, null, tok.start, tok.end);
    }
    const value = (s: string, offset: number): number => {
      if (/^\d+$/.test(s)) {
        const v = parseInt(s, 10);
        if (v < LO[type] || v > HI[type]) {
          fail(
            'out_of_range',
            `${name} value ${s} is out of range ${LO[type]}-${HI[type]}`,
            null,
            it.start + offset,
            it.start + offset + s.length,
          );
        }
        return v;
      }
      const vocab = type === 3 ? MONTHS : type === 4 ? DAYS : null;
      if (vocab) {
        const i = vocab.indexOf(s);
        if (i >= 0) {
          return type === 3 ? i + 1 : i;
        }
        const full = (type === 3 ? FULL_MONTHS : FULL_DAYS).indexOf(s);
        const guess =
          full >= 0
            ? vocab[full]
            : (suggest(s, vocab) ??
              (() => {
                const g = suggest(s, type === 3 ? FULL_MONTHS : FULL_DAYS);
                return g ? vocab[(type === 3 ? FULL_MONTHS : FULL_DAYS).indexOf(g)] : null;
              })());
        fail(
          'unknown_word',
          `'${it.raw.slice(offset, offset + s.length)}' is not a ${type === 3 ? 'month' : 'day-of-week'} name (use ${vocab[0]} … ${vocab[vocab.length - 1]})`,
          guess,
          it.start + offset,
          it.start + offset + s.length,
        );
      }
      return fail(
        'syntax',
        `'${it.raw.slice(offset, offset + s.length)}' is not a valid ${name} value`,
        null,
        it.start + offset,
        it.start + offset + s.length,
      );
    };
    const t = it.text;
    if (t === '?' && (type === 2 || type === 4)) {
      fail(
        'syntax',
        "5-field cron has no '?': write '*' (or use a 6-field Quartz expression)",
        `${expr.slice(0, it.start)}*${expr.slice(it.end)}`.trim(),
      );
    }
    if (/[LW#]/.test(t) && /^[\dLW#-]+$/.test(t) && (type === 2 || type === 4)) {
      fail(
        'unsupported',
        `'${raw}' (L, W, #) is Quartz syntax; classic cron does not support it. Use a 6-field Quartz expression`,
      );
    }
    const m = /^(\*|([0-9A-Z]+)(?:-([0-9A-Z]+))?)(?:\/(\d+))?$/.exec(t);
    if (!m) {
      const prefix = /^(\*|[0-9A-Z]+(-[0-9A-Z]+)?)(\/\d+)?/.exec(t);
      if (prefix && prefix[0].length < t.length) {
        fail(
          'syntax',
          `unexpected '${raw.slice(prefix[0].length)}' after '${raw.slice(0, prefix[0].length)}' in the ${name} field`,
          null,
          it.start + prefix[0].length,
          it.end,
        );
      }
      fail('syntax', `'${raw}' is not a valid ${name} value`);
    }
    let lo: number;
    let hi: number;
    if (m![1] === '*') {
      lo = LO[type];
      hi = type === 4 ? 6 : HI[type];
    } else {
      lo = value(m![2], 0);
      hi =
        m![3] !== undefined ? value(m![3], m![2].length + 1) : m![4] !== undefined ? (type === 4 ? 6 : HI[type]) : lo;
      if (hi < lo) {
        fail('out_of_range', `the range ${raw.split('/')[0]} ends before it starts`, null);
      }
    }
    let step = 1;
    if (m![4] !== undefined) {
      // as cronie (the maintained Vixie cron): any step from 1 up to a C int; a step past the
      // range picks its first value only. Past INT_MAX - first, cronie's loop counter overflows.
      step = m![4].length > 10 ? Number.MAX_SAFE_INTEGER : parseInt(m![4], 10);
      const max = CRON_INT_MAX - lo;
      if (step < 1 || step > max) {
        const off = t.indexOf('/') + 1;
        fail('out_of_range', `a ${name} step must be between 1 and ${max}; got ${m![4]}`, null, it.start + off, it.end);
      }
    }
    for (let v = lo; v <= hi; v += step) {
      set[v] = true;
    }
  }
  return set;
}

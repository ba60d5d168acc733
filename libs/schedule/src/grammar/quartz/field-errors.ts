/** Errors the Quartz parser reports beside the per-item ones: separators, `W` with hours, non-ASCII text. */
import { asciiUpper, charAt, codePointName } from '../../ascii';
import { errorAt, suggest } from '../../errors';
import type { ScheduleError } from '../../types';
import { DAYS, MONTHS } from '../names';
import { F, FIELD_NAMES } from './fields';
import type { Token } from './tokens';

/** A field's first error, thrown out of the item parser and collected per field. */
export class FieldError extends Error {
  constructor(readonly error: ScheduleError) {
    super(error.message);
  }
}

const SEPARATOR_NAMES: Record<string, string> = {
  '\n': 'a line break',
  '\r': 'a carriage return',
  '\v': 'a vertical tab',
  '\f': 'a form feed',
  '\u00a0': 'a no-break space',
  '\u2028': 'a line separator',
  '\u2029': 'a paragraph separator',
  '\ufeff': 'a zero-width no-break space',
};

/**
 * One error per run of whitespace other than spaces and tabs: Quartz splits fields on those two
 * only. The suggestion is the expression with every such run made a space (and trimmed).
 */
export function separatorErrors(expr: string): ScheduleError[] {
  const errors: ScheduleError[] = [];
  const re = /[^\S \t]+/g;
  let fixed: string | null = null;
  let m: RegExpExecArray | null;
  while ((m = re.exec(expr)) !== null) {
    fixed ??= expr.replace(/\s*[^\S \t]\s*/g, ' ').trim();
    const ch = m[0][0];
    const what = SEPARATOR_NAMES[ch] ?? 'a space character';
    errors.push(
      errorAt(
        expr,
        m.index,
        m.index + m[0].length,
        'syntax',
        `${what} (${codePointName(ch)}) cannot separate Quartz fields: only spaces and tabs do`,
        fixed,
      ),
    );
  }
  return errors;
}

/**
 * `W` with several hours: on a day the nearest weekday moved forward (the 15th a Sunday → Monday
 * 16th; `1W` on a Saturday → Monday 3rd), Quartz's search restarts from that day, no longer finds
 * the nth at or after it, and skips to the next month after the first hour; so `0 0 9,12 15W * ?`
 * fires at 09:00 but not at 12:00 on such days. decisions.md rejects what Quartz cannot evaluate.
 */
export function nearestWeekdayWithHours(expr: string, dom: Token, hours: Token): ScheduleError {
  let pos = 0;
  let item: Token = dom;
  for (const part of dom.text.split(',')) {
    if (/w/i.test(part)) {
      item = { text: part, start: dom.start + pos, end: dom.start + pos + part.length };
      break;
    }
    pos += part.length + 1;
  }
  return errorAt(
    expr,
    item.start,
    item.end,
    'unsupported',
    `'${item.text}' (nearest weekday) cannot be combined with several hours ('${hours.text}'): on a day the weekday ` +
      'is moved to, Quartz fires at the first of those hours only and skips the others. Use a single hour, or one ' +
      'schedule per hour',
  );
}

/**
 * A character outside ASCII inside a field. Names are ASCII only: Java's `toUpperCase` maps `ſ`
 * (U+017F) to `S` and `ı` (U+0131) to `I`, so Quartz itself reads `ſun` as `SUN`; decisions.md
 * rejects the leniency. Points at the character; suggests the ASCII name it was probably meant as.
 */
export function nonAsciiError(expr: string, tok: Token, type: F, j: number): ScheduleError {
  const ch = charAt(tok.text, j);
  const start = tok.start + j;
  const name = FIELD_NAMES[type];
  if (!/\p{L}/u.test(ch)) {
    return errorAt(
      expr,
      start,
      start + ch.length,
      'syntax',
      `'${ch}' (${codePointName(ch)}) is not allowed in the ${name} field: Quartz fields use ASCII digits, names and the characters * , - / ? L W #`,
    );
  }
  let a = j;
  let b = j + ch.length;
  while (a > 0 && /\p{L}/u.test(tok.text[a - 1])) {
    a--;
  }
  while (b < tok.text.length && /\p{L}/u.test(tok.text[b])) {
    b++;
  }
  const word = tok.text.slice(a, b);
  const vocab = type === F.MONTH ? MONTHS : type === F.DAY_OF_WEEK ? DAYS : [];
  const folded = word.toUpperCase(); // what Java's toUpperCase makes of it
  const suggestion = vocab.includes(folded) ? folded : vocab.length ? suggest(asciiUpper(word), vocab) : null;
  return errorAt(
    expr,
    start,
    start + ch.length,
    'unknown_word',
    `'${word}' is not a ${name} name: '${ch}' (${codePointName(ch)}) is not an ASCII letter, and Quartz names are ASCII` +
      (vocab.length ? ` (${vocab[0]} … ${vocab[vocab.length - 1]})` : ''),
    suggestion,
  );
}

/**
 * Tokenizer for natural schedules. Token spans are UTF-16 indices into the ORIGINAL text; errors
 * convert them to UTF-8 bytes with `errorAt` (errors.ts).
 */
import { asciiLower } from '../../ascii';

export type TokKind = 'word' | 'num' | 'time' | 'date' | 'punct' | 'other';

export interface Tok {
  kind: TokKind;
  /** Original text. */
  text: string;
  /** Lower-cased text; for `word` tokens, possibly replaced by a spelling correction. */
  low: string;
  start: number;
  end: number;
  /** `num`: value. */
  n?: number;
  /** `time` / `date` with time: wall-clock parts. */
  h?: number;
  mi?: number;
  s?: number;
  /** `date`: calendar parts; `hasTime` when a time was attached (`2026-12-01 09:00`, `…T09:00`). */
  y?: number;
  mo?: number;
  d?: number;
  hasTime?: boolean;
  /** An unknown word already reported (no suggestion): clauses skip it silently. */
  bad?: boolean;
}

const WS = /\s+/y;
const AMPM = /([ap])\.\s?m\.?/iy;
const DATE = /(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:T| +)(\d{1,2}):(\d{2})(?::(\d{2}))?)?(?![\d:])/y;
const TIME = /(\d{1,2}):(\d{2})(?::(\d{2}))?(?![\d:])/y;
const NUM = /\d+/y;
const WORD = /\p{L}[\p{L}\p{M}']*/uy;
const PUNCT = /[,&\-/]/y;
const OTHER = /[^\s\p{L}\d,&\-/]+/uy;

function at(re: RegExp, s: string, i: number): RegExpExecArray | null {
  re.lastIndex = i;
  return re.exec(s);
}

function token(kind: TokKind, s: string, start: number, len: number): Tok {
  const text = s.slice(start, start + len);
  return { kind, text, low: asciiLower(text), start, end: start + len }; // KELVIN SIGN is no 'k'
}

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isAsciiLetter = (c: number): boolean => (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a;

export function tokenize(s: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < s.length) {
    let m: RegExpExecArray | null;
    // Each pattern is tried only where its first character can match (same order, same result):
    // this runs on every natural-language compile.
    const c = s.charCodeAt(i);
    const digit = isDigit(c);
    if (!digit && !isAsciiLetter(c) && (m = at(WS, s, i))) {
      i += m[0].length;
      continue;
    }
    let t: Tok;
    if ((c | 0x20) === 0x61 /* a */ || (c | 0x20) === 0x70 /* p */ ? (m = at(AMPM, s, i)) : false) {
      t = token('word', s, i, m![0].length);
      t.low = `${asciiLower(m![1]!)}m`;
    } else if (digit && (m = at(DATE, s, i))) {
      const hasTime = m[4] !== undefined;
      t = token('date', s, i, m[0].length);
      t.y = +m[1]!;
      t.mo = +m[2]!;
      t.d = +m[3]!;
      t.hasTime = hasTime;
      t.h = hasTime ? +m[4]! : 0;
      t.mi = hasTime ? +m[5]! : 0;
      t.s = m[6] !== undefined ? +m[6] : 0;
    } else if (digit && (m = at(TIME, s, i))) {
      t = token('time', s, i, m[0].length);
      t.h = +m[1]!;
      t.mi = +m[2]!;
      t.s = m[3] !== undefined ? +m[3] : 0;
    } else if (digit && (m = at(NUM, s, i))) {
      t = token('num', s, i, m[0].length);
      t.n = m[0].length > 15 ? Number.MAX_SAFE_INTEGER : +m[0];
    } else if (!digit && (m = at(WORD, s, i))) {
      t = token('word', s, i, m[0].length);
    } else if ((m = at(PUNCT, s, i))) {
      t = token('punct', s, i, 1);
    } else if ((m = at(OTHER, s, i))) {
      t = token('other', s, i, m[0].length);
    } else {
      t = token('other', s, i, 1);
    }
    out.push(t);
    i = t.end;
  }
  return out;
}

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

export function tokenize(s: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < s.length) {
    let m: RegExpExecArray | null;
    if ((m = at(WS, s, i))) {
      i += m[0].length;
      continue;
    }
    const start = i;
    const push = (kind: TokKind, len: number, extra: Partial<Tok> = {}): void => {
      const text = s.slice(start, start + len);
      out.push({ kind, text, low: asciiLower(text), start, end: start + len, ...extra }); // KELVIN SIGN is no 'k'
      i = start + len;
    };
    if ((m = at(AMPM, s, i))) {
      push('word', m[0].length, { low: `${asciiLower(m[1]!)}m` });
    } else if ((m = at(DATE, s, i))) {
      const hasTime = m[4] !== undefined;
      push('date', m[0].length, {
        y: +m[1]!,
        mo: +m[2]!,
        d: +m[3]!,
        hasTime,
        h: hasTime ? +m[4]! : 0,
        mi: hasTime ? +m[5]! : 0,
        s: m[6] !== undefined ? +m[6] : 0,
      });
    } else if ((m = at(TIME, s, i))) {
      push('time', m[0].length, { h: +m[1]!, mi: +m[2]!, s: m[3] !== undefined ? +m[3] : 0 });
    } else if ((m = at(NUM, s, i))) {
      push('num', m[0].length, { n: m[0].length > 9 ? Number.MAX_SAFE_INTEGER : +m[0] });
    } else if ((m = at(WORD, s, i))) {
      push('word', m[0].length);
    } else if ((m = at(PUNCT, s, i))) {
      push('punct', 1);
    } else if ((m = at(OTHER, s, i))) {
      push('other', m[0].length);
    } else {
      push('other', 1);
    }
  }
  return out;
}

/**
 * The natural-language lexer tries each token pattern only where its first character can match
 * (lexer.ts). Against the plain form (every pattern at every position, in order), on random text
 * made of the characters that matter: digits, a/p/m, dots, colons, dashes, spaces of all kinds,
 * letters with marks, and non-ASCII letters that case-fold to ASCII.
 */
import fc from 'fast-check';
import { asciiLower } from '../src/ascii';
import { tokenize, type Tok } from '../src/grammar/natural/lexer';

const PATTERNS: Array<[Tok['kind'], RegExp]> = [
  ['word', /([ap])\.\s?m\.?/iy],
  ['date', /(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:T| +)(\d{1,2}):(\d{2})(?::(\d{2}))?)?(?![\d:])/y],
  ['time', /(\d{1,2}):(\d{2})(?::(\d{2}))?(?![\d:])/y],
  ['num', /\d+/y],
  ['word', /\p{L}[\p{L}\p{M}']*/uy],
  ['punct', /[,&\-/]/y],
  ['other', /[^\s\p{L}\d,&\-/]+/uy],
];

/** Every pattern at every position, in order: the specification the lexer must keep. */
function plainTokenize(s: string): Array<Pick<Tok, 'kind' | 'text' | 'low' | 'start' | 'end'>> {
  const out: Array<Pick<Tok, 'kind' | 'text' | 'low' | 'start' | 'end'>> = [];
  let i = 0;
  while (i < s.length) {
    const ws = /\s+/y;
    ws.lastIndex = i;
    const w = ws.exec(s);
    if (w) {
      i += w[0].length;
      continue;
    }
    let len = 1;
    let kind: Tok['kind'] = 'other';
    let low: string | null = null;
    for (const [k, re] of PATTERNS) {
      re.lastIndex = i;
      const m = re.exec(s);
      if (m) {
        kind = k;
        len = k === 'punct' ? 1 : m[0].length;
        low = re.flags.includes('i') ? `${asciiLower(m[1])}m` : null;
        break;
      }
    }
    const text = s.slice(i, i + len);
    out.push({ kind, text, low: low ?? asciiLower(text), start: i, end: i + len });
    i += len;
  }
  return out;
}

const CHARS = [..."0123456789apmAPM.:-/,&T aeiouxyz\t\n\u00a0\u2028\u3000\u0301\u017f\u0131\u212a'é日!?"];

describe('natural: lexer', () => {
  it('should cut every text into the tokens of the plain pattern-by-pattern lexer', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...CHARS), { maxLength: 40 }).map((cs) => cs.join('')),
        (s) => {
          const got = tokenize(s).map(({ kind, text, low, start, end }) => ({ kind, text, low, start, end }));
          expect(got).toEqual(plainTokenize(s));
        },
      ),
      { numRuns: 20_000 },
    );
  });

  it('should read the values of dates, times and numbers', () => {
    const [date, time, num] = tokenize('2026-12-01T09:30 7:05:09 42');
    expect(date).toMatchObject({ kind: 'date', y: 2026, mo: 12, d: 1, hasTime: true, h: 9, mi: 30, s: 0 });
    expect(time).toMatchObject({ kind: 'time', h: 7, mi: 5, s: 9 });
    expect(num).toMatchObject({ kind: 'num', n: 42 });
    expect(tokenize('9 P.M.')[1]).toMatchObject({ kind: 'word', low: 'pm', text: 'P.M.' });
  });
});

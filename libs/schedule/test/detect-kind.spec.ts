/**
 * `detectKind` decides natural language without splitting an expression that cannot be cron-like
 * (its first character cannot start a numeric field). Against the rule written plainly, on random
 * expressions made of field characters, words, names and all kinds of whitespace (no RRULE text:
 * its detection comes first and is not what changed).
 */
import fc from 'fast-check';
import { detectKind } from '@svc/schedule';

function plainDetect(expr: string): string {
  const s = expr.trim();
  if (/^@(yearly|annually|monthly|weekly|daily|midnight|hourly)$/i.test(s)) {
    return 'cron';
  }
  const toks = s.split(/\s+/).filter(Boolean);
  const numeric = /^[\d*?/,-]+$/;
  const token = /^(?:[\d*?/,#-]|L|W|JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC|SUN|MON|TUE|WED|THU|FRI|SAT)+$/i;
  const cronLike =
    (toks.length >= 3 && numeric.test(toks[0]) && toks.every((t) => token.test(t))) ||
    (toks.length >= 5 && toks.length <= 7 && numeric.test(toks[0]) && numeric.test(toks[1]));
  return cronLike ? (toks.length >= 6 ? 'quartz' : 'cron') : 'natural';
}

const PIECES = [
  '0',
  '15',
  '*',
  '*/5',
  '1-5',
  '?',
  'L',
  'W',
  '#',
  ',',
  '-',
  '/',
  'MON',
  'jan',
  'every',
  'day',
  'at',
  '9am',
];
const SPACES = [' ', '  ', '\t', '\n', '\u00a0', '\u2003', ''];

describe('detectKind', () => {
  it('should detect what the plainly written rule detects', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...SPACES), fc.constantFrom(...PIECES)), { maxLength: 9 }),
        fc.constantFrom(...SPACES),
        (parts, tail) => {
          const expr = parts.map(([space, piece]) => space + piece).join('') + tail;
          expect(detectKind(expr)).toBe(plainDetect(expr));
        },
      ),
      { numRuns: 20_000 },
    );
  });
});

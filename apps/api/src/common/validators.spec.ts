import { parseDuration } from '@svc/common';
import fc from 'fast-check';
import { durationPattern, isTimestamp, TIMESTAMP_PATTERN } from './validators';

/** Strings near the grammar: digits, unit letters and a stray character now and then. */
const durationLike = fc
  .array(fc.constantFrom('0', '1', '9', '00', '999', '1000', 'd', 'h', 'm', 's', 'ms', 'x', ''), { maxLength: 8 })
  .map((parts) => parts.join(''));

/** Numbers around the digit bound, with leading zeros, in every unit: totals near and past 2^53. */
const longNumbers = fc
  .array(fc.tuple(fc.stringMatching(/^0{0,3}[1-9][0-9]{5,9}$/), fc.constantFrom('d', 'h', 'm', 's', 'ms')), {
    minLength: 1,
    maxLength: 5,
  })
  .map((parts) => parts.map(([digits, unit]) => digits + unit).join(''));

describe('durationPattern (the document’s pattern for a duration with a minimum)', () => {
  it.each([0, 1, 100, 1000])('should match exactly the durations of at least %i ms that parse', (min) => {
    const pattern = new RegExp(durationPattern(min));
    fc.assert(
      fc.property(fc.oneof(durationLike, longNumbers, fc.string({ maxLength: 12 })), (text) => {
        // Totals past 2^53 ms are refused by the server as above every field's maximum (an
        // x-server-check), not by the pattern: five parts of at most 8 digits stay below it.
        fc.pre(!/[0-9]{9}/.test(text.replace(/(^|[^0-9])0+(?=[0-9])/g, '$1')));
        const ms = parseDuration(text);
        expect({ text, matches: pattern.test(text) }).toEqual({ text, matches: ms !== null && ms >= min });
      }),
      { numRuns: 3000 },
    );
    expect(pattern.test('0d')).toBe(min === 0);
    expect(pattern.test('1h30m')).toBe(true);
    // 110,000,999 days (past 2^53 ms) fits the grammar: the server refuses it as over a maximum.
    expect(pattern.test('110000999d')).toBe(true);
    expect(parseDuration('110000999d')).toBeNull();
  });
});

describe('isTimestamp', () => {
  it('should accept exactly the pattern on real calendar days', () => {
    const pattern = new RegExp(TIMESTAMP_PATTERN);
    for (const ok of ['2026-12-01T09:00:00Z', '2024-02-29T00:00:00.123+05:30', '0001-01-01t23:59:59z']) {
      expect({ ok, valid: isTimestamp(ok) && pattern.test(ok) }).toEqual({ ok, valid: true });
    }
    for (const bad of [
      '2026-02-29T00:00:00Z',
      '2026-04-31T00:00:00Z',
      '2026-01-01T24:00:00Z',
      '0000-01-01T00:00:00Z',
    ]) {
      expect({ bad, valid: isTimestamp(bad) }).toEqual({ bad, valid: false });
    }
    fc.assert(
      fc.property(fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z') }), (d) => {
        if (!Number.isNaN(d.getTime())) {
          expect(isTimestamp(d.toISOString())).toBe(true);
        }
      }),
    );
  });
});

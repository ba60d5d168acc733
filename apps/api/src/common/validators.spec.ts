import { parseDuration } from '@svc/common';
import fc from 'fast-check';
import { durationPattern, isTimestamp, TIMESTAMP_PATTERN } from './validators';

/** Strings near the grammar: digits, unit letters and a stray character now and then. */
const durationLike = fc
  .array(fc.constantFrom('0', '1', '9', '00', '999', '1000', 'd', 'h', 'm', 's', 'ms', 'x', ''), { maxLength: 8 })
  .map((parts) => parts.join(''));

describe('durationPattern (the document’s pattern for a duration with a minimum)', () => {
  it.each([0, 1, 100, 1000])('should match exactly the durations of at least %i ms that parse', (min) => {
    const pattern = new RegExp(durationPattern(min));
    fc.assert(
      fc.property(fc.oneof(durationLike, fc.string({ maxLength: 12 })), (text) => {
        fc.pre(!/[0-9]{10}/.test(text)); // totals past 2^53 are a maximum: server-checked
        const ms = parseDuration(text);
        expect({ text, matches: pattern.test(text) }).toEqual({ text, matches: ms !== null && ms >= min });
      }),
      { numRuns: 3000 },
    );
    expect(pattern.test('0d')).toBe(min === 0);
    expect(pattern.test('1h30m')).toBe(true);
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

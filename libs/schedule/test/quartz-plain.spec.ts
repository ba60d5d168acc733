/**
 * The plain-expression shortcut (grammar/quartz/plain.ts) against the line-by-line port of
 * Quartz's getTimeAfter (grammar/quartz/evaluate.ts): wherever the shortcut answers, it answers
 * what the port does, on random plain expressions and instants, many of them around DST changes,
 * in zones whose changes fall at 02:00, at midnight, by 30 minutes, by 2 hours, or twice a year
 * around Ramadan. The port itself is checked against Quartz in quartz-oracle.spec.ts.
 */
import fc from 'fast-check';
import { UNLIMITED_BUDGET } from '@svc/schedule';
import { quartzTimeAfter } from '../src/grammar/quartz/evaluate';
import { parseQuartz } from '../src/grammar/quartz/parse';
import { plainQuartz, plainQuartzTimeAfter } from '../src/grammar/quartz/plain';
import { zoneOffsets } from '../src/tz';
import { DST_ZONES, instantAroundDstChanges } from './dst-arbitraries';

const SECONDS = ['0', '*', '0/15', '5,35', '*/20', '59', '30-32'];
const MINUTES = ['0', '*', '0/15', '30', '*/7', '59', '10-12,45'];
const HOURS = ['*', '0', '1', '2', '3', '9', '23', '0/6', '1-3', '9-17', '2,14'];
const DAYS_OF_MONTH = ['*', '1', '15', '29', '30', '31', '1,15', '28-31', '1/10'];
const DAYS_OF_WEEK = ['*', 'MON-FRI', 'SAT,SUN', '1', '7', '2-6', 'TUE', 'MON,WED,FRI'];
const MONTHS = ['*', '2', '1-3', 'FEB,AUG', '11,12', '3,10', '*/2'];

const expression = fc
  .record({
    s: fc.constantFrom(...SECONDS),
    mi: fc.constantFrom(...MINUTES),
    h: fc.constantFrom(...HOURS),
    dom: fc.constantFrom(...DAYS_OF_MONTH),
    dow: fc.constantFrom(...DAYS_OF_WEEK),
    mo: fc.constantFrom(...MONTHS),
    byWeekday: fc.boolean(),
  })
  .map(({ s, mi, h, dom, dow, mo, byWeekday }) =>
    byWeekday ? `${s} ${mi} ${h} ? ${mo} ${dow}` : `${s} ${mi} ${h} ${dom} ${mo} ?`,
  );

/** Instants from 1990 to 2060, half of them in the months when most zones change their clocks. */
const instant = instantAroundDstChanges(1990, 2060);

describe('quartz: the plain-expression shortcut equals the port of getTimeAfter', () => {
  it('should answer as the port wherever it answers, and answer most cases', () => {
    let answered = 0;
    let total = 0;
    fc.assert(
      fc.property(expression, fc.constantFrom(...DST_ZONES), instant, (expr, zoneName, after) => {
        const parsed = parseQuartz(expr);
        if (!parsed.ok) {
          throw new Error(`${expr}: ${parsed.errors[0].message}`);
        }
        const plain = plainQuartz(parsed.fields);
        expect(plain).not.toBeNull();
        const zone = zoneOffsets(zoneName);
        const maxYear = 2126;
        // a chain of fire times, as a preview computes them
        let t = after;
        for (let i = 0; i < 5; i++) {
          const port = quartzTimeAfter(parsed.fields, t, { zone, maxYear, budget: UNLIMITED_BUDGET });
          const fast = plainQuartzTimeAfter(plain!, zone, t, maxYear);
          total++;
          if (fast !== undefined) {
            answered++;
            if (fast !== port) {
              throw new Error(
                `${expr} in ${zoneName} after ${new Date(t).toISOString()}: shortcut ${new Date(fast).toISOString()}, port ${port === null ? 'null' : new Date(port).toISOString()}`,
              );
            }
          }
          if (port === null) {
            break;
          }
          t = port;
        }
      }),
      { numRuns: 4000, seed: 20261125 },
    );
    expect(answered / total).toBeGreaterThan(0.8);
  });

  it('should leave L, W, #, years and partial sets with markers to the port', () => {
    for (const expr of [
      '0 0 12 L * ?',
      '0 0 12 L-3 * ?',
      '0 0 12 15W * ?',
      '0 0 12 LW * ?',
      '0 0 12 ? * 6L',
      '0 0 12 ? * 2#1',
      '0 0 12 * * ? 2030',
      '0 0 12 * * ? 2030-2040',
    ]) {
      const parsed = parseQuartz(expr);
      expect(parsed.ok).toBe(true);
      expect(parsed.ok && plainQuartz(parsed.fields)).toBeNull();
    }
  });

  it('should answer nothing for a wall time inside a DST change, and the port keeps Quartz’s answer there', () => {
    const parsed = parseQuartz('0 30 2 * * ?'); // 02:30 does not exist on 2026-03-29 in Berlin
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) {
      return;
    }
    const zone = zoneOffsets('Europe/Berlin');
    const plain = plainQuartz(parsed.fields)!;
    const after = Date.UTC(2026, 2, 28, 12); // Saturday noon UTC
    expect(plainQuartzTimeAfter(plain, zone, after, 2126)).toBeUndefined();
    // Quartz skips the missing 02:30 and fires on Monday 02:30 CEST (00:30 UTC)
    expect(quartzTimeAfter(parsed.fields, after, { zone, maxYear: 2126, budget: UNLIMITED_BUDGET })).toBe(
      Date.UTC(2026, 2, 30, 0, 30),
    );
  });
});

/**
 * `CronMatcher.fireTimes` (successive fire times, with a shortcut between days that have one
 * offset) against calling `nextAfter` again from each answer, on random 5-field expressions and
 * instants, most of them in the months when zones change their clocks: at 02:00, at midnight, by
 * 30 minutes, by 2 hours, twice a year around Ramadan.
 */
import fc from 'fast-check';
import { UNLIMITED_BUDGET } from '@svc/schedule';
import { CronMatcher, parseCron } from '../src/grammar/cron';
import { zoneOffsets } from '../src/tz';
import { DST_ZONES, instantAroundDstChanges } from './dst-arbitraries';

const MINUTES = ['0', '*', '*/15', '30', '*/7', '59', '10-12,45'];
const HOURS = ['*', '0', '1', '2', '3', '9', '23', '*/6', '1-3', '9-17', '2,14'];
const DAYS_OF_MONTH = ['*', '1', '15', '29', '31', '1,15', '28-31'];
const MONTHS = ['*', '2', '1-3', '3,10', '*/2', '11,12'];
const DAYS_OF_WEEK = ['*', '1-5', '0,6', '0', '2', '1,3,5'];

const expression = fc
  .tuple(
    fc.constantFrom(...MINUTES),
    fc.constantFrom(...HOURS),
    fc.constantFrom(...DAYS_OF_MONTH),
    fc.constantFrom(...MONTHS),
    fc.constantFrom(...DAYS_OF_WEEK),
  )
  .map((fields) => fields.join(' '));

const instant = instantAroundDstChanges();

describe('cron: successive fire times', () => {
  it('should equal nextAfter called again from each answer', () => {
    fc.assert(
      fc.property(expression, fc.constantFrom(...DST_ZONES), instant, (expr, zoneName, after) => {
        const parsed = parseCron(expr);
        if (!parsed.ok) {
          throw new Error(`${expr}: ${parsed.errors[0].message}`);
        }
        const matcher = new CronMatcher(parsed.fields);
        const zone = zoneOffsets(zoneName);
        const expected: number[] = [];
        let t = after;
        while (expected.length < 40) {
          const n = matcher.nextAfter(t, zone, UNLIMITED_BUDGET);
          if (n === -1) {
            break;
          }
          expected.push(n);
          t = n;
        }
        expect(matcher.fireTimes(after, 40, zone, UNLIMITED_BUDGET)).toEqual(expected);
      }),
      { numRuns: 4000 },
    );
  });
});

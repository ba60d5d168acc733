/**
 * Quartz's step bounds, both ways (issue 41), pinned as a table: every row was run through Quartz
 * 2.5.2's own `CronExpression` (`new CronExpression(expr)`, Java 17) and holds its verdict — null
 * for accepted, else its `ParseException` message. The bounds come from the source:
 * https://github.com/quartz-scheduler/quartz/blob/v2.5.2/quartz/src/main/java/org/quartz/CronExpression.java
 * - `checkIncrementRange` (L726-L738): a step above 59 (second, minute), 23 (hour), 31
 *   (day-of-month), 12 (month), 7 (day-of-week) is refused; nothing for years;
 * - it is called for `*\/s` (`storeExpressionVals`, L648-L660) and `a/s` (`checkNext`, L842-L866)
 *   only: `a-b/s` (`checkNext`, L800-L840) takes any step (`addToSet` then picks `a`).
 * So `5-40/61` (seconds), `1-31/40` and `*\/31` (day of month) ARE accepted by Quartz 2.5.2, and
 * here. Departures (documented in docs/schedules.md): a step of 0, which Quartz takes as 1 or
 * ignores, is refused; steps past a Java int are refused (step-bounds.spec.ts).
 */
import { compileSchedule } from '@svc/schedule';
import { REF } from './helpers';

const FIELDS = ['second', 'minute', 'hour', 'day-of-month', 'month', 'day-of-week', 'year'];

/** [expression, Quartz 2.5.2's ParseException message or null when it accepts it] */
const QUARTZ_2_5_2: Array<[string, string | null]> = [
  ['*/59 0 12 * * ?', null],
  ['*/60 0 12 * * ?', 'Increment >= 60 : 60'],
  ['1/59 0 12 * * ?', null],
  ['1/60 0 12 * * ?', 'Increment >= 60 : 60'],
  ['1-6/59 0 12 * * ?', null],
  ['1-6/60 0 12 * * ?', null],
  ['1-6/61 0 12 * * ?', null],
  ['0 */59 12 * * ?', null],
  ['0 */60 12 * * ?', 'Increment >= 60 : 60'],
  ['0 1/59 12 * * ?', null],
  ['0 1/60 12 * * ?', 'Increment >= 60 : 60'],
  ['0 1-6/59 12 * * ?', null],
  ['0 1-6/60 12 * * ?', null],
  ['0 1-6/61 12 * * ?', null],
  ['0 0 */23 * * ?', null],
  ['0 0 */24 * * ?', 'Increment >= 24 : 24'],
  ['0 0 1/23 * * ?', null],
  ['0 0 1/24 * * ?', 'Increment >= 24 : 24'],
  ['0 0 1-6/23 * * ?', null],
  ['0 0 1-6/24 * * ?', null],
  ['0 0 1-6/25 * * ?', null],
  ['0 0 12 */31 * ?', null],
  ['0 0 12 */32 * ?', 'Increment >= 31 : 32'],
  ['0 0 12 2/31 * ?', null],
  ['0 0 12 2/32 * ?', 'Increment >= 31 : 32'],
  ['0 0 12 2-7/31 * ?', null],
  ['0 0 12 2-7/32 * ?', null],
  ['0 0 12 2-7/33 * ?', null],
  ['0 0 12 1 */12 ?', null],
  ['0 0 12 1 */13 ?', 'Increment >= 12 : 13'],
  ['0 0 12 1 2/12 ?', null],
  ['0 0 12 1 2/13 ?', 'Increment >= 12 : 13'],
  ['0 0 12 1 2-7/12 ?', null],
  ['0 0 12 1 2-7/13 ?', null],
  ['0 0 12 1 2-7/14 ?', null],
  ['0 0 12 ? * */7', null],
  ['0 0 12 ? * */8', 'Increment >= 7 : 8'],
  ['0 0 12 ? * 2/7', null],
  ['0 0 12 ? * 2/8', 'Increment >= 7 : 8'],
  ['0 0 12 ? * 2-7/7', null],
  ['0 0 12 ? * 2-7/8', null],
  ['0 0 12 ? * 2-7/9', null],
  ['0 0 12 1 1 ? */1000', null],
  ['0 0 12 1 1 ? 2030/1000', null],
  ['0 0 12 1 1 ? 2030-2040/1000', null],
  ['0 0 12 1 1 ? */1', null],
  ['0 0 12 1 1 ? 2030/1', null],
  ['5-40/61 0 12 * * ?', null],
  ['0 0 12 1-31/40 * ?', null],
  ['0 0 12 */31 * ?', null],
];

/** The field a row varies: the one holding a `/`. */
function stepField(expr: string): { index: number; start: number; text: string } {
  const tokens = [...expr.matchAll(/\S+/g)];
  const index = tokens.findIndex((t) => t[0].includes('/'));
  return { index, start: tokens[index].index, text: tokens[index][0] };
}

describe('Quartz steps: the same verdict as Quartz 2.5.2 on each side of each bound', () => {
  it('covers every field on both sides', () => {
    for (const index of FIELDS.keys()) {
      const rows = QUARTZ_2_5_2.filter(([expr]) => stepField(expr).index === index);
      expect(rows.some(([, refused]) => refused === null)).toBe(true);
      if (FIELDS[index] !== 'year') {
        expect(rows.some(([, refused]) => refused !== null)).toBe(true);
      }
    }
  });

  it.each(QUARTZ_2_5_2)('%s → %s', (expr, refused) => {
    const result = compileSchedule({ expr, kind: 'quartz', reference: REF });
    if (refused === null) {
      expect(result.ok).toBe(true);
      return;
    }
    expect(result.ok).toBe(false);
    if (result.ok) {
      return;
    }
    const field = stepField(expr);
    const [error] = result.errors;
    // A structured error on that field's item, in this service's words, with Quartz's bound.
    expect(error.kind).toBe('out_of_range');
    expect(error.position).toBeGreaterThanOrEqual(field.start);
    expect(error.position + error.length).toBeLessThanOrEqual(field.start + field.text.length);
    const bound = /Increment >= \d+ : (\d+)/.exec(refused)![1];
    expect(error.message).toContain(`a ${FIELDS[field.index]} step can be at most`);
    expect(error.message).toContain(`got ${bound}`);
  });

  it('keeps */12 (month) and */7 (day-of-week) as Quartz has them: one value each', () => {
    const next = (expr: string) => {
      const r = compileSchedule({ expr, kind: 'quartz', reference: REF });
      return r.ok ? r.schedule.next(REF, 2).map((d) => d.toISOString()) : r.errors;
    };
    expect(next('0 0 12 1 */12 ?')).toEqual(['2026-01-01T12:00:00.000Z', '2027-01-01T12:00:00.000Z']);
    expect(next('0 0 12 ? * */7')).toEqual(['2026-01-04T12:00:00.000Z', '2026-01-11T12:00:00.000Z']);
  });
});

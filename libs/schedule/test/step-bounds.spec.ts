/**
 * The largest accepted step of every field, seconds to years, for every kind that has steps, with
 * the cases on both sides of each bound (docs/schedules.md → "Steps and intervals: how large"):
 * - Quartz as Quartz 2.5.2's `CronExpression` (`checkIncrementRange` for `*\/s` and `a/s`, no
 *   check for `a-b/s` nor for years; a Java int, and no step that overflows its loop counter) —
 *   quartz-oracle.spec.ts checks the same bounds against the real Quartz (group `steps`);
 * - 5-field cron as cronie (the maintained Vixie cron): any step from 1 to INT_MAX - first value;
 * - RRULE `INTERVAL` and natural `every N <unit>`: 1 to 2^31 - 1 in every unit.
 */
import { compileSchedule } from '@svc/schedule';
import { errorsOf, REF } from './helpers';

const INT_MAX = 2_147_483_647;

function accepted(expr: string, kind: 'quartz' | 'cron' | 'rrule' | 'natural'): boolean {
  return compileSchedule({ expr, kind, reference: REF }).ok;
}

/** Quartz fields: index, an expression with `X` in that field, the first value of `*`, Quartz's check. */
const QUARTZ: Array<[string, string, number, number | null]> = [
  ['second', 'X 0 12 * * ?', 0, 59],
  ['minute', '0 X 12 * * ?', 0, 59],
  ['hour', '0 0 X * * ?', 0, 23],
  ['day-of-month', '0 0 12 X * ?', 1, 31],
  ['month', '0 0 12 1 X ?', 1, 12],
  ['day-of-week', '0 0 12 ? * X', 1, 7],
  ['year', '0 0 12 1 1 ? X', 1970, null],
];

describe('Quartz steps: exactly as Quartz 2.5.2 bounds them', () => {
  describe.each(QUARTZ)('%s', (_name, shape, first, max) => {
    const at = (v: string): string => shape.replace('X', v);
    if (max !== null) {
      it(`*/${max} and ${first}/${max} are accepted, */${max + 1} and ${first}/${max + 1} are errors at the step`, () => {
        expect(accepted(at(`*/${max}`), 'quartz')).toBe(true);
        expect(accepted(at(`${first}/${max}`), 'quartz')).toBe(true);
        for (const v of [`*/${max + 1}`, `${first}/${max + 1}`]) {
          const [e] = errorsOf(at(v), { kind: 'quartz' });
          // at the step; at the whole item when it offers the one value it picks (`*/60` → `0`)
          const item = e.suggestion !== null;
          expect(e).toMatchObject({
            kind: 'out_of_range',
            position: shape.indexOf('X') + (item ? 0 : v.indexOf('/') + 1),
          });
        }
      });
    } else {
      it('*/s has no bound but a Java int without overflow', () => {
        expect(accepted(at('*/1000'), 'quartz')).toBe(true);
        expect(accepted(at(`*/${INT_MAX - first}`), 'quartz')).toBe(true);
        expect(accepted(at(`*/${INT_MAX - first + 1}`), 'quartz')).toBe(false);
      });
    }
    it('a-b/s is not checked by Quartz: any step up to INT_MAX - a', () => {
      const a = first + 1;
      const range = `${a}-${a + 1}`;
      expect(accepted(at(`${range}/1000`), 'quartz')).toBe(true);
      expect(accepted(at(`${range}/${INT_MAX - a}`), 'quartz')).toBe(true);
      expect(accepted(at(`${range}/${INT_MAX - a + 1}`), 'quartz')).toBe(false);
      expect(accepted(at(`${range}/0`), 'quartz')).toBe(false);
    });
  });

  it('the step equal to the range size picks one value (the regressions of issue #24)', () => {
    const next = (expr: string, n: number): string[] => {
      const r = compileSchedule({ expr, kind: 'quartz', reference: REF });
      if (!r.ok) {
        throw new Error(JSON.stringify(r.errors));
      }
      return r.schedule.next(REF, n).map((d) => d.toISOString());
    };
    expect(next('0 0 12 1 */12 ?', 2)).toEqual(['2026-01-01T12:00:00.000Z', '2027-01-01T12:00:00.000Z']);
    expect(next('0 0 12 ? * */7', 2)).toEqual(['2026-01-04T12:00:00.000Z', '2026-01-11T12:00:00.000Z']);
    expect(next('0 0 12 */31 * ?', 2)).toEqual(['2026-01-01T12:00:00.000Z', '2026-02-01T12:00:00.000Z']);
  });

  it('*/60 in seconds is once a minute: the one value it would pick is offered', () => {
    expect(errorsOf('0 */60 12 * * ?', { kind: 'quartz' })[0]).toMatchObject({
      position: 2,
      length: 4,
      suggestion: '0',
    });
    expect(errorsOf('0 0 5/24 * * ?', { kind: 'quartz' })[0]).toMatchObject({
      position: 4,
      length: 4,
      suggestion: '5',
    });
    expect(errorsOf('0 */61 12 * * ?', { kind: 'quartz' })[0]).toMatchObject({ position: 4, suggestion: null });
  });
});

/** cron fields: an expression with `X` in that field and the field's first value. */
const CRON: Array<[string, string, number]> = [
  ['minute', 'X 12 * * *', 0],
  ['hour', '0 X * * *', 0],
  ['day-of-month', '0 12 X * *', 1],
  ['month', '0 12 1 X *', 1],
  ['day-of-week', '0 12 * * X', 0],
];

describe('5-field cron steps: as cronie (Vixie cron)', () => {
  describe.each(CRON)('%s', (_name, shape, first) => {
    const at = (v: string): string => shape.replace('X', v);
    it('any step from 1 to INT_MAX - first value; 0 and beyond are errors at the step', () => {
      for (const form of ['*', `${first + 1}-${first + 2}`]) {
        const lo = form === '*' ? first : first + 1;
        expect(accepted(at(`${form}/1`), 'cron')).toBe(true);
        expect(accepted(at(`${form}/100`), 'cron')).toBe(true);
        expect(accepted(at(`${form}/${INT_MAX - lo}`), 'cron')).toBe(true);
        for (const bad of ['0', String(INT_MAX - lo + 1)]) {
          const [e] = errorsOf(at(`${form}/${bad}`), { kind: 'cron' });
          expect(e).toMatchObject({ kind: 'out_of_range', position: shape.indexOf('X') + form.length + 1 });
        }
      }
    });
  });

  it('a step past the range picks its first value only (cronie warns and keeps it)', () => {
    const r = compileSchedule({ expr: '*/90 * * * *', kind: 'cron', reference: REF });
    expect(r.ok && r.schedule.next(REF, 2).map((d) => d.toISOString())).toEqual([
      '2026-01-01T01:00:00.000Z',
      '2026-01-01T02:00:00.000Z',
    ]);
  });
});

describe('RRULE INTERVAL and natural `every N <unit>`: 1 to 2^31 - 1 in every unit', () => {
  const FREQS = ['SECONDLY', 'MINUTELY', 'HOURLY', 'DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'];
  it.each(FREQS)('FREQ=%s', (freq) => {
    expect(accepted(`FREQ=${freq};INTERVAL=${INT_MAX}`, 'rrule')).toBe(true);
    expect(accepted(`FREQ=${freq};INTERVAL=90`, 'rrule')).toBe(true);
    for (const bad of [INT_MAX + 1, 0]) {
      const expr = `FREQ=${freq};INTERVAL=${bad}`;
      expect(errorsOf(expr, { kind: 'rrule' })[0]).toMatchObject({
        kind: 'out_of_range',
        position: expr.indexOf('=', 5) + 1,
      });
    }
  });
  it.each(['seconds', 'minutes', 'hours', 'days', 'weeks', 'months', 'years'])('every N %s', (unit) => {
    expect(accepted(`every ${INT_MAX} ${unit}`, 'natural')).toBe(true);
    expect(accepted(`every 90 ${unit}`, 'natural')).toBe(true);
    for (const bad of [INT_MAX + 1, 0]) {
      expect(errorsOf(`every ${bad} ${unit}`, { kind: 'natural' })[0]).toMatchObject({
        kind: 'out_of_range',
        position: 6,
        suggestion: null,
      });
    }
  });
});

/**
 * Plain recurrence rules by the cron evaluator (recurrence/plain.ts, used by `ruleSchedule` for
 * natural-language and RRULE schedules) against the general RFC 5545 expansion (recurrence/expand.ts):
 * on random plain rules of every date-level frequency, references and `after` instants (many around
 * DST changes, some before the reference), in zones whose changes fall at 02:00, at midnight, by
 * 30 minutes or by 2 hours, both give the same fire times.
 */
import fc from 'fast-check';
import { Recurrence } from '../src/recurrence/expand';
import { plainRuleFields } from '../src/recurrence/plain';
import { emptyRule, type Freq, type Rule } from '../src/recurrence/rule';
import { ruleSchedule } from '../src/recurrence/schedule';
import { DST_ZONES, instantAroundDstChanges } from './dst-arbitraries';

const sortedSubset = (values: number[], min = 1): fc.Arbitrary<number[]> =>
  fc.subarray(values, { minLength: min }).map((v) => [...v].sort((a, b) => a - b));
const range = (lo: number, hi: number): number[] => Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);

/** Hours and minutes near DST changes (00-03) are over-represented. */
const hours = fc.oneof(sortedSubset([0, 1, 2, 3]), sortedSubset(range(0, 23)), fc.constant(range(0, 23)));
const minutes = fc.oneof(sortedSubset([0, 15, 30, 45]), sortedSubset(range(0, 59)), fc.constant<number[]>([0]));
const weekdays = fc.option(
  sortedSubset(range(0, 6)).map((days) => days.map((day) => ({ day, n: 0 }))),
  { nil: null },
);
const monthDays = fc.option(fc.oneof(sortedSubset([1, 15, 28, 29, 30, 31]), sortedSubset(range(1, 31))), { nil: null });
const months = fc.option(sortedSubset(range(1, 12)), { nil: null });

const plainRule: fc.Arbitrary<Rule> = fc
  .record({
    freq: fc.constantFrom<Freq>('DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'),
    byHour: hours,
    byMinute: minutes,
    byDay: weekdays,
    byMonthDay: monthDays,
    byMonth: months,
  })
  .map(({ freq, byHour, byMinute, byDay, byMonthDay, byMonth }) => {
    const r = emptyRule(freq);
    r.byHour = byHour;
    r.byMinute = byMinute;
    r.bySecond = [0];
    r.byMonth = byMonth;
    if (freq === 'WEEKLY') {
      r.byDay = byDay ?? [{ day: 2, n: 0 }];
    } else if (freq === 'MONTHLY' || freq === 'YEARLY') {
      r.byDay = byDay;
      r.byMonthDay = byDay === null && byMonthDay === null ? [13] : byMonthDay;
    } else {
      r.byDay = byDay;
      r.byMonthDay = byMonthDay;
    }
    return r;
  });

const instant = instantAroundDstChanges();

/** The cron evaluator's schedule of a plain rule and the RFC 5545 expansion of it, anchored at `reference`. */
function bothEvaluators(rule: Rule, timezone: string, reference: Date) {
  const fast = ruleSchedule({
    kind: 'natural',
    rule,
    canonical: '',
    description: '',
    timezone,
    oneOff: false,
    referenceFree: true,
    reference,
  });
  const general = new Recurrence(rule, { zone: timezone, anchor: reference, reference, anchorExclusive: true });
  return { fast, general };
}

describe('natural / rrule: plain rules by the cron evaluator equal the RFC 5545 expansion', () => {
  it('should give the same fire times for every plain rule, zone, reference and instant', () => {
    fc.assert(
      fc.property(
        plainRule,
        fc.constantFrom(...DST_ZONES),
        instant,
        fc.integer({ min: -40 * 86_400_000, max: 40 * 86_400_000 }),
        (rule, timezone, referenceMs, afterDelta) => {
          expect(plainRuleFields(rule)).not.toBeNull();
          const reference = new Date(referenceMs);
          const { fast, general } = bothEvaluators(rule, timezone, reference);
          // `after` before the reference too: the anchor is not an occurrence, nothing before it is
          const after = new Date(referenceMs + afterDelta);
          const expected = general.next(after, 12).map((d) => d.toISOString());
          expect(fast.next(after, 12).map((d) => d.toISOString())).toEqual(expected);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('should yield nothing before the anchor at a DST fall-back (Antarctica/Troll, property seed 245758524)', () => {
    // FREQ=DAILY;BYDAY=SU;BYHOUR=2,22;BYMINUTE=55, anchored at 2025-10-26T01:00Z: Troll falls back
    // from 03:00 (+02) to 01:00 (+00) then, and the repeated wall time 02:55 first comes at 00:55Z,
    // before the anchor (commit 432b8d9): it is no occurrence, by either evaluator.
    const rule: Rule = {
      ...emptyRule('DAILY'),
      byDay: [{ day: 6, n: 0 }],
      byHour: [2, 22],
      byMinute: [55],
      bySecond: [0],
    };
    const timezone = 'Antarctica/Troll';
    const reference = new Date(1761440400000);
    const after = new Date(reference.getTime() - 300_001);
    const { fast, general } = bothEvaluators(rule, timezone, reference);
    const expected = general.next(after, 4).map((d) => d.toISOString());
    for (const at of expected) {
      expect(Date.parse(at)).toBeGreaterThanOrEqual(reference.getTime());
    }
    // The first is that Sunday's 22:55 (+00): the repeated 02:55 is not one.
    expect(expected[0]).toBe('2025-10-26T22:55:00.000Z');
    expect(fast.next(after, 4).map((d) => d.toISOString())).toEqual(expected);
  });

  it('should fire a gap wall time shifted past an anchor inside the spring-forward change (Australia/Lord_Howe, property seed 646393198)', () => {
    // FREQ=DAILY;BYHOUR=0..23;BYMINUTE=26,59 anchored at 2044-10-01T15:30Z, the instant Lord Howe
    // moves from 02:00 (+10:30) to 02:30 (+11): wall 02:26 does not exist that day and shifts
    // forward by the gap to 15:56Z, after the anchor, so it is an occurrence by both evaluators.
    const rule: Rule = {
      ...emptyRule('DAILY'),
      byHour: range(0, 23),
      byMinute: [26, 59],
      bySecond: [0],
    };
    const reference = new Date(2358948600000);
    const { fast, general } = bothEvaluators(rule, 'Australia/Lord_Howe', reference);
    const expected = general.next(reference, 3).map((d) => d.toISOString());
    expect(expected).toEqual(['2044-10-01T15:56:00.000Z', '2044-10-01T15:59:00.000Z', '2044-10-01T16:26:00.000Z']);
    expect(fast.next(reference, 3).map((d) => d.toISOString())).toEqual(expected);
  });

  it('should leave rules that are not plain to the RFC 5545 expansion', () => {
    const base = (): Rule => ({ ...emptyRule('DAILY'), byHour: [9], byMinute: [0], bySecond: [0] });
    expect(plainRuleFields(base())).not.toBeNull();
    const notPlain: Array<Partial<Rule>> = [
      { interval: 2 },
      { count: 3 },
      { until: { instant: 0 } },
      { dtstart: { floating: 0 } },
      { bySetPos: [1] },
      { byWeekNo: [1] },
      { byYearDay: [1] },
      { byHour: null },
      { byMinute: null },
      { bySecond: [30] },
      { bySecond: [0, 30] },
      { byDay: [{ day: 0, n: 1 }] },
      { byMonthDay: [-1] },
      { freq: 'HOURLY' },
      { freq: 'WEEKLY' }, // the weekday would come from the anchor
      { freq: 'MONTHLY' }, // the month day would come from the anchor
      { freq: 'YEARLY', byMonth: [3] },
    ];
    for (const change of notPlain) {
      expect(plainRuleFields({ ...base(), ...change })).toBeNull();
    }
  });
});

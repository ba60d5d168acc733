/**
 * `formatRule` (the canonical RRULE text of natural-language and RRULE schedules) against its
 * definition written plainly: parts in the fixed order, `INTERVAL` only when > 1, `WKST` only
 * when not Monday, lists positive ascending then negative ascending, weekdays by day then ordinal.
 */
import fc from 'fast-check';
import { formatRule, formatTimePoint, FREQS, WEEKDAY_CODES, type Rule } from '../src/recurrence/rule';

function plainFormat(r: Rule): string {
  const parts = [`FREQ=${r.freq}`];
  if (r.interval !== 1) {
    parts.push(`INTERVAL=${r.interval}`);
  }
  const list = (name: string, v: number[] | null): void => {
    if (v && v.length) {
      const pos = v.filter((x) => x >= 0).sort((a, b) => a - b);
      const neg = v.filter((x) => x < 0).sort((a, b) => a - b);
      parts.push(`${name}=${[...pos, ...neg].join(',')}`);
    }
  };
  list('BYMONTH', r.byMonth);
  list('BYWEEKNO', r.byWeekNo);
  list('BYYEARDAY', r.byYearDay);
  list('BYMONTHDAY', r.byMonthDay);
  if (r.byDay && r.byDay.length) {
    const days = [...r.byDay].sort((a, b) => a.day - b.day || a.n - b.n);
    parts.push(`BYDAY=${days.map((w) => (w.n === 0 ? '' : String(w.n)) + WEEKDAY_CODES[w.day]).join(',')}`);
  }
  list('BYHOUR', r.byHour);
  list('BYMINUTE', r.byMinute);
  list('BYSECOND', r.bySecond);
  list('BYSETPOS', r.bySetPos);
  if (r.wkst !== 0) {
    parts.push(`WKST=${WEEKDAY_CODES[r.wkst]}`);
  }
  if (r.count !== null) {
    parts.push(`COUNT=${r.count}`);
  }
  if (r.until) {
    parts.push(`UNTIL=${formatTimePoint(r.until)}`);
  }
  if (r.dtstart) {
    parts.push(`DTSTART=${formatTimePoint(r.dtstart)}`);
  }
  return parts.join(';');
}

const list = (lo: number, hi: number) =>
  fc.option(fc.array(fc.integer({ min: lo, max: hi }), { maxLength: 5 }), { nil: null });
const point = fc.option(
  fc.oneof(
    fc.integer({ min: 0, max: 4e12 }).map((floating) => ({ floating })),
    fc.integer({ min: 0, max: 4e12 }).map((instant) => ({ instant })),
  ),
  { nil: null },
);

describe('formatRule', () => {
  it('should write every rule as its plainly written definition does', () => {
    fc.assert(
      fc.property(
        fc.record({
          freq: fc.constantFrom(...FREQS),
          interval: fc.integer({ min: 1, max: 5 }),
          byMonth: list(1, 12),
          byWeekNo: list(-53, 53),
          byYearDay: list(-366, 366),
          byMonthDay: list(-31, 31),
          byDay: fc.option(
            fc.array(fc.record({ day: fc.integer({ min: 0, max: 6 }), n: fc.integer({ min: -5, max: 5 }) }), {
              maxLength: 4,
            }),
            { nil: null },
          ),
          byHour: list(0, 23),
          byMinute: list(0, 59),
          bySecond: list(0, 59),
          bySetPos: list(-3, 3),
          wkst: fc.integer({ min: 0, max: 6 }),
          count: fc.option(fc.integer({ min: 1, max: 100 }), { nil: null }),
          until: point,
          dtstart: point,
        }),
        (rule) => {
          expect(formatRule(rule)).toBe(plainFormat(rule));
        },
      ),
      { numRuns: 5000 },
    );
  });
});

/**
 * The field-based minimum-gap bound (min-gap.ts) must never exceed a real gap between successive
 * fire times, including across DST changes, or validation would accept what sampling rejects.
 */
import fc from 'fast-check';
import { compileSchedule, UNLIMITED_BUDGET, validateSchedule } from '@svc/schedule';
import { cyclicMinDistance, fieldGapLowerBound } from '../src/min-gap';

const ZONES = [
  'UTC',
  'Europe/Berlin',
  'America/New_York',
  'Australia/Sydney',
  'Pacific/Chatham',
  'Australia/Lord_Howe', // 30-minute DST
  'Asia/Kolkata',
];
/** DST changes of 2026-2027 in the zones above (UTC dates), and a quiet date. */
const ANCHORS = [
  '2026-03-08T07:00:00Z',
  '2026-03-29T01:00:00Z',
  '2026-04-05T02:00:00Z',
  '2026-09-27T02:00:00Z',
  '2026-10-04T02:00:00Z',
  '2026-10-25T01:00:00Z',
  '2026-11-01T06:00:00Z',
  '2026-06-15T12:00:00Z',
].map((s) => Date.parse(s));

const timeField = (max: number): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constant('*'),
    fc.integer({ min: 0, max }).map(String),
    fc.integer({ min: 1, max: Math.min(30, max) }).map((k) => `*/${k}`),
    fc.uniqueArray(fc.integer({ min: 0, max }), { minLength: 2, maxLength: 4 }).map((a) => a.join(',')),
    fc
      .tuple(fc.integer({ min: 0, max }), fc.integer({ min: 0, max }))
      .map(([a, b]) => `${Math.min(a, b)}-${Math.max(a, b)}`),
  );

const cron = fc
  .tuple(timeField(59), timeField(23), fc.constantFrom('* * *', '* * 1-5', '1,15 * *', '* 3,10 0'))
  .map(([m, h, rest]) => `${m} ${h} ${rest}`);
const natural = fc.constantFrom(
  'every day at 8am and 8pm',
  'every 15 minutes between 9am and 5pm on weekdays',
  'every 20 minutes between 1am and 4am',
  'every day at 2:30',
  'every weekday at 9am',
  'every monday and thursday at 17:00',
  'every month on the 1st and 15th at 00:00',
  'every 2 weeks on friday at 18:00',
);
const rrule = fc.constantFrom(
  'FREQ=DAILY;BYHOUR=1,2,3;BYMINUTE=0,45;BYSECOND=0',
  'FREQ=WEEKLY;BYDAY=SU;BYHOUR=2;BYMINUTE=0,10,20,30,40,50;BYSECOND=0',
);
const quartz = fc
  .tuple(timeField(59), timeField(59), timeField(23), fc.constantFrom('? * *', '? * MON-FRI', 'L * ?', '15W * ?'))
  // decisions.md rejects W with several hours
  .filter(([, , h, rest]) => !rest.includes('W') || /^\d+$/.test(h))
  .map(([s, m, h, rest]) => `${s} ${m} ${h} ${rest}`);

describe('field-based minimum-gap bound', () => {
  it('should never exceed a gap between successive fire times, across DST changes', () => {
    fc.assert(
      fc.property(
        fc.oneof(cron, quartz, natural, rrule),
        fc.constantFrom(...ZONES),
        fc.constantFrom(...ANCHORS),
        fc.integer({ min: 0, max: 2 * 86_400_000 }),
        (expr, timezone, anchor, before) => {
          const reference = new Date(anchor - before);
          const compiled = compileSchedule({ expr, timezone, reference });
          expect(compiled.ok).toBe(true);
          if (!compiled.ok) {
            return;
          }
          const bound = compiled.schedule.minGapLowerBoundMs ?? 0;
          const fires = compiled.schedule.next(reference, 300, UNLIMITED_BUDGET).map((d) => d.getTime());
          for (let i = 1; i < fires.length; i++) {
            expect(fires[i] - fires[i - 1]).toBeGreaterThanOrEqual(bound);
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('should leave validation results unchanged (it only skips samples that cannot fail)', () => {
    const reference = new Date('2026-03-28T12:00:00Z');
    for (const [expr, minIntervalMs] of [
      ['0 9 * * 1-5', 3_600_000],
      ['*/5 * * * *', 60_000],
      ['0 */2 * * *', 3 * 3_600_000],
      ['0 0 9,21 ? * *', 12 * 3_600_000],
    ] as const) {
      for (const timezone of ['UTC', 'Europe/Berlin']) {
        const r = validateSchedule({ expr, timezone, reference }, { minIntervalMs });
        const sampled = compileSchedule({ expr, timezone, reference });
        const fires = sampled.ok ? sampled.schedule.next(reference, 101).map((d) => d.getTime()) : [];
        const shortest = Math.min(...fires.slice(1).map((t, i) => t - fires[i]));
        expect(r.valid).toBe(shortest >= minIntervalMs);
      }
    }
  });

  it.each([
    [[0, 30], 60, 30],
    [[5, 55], 60, 10],
    [[7], 60, 60],
    [[0, 15, 30, 45, 99], 60, 15], // Quartz's `*` marker (99) is ignored
    [[9, 17], 24, 8],
    [[], 24, 24],
  ])('cyclicMinDistance(%j, %d) = %d', (values, size, expected) => {
    expect(cyclicMinDistance(values, size)).toBe(expected);
  });

  it('should equal the smallest distance between sorted distinct values, wrapping around, for any set', () => {
    const reference = (values: number[], size: number): number => {
      const v = [...new Set(values.filter((x) => x >= 0 && x < size))].sort((a, b) => a - b);
      if (v.length < 2) {
        return size;
      }
      return Math.min(size - v[v.length - 1] + v[0], ...v.slice(1).map((x, i) => x - v[i]));
    };
    fc.assert(
      fc.property(
        fc.constantFrom(24, 60),
        fc.array(fc.integer({ min: -2, max: 99 }), { maxLength: 70 }),
        (size, values) => {
          expect(cyclicMinDistance(values, size)).toBe(reference(values, size));
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('should bound by the finest field with two or more values, less 3 h outside UTC', () => {
    expect(fieldGapLowerBound([0], [0], [9], true)).toBe(86_400_000);
    expect(fieldGapLowerBound([0], [0], [9], false)).toBe(86_400_000 - 3 * 3_600_000);
    expect(fieldGapLowerBound([0], [0, 30], [9], true)).toBe(30 * 60_000);
    expect(fieldGapLowerBound([0, 30], [0], [9], true)).toBe(30_000);
    expect(fieldGapLowerBound([0], [0], [9, 21], false)).toBe(9 * 3_600_000);
    expect(fieldGapLowerBound([0], [0, 30], [9], false)).toBe(0);
  });
});

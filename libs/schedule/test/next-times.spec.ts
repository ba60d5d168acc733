/**
 * `CompiledSchedule.nextTimes` (epoch milliseconds, what previews and validation read) gives the
 * same fire times as `next` (Dates) for every kind, with and without bounds and counts.
 */
import fc from 'fast-check';
import { compileSchedule, UNLIMITED_BUDGET, type ScheduleInput } from '@svc/schedule';

const EXPRESSIONS = [
  '0 9 * * 1-5',
  '*/7 2 * 3,10 0',
  '@monthly',
  '0 30 2 ? * SUN',
  '15 */5 1-3 * * ?',
  '0 0 12 L * ?',
  '0 0 9 ? * 6#2 2027-2030',
  'every weekday at 9am',
  'every 15 minutes between 9am and 5pm on weekdays',
  'every 2 weeks on monday at 02:30',
  'the last weekday of every month at 18:00',
  'FREQ=DAILY;BYHOUR=2;BYMINUTE=30',
  'RRULE:FREQ=MONTHLY;BYDAY=-1FR;BYHOUR=9;BYMINUTE=0;BYSECOND=0',
];

describe('compiled schedules: nextTimes equals next', () => {
  it('should give the same instants as next for every kind, zone, bound and count', () => {
    let compiled = 0;
    fc.assert(
      fc.property(
        fc.constantFrom(...EXPRESSIONS),
        fc.constantFrom('UTC', 'Europe/Berlin', 'America/Santiago', 'Australia/Lord_Howe'),
        fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2035, 0, 1) }),
        fc.integer({ min: -90 * 86_400_000, max: 90 * 86_400_000 }),
        fc.record({
          startsIn: fc.option(fc.integer({ min: -30, max: 60 }), { nil: null }),
          endsIn: fc.option(fc.integer({ min: 1, max: 400 }), { nil: null }),
          count: fc.option(fc.integer({ min: 1, max: 20 }), { nil: null }),
        }),
        fc.integer({ min: 0, max: 25 }),
        (expr, timezone, referenceMs, afterDelta, bounds, n) => {
          const day = 86_400_000;
          const input: ScheduleInput = {
            expr,
            timezone,
            reference: new Date(referenceMs),
            startsAt: bounds.startsIn === null ? undefined : new Date(referenceMs + bounds.startsIn * day),
            endsAt: bounds.endsIn === null ? undefined : new Date(referenceMs + bounds.endsIn * day),
            count: bounds.count ?? undefined,
          };
          const r = compileSchedule(input);
          if (!r.ok) {
            return; // e.g. endsAt before startsAt
          }
          compiled++;
          const after = referenceMs + afterDelta;
          const dates = r.schedule.next(new Date(after), n, UNLIMITED_BUDGET).map((d) => d.getTime());
          expect(r.schedule.nextTimes?.(after, n, UNLIMITED_BUDGET)).toEqual(dates);
        },
      ),
      { numRuns: 1500 },
    );
    expect(compiled).toBeGreaterThan(1000); // bounds rarely contradict each other
  });
});

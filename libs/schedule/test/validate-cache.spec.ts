/**
 * `ScheduleValidationCache` must answer exactly as `validateSchedule` would for the same input,
 * whatever order references arrive in; only reference-free schedules may be kept.
 */
import fc from 'fast-check';
import { compileSchedule, ScheduleValidationCache, validateSchedule, type ScheduleInput } from '@svc/schedule';
import { CacheKey } from '../src/validate-cache';

const MIN_INTERVAL_MS = 60_000;
const T0 = Date.UTC(2026, 10, 22, 2, 0, 0);

/** What a caller can observe of a validation (the compiled schedule compared by its output). */
function observable(input: ScheduleInput, cached: boolean, cache: ScheduleValidationCache) {
  const opts = { minIntervalMs: MIN_INTERVAL_MS, sampleCount: 12 };
  const r = cached ? cache.validate(input, opts) : validateSchedule(input, opts);
  return {
    valid: r.valid,
    kindDetected: r.kindDetected,
    canonical: r.canonical,
    description: r.description,
    errors: r.errors,
    sample: r.sample,
    next: r.schedule?.next(input.reference, 5).map((d) => d.toISOString()),
  };
}

const EXPRESSIONS: Array<[string, string]> = [
  ['0 9 * * 1-5', 'Europe/Berlin'],
  ['*/5 * * * *', 'America/New_York'],
  ['30 2 * * *', 'Europe/Berlin'], // in the spring-forward gap once a year
  ['0 0 29 2 *', 'UTC'],
  ['0 0 9 ? * MON-FRI', 'Europe/Berlin'],
  ['0 30 1 ? * SUN', 'America/New_York'],
  ['0 0 12 L * ?', 'Australia/Sydney'],
  ['0 0 0 1 1 ? 2027', 'UTC'], // fires once, then never again
  ['0 0 0 30 2 ?', 'UTC'], // never fires
  ['every weekday at 9am', 'Europe/Berlin'],
  ['every monday and thursday at 17:00', 'Pacific/Chatham'],
  ['every 5 minutes', 'UTC'], // phased from the reference: never kept
  ['every 2 weeks on friday at 18:00', 'Europe/London'],
  ['every day at 8am and 8:30pm', 'Asia/Kolkata'],
  ['every month on the 15th and last day at noon', 'America/New_York'],
  ['tomorrow at 9am', 'Europe/Berlin'],
  ['every day at 9am starting tomorrow', 'UTC'],
  ['every day at 9am until 2026-12-24', 'UTC'],
  ['FREQ=DAILY;BYHOUR=9;BYMINUTE=0;BYSECOND=0', 'Europe/Berlin'],
  ['FREQ=WEEKLY;BYDAY=MO;BYHOUR=6;BYMINUTE=0;BYSECOND=0;COUNT=3', 'UTC'], // COUNT from the reference
  ['DTSTART:20261201T090000Z\nRRULE:FREQ=DAILY;COUNT=5', 'UTC'],
  ['* * * * * ?', 'UTC'], // below the minimum interval
  ['every 61 minutes', 'UTC'], // a compile error
];

describe('ScheduleValidationCache', () => {
  it('should answer exactly as validateSchedule for any order of references', () => {
    const step = fc.oneof(
      fc.integer({ min: 0, max: 90_000 }), // within a minute or so
      fc.integer({ min: -120_000, max: 3 * 86_400_000 }), // back a little, or days ahead
      fc.integer({ min: -2 * 86_400_000, max: 0 }), // back before the window (a preview's explicit `after`)
      fc.integer({ min: 300 * 86_400_000, max: 400 * 86_400_000 }), // a year ahead: a new year for Quartz
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: EXPRESSIONS.length - 1 }), step), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 2, max: 6 }),
        (calls, maxEntries) => {
          const cache = new ScheduleValidationCache(maxEntries);
          let t = T0;
          for (const [i, delta] of calls) {
            t += delta;
            const [expr, timezone] = EXPRESSIONS[i];
            const input: ScheduleInput = { expr, timezone, kind: 'auto', reference: new Date(t) };
            expect(observable(input, true, cache)).toEqual(observable(input, false, cache));
            expect(cache.size).toBeLessThanOrEqual(maxEntries);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  const every5MinutesBerlin = (t: number): ScheduleInput => ({
    expr: '*/5 * * * *',
    timezone: 'Europe/Berlin',
    reference: new Date(t),
  });

  it('should keep a window across many references (a hot expression) and stay exact', () => {
    const cache = new ScheduleValidationCache();
    for (let t = T0; t < T0 + 2 * 86_400_000; t += 37_000) {
      expect(observable(every5MinutesBerlin(t), true, cache)).toEqual(observable(every5MinutesBerlin(t), false, cache));
    }
    expect(cache.size).toBe(1);
  });

  it('should keep an input from its second sighting on', () => {
    const cache = new ScheduleValidationCache();
    const input: ScheduleInput = { expr: '0 9 * * 1-5', timezone: 'Europe/Berlin', reference: new Date(T0) };
    cache.validate(input, { minIntervalMs: MIN_INTERVAL_MS });
    expect(cache.size).toBe(0);
    cache.validate({ ...input, reference: new Date(T0 + 1000) }, { minIntervalMs: MIN_INTERVAL_MS });
    expect(cache.size).toBe(1);
  });

  it('should not answer from a window for an earlier reference', () => {
    const cache = new ScheduleValidationCache();
    const validate = (t: number) => cache.validate(every5MinutesBerlin(t), { minIntervalMs: MIN_INTERVAL_MS });
    validate(T0);
    validate(T0); // kept from here on
    expect(cache.size).toBe(1);
    validate(T0 + 86_400_000); // past the window: it restarts a day later
    const earlier = validate(T0 + 7_200_000);
    expect(earlier.sample?.slice(0, 2)).toEqual([T0 + 7_500_000, T0 + 7_800_000]);
    expect(cache.size).toBe(1);
  });

  it.each([
    ['0 9 * * 1-5', true],
    ['0 0 9 ? * MON-FRI', true],
    ['every weekday at 9am', true],
    ['every day at 8am and 8pm', true],
    ['every month on the 1st at 00:00', true],
    ['every year on march 15 at noon', true],
    ['every day at 9am starting 2026-12-04', true],
    ['FREQ=DAILY;BYHOUR=9;BYMINUTE=0;BYSECOND=0', true],
    ['DTSTART:20261201T090000Z\nRRULE:FREQ=DAILY;COUNT=5', true],
    ['every 5 minutes', false],
    ['hourly', false],
    ['every 3 days', false],
    ['every 2 weeks on friday at 18:00', false],
    ['in 20 minutes', false],
    ['tomorrow at 9am', false],
    ['every day at 9am starting tomorrow', false],
    ['FREQ=DAILY', false],
    ['FREQ=WEEKLY;BYDAY=MO;BYHOUR=6;BYMINUTE=0;BYSECOND=0;COUNT=3', false],
  ])('should mark %j reference-free: %s', (expr, free) => {
    const compiled = compileSchedule({ expr, timezone: 'Europe/Berlin', reference: new Date(T0) });
    expect(compiled.ok && compiled.schedule.referenceFree).toBe(free);
  });

  it('should not treat a count without a start as reference-free', () => {
    const compiled = compileSchedule({ expr: '0 9 * * *', count: 3, reference: new Date(T0) });
    expect(compiled.ok && compiled.schedule.referenceFree).toBe(false);
    const started = compileSchedule({
      expr: '0 9 * * *',
      count: 3,
      startsAt: new Date(T0),
      reference: new Date(T0),
    });
    expect(started.ok && started.schedule.referenceFree).toBe(true);
  });
});

describe('ScheduleValidationCache: inputs whose keys share a hash', () => {
  it('should keep answering each input as validateSchedule does', () => {
    // two distinct expressions with the same 30-bit key hash, found by search
    const seen = new Map<number, string>();
    let pair: [string, string] | null = null;
    for (let i = 0; pair === null && i < 2_000_000; i++) {
      const expr = `${i % 60} ${Math.floor(i / 60) % 24} ${1 + (Math.floor(i / 1440) % 28)} * ${Math.floor(i / 40320) % 7}`;
      const hash = new CacheKey({ expr, timezone: 'UTC', reference: new Date(T0) }).hash;
      const other = seen.get(hash);
      if (other !== undefined && other !== expr) {
        pair = [other, expr];
      }
      seen.set(hash, expr);
    }
    expect(pair).not.toBeNull();
    const cache = new ScheduleValidationCache();
    for (let round = 0; round < 3; round++) {
      for (const expr of pair as [string, string]) {
        const input: ScheduleInput = { expr, timezone: 'UTC', reference: new Date(T0 + round * 3_600_000) };
        expect(observable(input, true, cache)).toEqual(observable(input, false, cache));
      }
    }
  });
});

/**
 * validateSchedule: never fires, horizon, minimum gap, budget (issue #3).
 */
import { compileSchedule, createBudget, validateSchedule } from '@svc/schedule';
import { REF } from './helpers';

describe('validate: never fires', () => {
  it.each([
    ['0 0 0 30 2 ?', 'quartz'],
    ['0 0 30 2 *', 'cron'],
    ['0 0 0 31 4 ?', 'quartz'],
    ['0 0 0 1 1 ? 2020', 'quartz'],
  ])('%s never fires', (expr) => {
    const v = validateSchedule({ expr, reference: REF });
    expect(v.valid).toBe(false);
    expect(v.errors[0].kind).toBe('never_fires');
    expect(v.canonical).toBeUndefined();
  });
  it('fires only beyond the 10-year horizon is an error (RRULE, natural)', () => {
    const v = validateSchedule({ expr: 'DTSTART:20400101T000000Z\nRRULE:FREQ=DAILY', reference: REF });
    expect(v.errors[0]).toMatchObject({ kind: 'never_fires' });
    expect(v.errors[0].message).toMatch(/2040-01-01/);
  });
  it('Quartz has no horizon but its own year limit (reference year + 100), as Quartz', () => {
    expect(validateSchedule({ expr: '0 0 0 1 1 ? 2040', reference: REF }, { sampleCount: 1 }).sample).toEqual([
      Date.UTC(2040, 0, 1),
    ]);
    // the fifth Monday of February: only when 29 February is a Monday (2044, 2072, 2112)
    expect(validateSchedule({ expr: '0 0 0 ? 2 MON#5', reference: REF }, { sampleCount: 3 }).sample).toEqual([
      Date.UTC(2044, 1, 29),
      Date.UTC(2072, 1, 29),
      Date.UTC(2112, 1, 29),
    ]);
    expect(validateSchedule({ expr: '0 0 0 1 1 ? 2126', reference: REF }).valid).toBe(true);
    expect(validateSchedule({ expr: '0 0 0 1 1 ? 2127', reference: REF }).errors[0].kind).toBe('never_fires');
    // an explicit horizon still applies
    expect(validateSchedule({ expr: '0 0 0 1 1 ? 2040', reference: REF }, { horizon: 365 * 86_400_000 }).valid).toBe(
      false,
    );
  });
  it('29 February is fine (fires within the horizon)', () => {
    expect(validateSchedule({ expr: '0 0 0 29 2 ?', reference: REF }).valid).toBe(true);
  });
  it('endsAt before the first fire time means never fires', () => {
    const v = validateSchedule({ expr: '0 0 12 1 1 ?', reference: REF, endsAt: new Date('2026-01-01T06:00:00Z') });
    expect(v.errors[0].kind).toBe('never_fires');
  });
});

describe('validate: minimum gap', () => {
  it('every 10 seconds is below a 1-minute limit', () => {
    const v = validateSchedule({ expr: '*/10 * * * * ?', reference: REF }, { minIntervalMs: 60_000 });
    expect(v.valid).toBe(false);
    expect(v.errors[0]).toMatchObject({ kind: 'min_interval' });
    expect(v.errors[0].message).toMatch(/10s apart/);
  });
  it('a schedule whose short gap appears later within 100 samples is caught', () => {
    // 00:00 and 00:01 each day: the second gap is 1 minute
    const v = validateSchedule({ expr: '0 0,1 0 * * ?', reference: REF }, { minIntervalMs: 5 * 60_000 });
    expect(v.errors[0].kind).toBe('min_interval');
  });
  it('every 5 minutes passes a 1-minute limit and returns canonical/description', () => {
    const v = validateSchedule({ expr: '*/5 * * * *', reference: REF }, { minIntervalMs: 60_000 });
    expect(v).toMatchObject({
      valid: true,
      kindDetected: 'cron',
      canonical: '*/5 * * * *',
      description: 'Every 5 minutes (UTC)',
      errors: [],
    });
  });
  it('skips sampling when the time fields prove every gap long enough, and still samples sampleCount', () => {
    const input = { expr: '0 9 * * 1-5', timezone: 'Europe/Berlin', reference: REF };
    const skipped = validateSchedule(input, { minIntervalMs: 60_000 });
    expect(skipped.valid).toBe(true);
    expect(skipped.sample).toHaveLength(1); // no 101-point sample needed: a day less 3 h >= 1 minute
    const previewed = validateSchedule(input, { minIntervalMs: 60_000, sampleCount: 10 });
    const expected = compileSchedule(input);
    expect(previewed.sample).toEqual(expected.ok ? expected.schedule.next(REF, 10).map((d) => d.getTime()) : null);
  });
  it('one-off schedules have no minimum-gap error (count = 1)', () => {
    const v = validateSchedule({ expr: '* * * * * ?', reference: REF, count: 1 }, { minIntervalMs: 3_600_000 });
    expect(v.valid).toBe(true);
  });
});

describe('validate: budget', () => {
  it('a pathological input returns the budget error quickly instead of hanging', () => {
    // a fake clock that advances 1 ms per reading (sampled every 64 checks): the 100 ms budget runs
    // out after ~6400 loop iterations
    let t = 0;
    const now = (): number => t++;
    const started = Date.now();
    // every second, counted from 1970: finding the first occurrence after REF means walking ~1.8e9 of them
    const v = validateSchedule(
      { expr: '* * * * * ?', reference: REF, startsAt: new Date(0), count: 2_000_000_000 },
      { now, budgetMs: 100 },
    );
    expect(Date.now() - started).toBeLessThan(1000);
    expect(v.valid).toBe(false);
    expect(v.errors[0]).toMatchObject({ kind: 'budget_exceeded', message: 'schedule computation budget exceeded' });
  });
  it('compile under an exhausted budget returns the structured error', () => {
    let t = 0;
    const r = compileSchedule(
      { expr: '0 0 12 * * ?', reference: REF },
      { budget: createBudget(0, () => (t += 10), 1) },
    );
    // compile itself does little work; next() with the same budget throws the typed error
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(() =>
        r.schedule.next(
          REF,
          100,
          createBudget(0, () => (t += 10), 1),
        ),
      ).toThrow('schedule computation budget exceeded');
    }
  });
  it('with a real clock, the default 100 ms budget bounds a huge request', () => {
    const started = performance.now();
    const r = compileSchedule({ expr: '* * * * * ?', reference: REF }, { now: () => performance.now() });
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(() => r.schedule.next(REF, 10_000_000)).toThrow('schedule computation budget exceeded');
    }
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('validate: bounds apply to every kind', () => {
  it('startsAt, endsAt and count bound quartz and cron', () => {
    for (const expr of ['0 0 * * * ?', '0 * * * *']) {
      const r = compileSchedule({
        expr,
        reference: REF,
        startsAt: new Date('2026-01-02T00:00:00Z'),
        endsAt: new Date('2026-01-02T03:00:00Z'),
      });
      expect(r.ok).toBe(true);
      if (!r.ok) {
        continue;
      }
      expect(r.schedule.next(REF, 10).map((d) => d.toISOString())).toEqual([
        '2026-01-02T00:00:00.000Z',
        '2026-01-02T01:00:00.000Z',
        '2026-01-02T02:00:00.000Z',
        '2026-01-02T03:00:00.000Z',
      ]);
      const c = compileSchedule({ expr, reference: REF, count: 3 });
      if (!c.ok) {
        throw new Error('compile');
      }
      expect(c.schedule.next(REF, 10)).toHaveLength(3);
      // continuing after the second occurrence yields only the third
      const all = c.schedule.next(REF, 10);
      expect(c.schedule.next(all[1], 10)).toEqual([all[2]]);
    }
  });
});

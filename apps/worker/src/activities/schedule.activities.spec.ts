import { planOccurrences } from './schedule.activities';

const schedule = (expr: string, extra: Partial<{ count: number; endsAt: string }> = {}) => ({
  expr,
  kind: 'auto',
  timezone: 'UTC',
  startsAt: null,
  endsAt: extra.endsAt ?? null,
  count: extra.count ?? null,
  anchor: '2026-01-01T00:00:00.000Z',
});

/** A plan with a 1-minute misfire threshold and the workflow's catch-up cap unless overridden. */
const planFor = (input: {
  schedule: ReturnType<typeof schedule>;
  after: string;
  now: string;
  misfireThresholdMs?: number;
}) => planOccurrences({ misfireThresholdMs: 60_000, maxCatchUp: 100, ...input });

describe('planOccurrences', () => {
  it('should report nothing due and the next occurrence when on schedule', () => {
    const plan = planFor({
      schedule: schedule('0 */5 * * * ?'),
      after: '2026-01-01T10:00:00.000Z',
      now: '2026-01-01T10:02:00.000Z',
    });
    expect(plan).toMatchObject({
      onTime: [],
      missed: [],
      missedTotal: 0,
      next: '2026-01-01T10:05:00.000Z',
      ended: false,
    });
    expect(plan.scannedUntil).toBe('2026-01-01T10:00:00.000Z');
  });

  it('should split due occurrences at the misfire threshold', () => {
    const plan = planFor({
      schedule: schedule('0 * * * * ?'),
      after: '2026-01-01T10:00:00.000Z',
      now: '2026-01-01T10:05:30.000Z',
      misfireThresholdMs: 120_000,
    });
    expect(plan.missed).toEqual(['2026-01-01T10:01:00.000Z', '2026-01-01T10:02:00.000Z', '2026-01-01T10:03:00.000Z']);
    expect(plan.onTime).toEqual(['2026-01-01T10:04:00.000Z', '2026-01-01T10:05:00.000Z']);
    expect(plan.next).toBe('2026-01-01T10:06:00.000Z');
    expect(plan.scannedUntil).toBe('2026-01-01T10:05:00.000Z');
  });

  it('should keep only the latest missed occurrences beyond the catch-up cap and count the rest', () => {
    const plan = planFor({
      schedule: schedule('* * * * * ?'),
      after: '2026-01-01T00:00:00.000Z',
      now: '2026-01-01T01:00:00.000Z',
    });
    expect(plan.missedTotal).toBe(3540);
    expect(plan.missed).toHaveLength(100);
    expect(plan.missed[99]).toBe('2026-01-01T00:59:00.000Z');
    expect(plan.onTime).toHaveLength(60);
  });

  it('should say the series ended when the schedule has no further occurrence', () => {
    const plan = planFor({
      schedule: schedule('0 0 12 * * ?', { count: 2 }),
      after: '2026-01-02T12:00:00.000Z',
      now: '2026-01-05T00:00:00.000Z',
    });
    expect(plan).toMatchObject({ onTime: [], missed: [], next: null, ended: true });
  });

  it('should report a schedule that no longer compiles instead of throwing', () => {
    const plan = planFor({
      schedule: schedule('every blursday'),
      after: '2026-01-01T00:00:00.000Z',
      now: '2026-01-01T00:00:00.000Z',
    });
    expect(plan.error).toBeTruthy();
    expect(plan.next).toBeNull();
  });
});

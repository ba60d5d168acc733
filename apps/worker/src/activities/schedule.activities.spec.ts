import type { AppConfig } from '@svc/common';
import { prepareLeadMs } from '@svc/orchestration';
import type { OccurrenceBurstsRepository } from '@svc/persistence';
import { createScheduleActivities, planOccurrences } from './schedule.activities';

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

describe('the plan activity with prepared bursts (issue 25)', () => {
  const config = {
    scheduler: { prepare_ahead_ms: 1_000, prepare_rate: 25, max_prepare_ahead_ms: 60_000 },
  } as AppConfig;
  const prepare = { jobId: 'job_A', registered: null, overlapPolicy: 'allow' as const, timeoutMs: 30_000 };
  const input = (now: string) => ({
    schedule: schedule('0 * * * * ?'),
    after: '2026-01-01T10:00:00.000Z',
    now,
    misfireThresholdMs: 60_000,
    maxCatchUp: 100,
    prepare,
    gate: { workspaceId: 'ws_A', month: '2026-01' },
  });
  const gate = { suspended: false, blockingQuota: null };

  function activities(counts: { next: number; previous: number } | Error) {
    const calls: Array<{ next: Date; previous: Date | null; register: boolean }> = [];
    const bursts = {
      plan: async (next: Date, previous: Date | null, register: boolean) => {
        calls.push({ next, previous, register });
        if (counts instanceof Error) {
          throw counts;
        }
        return counts;
      },
    } as unknown as OccurrenceBurstsRepository;
    const readGate = jest.fn(async () => gate);
    const warnings: string[] = [];
    const { planOccurrences: plan } = createScheduleActivities({
      bursts,
      config,
      readGate,
      warn: (m) => warnings.push(m),
    });
    return { plan, calls, readGate, warnings };
  }

  it('should read the gate only when occurrences are due, and give the lead of the next from the burst', async () => {
    const { plan, calls, readGate } = activities({ next: 3, previous: 1_000 });
    const idle = await plan(input('2026-01-01T10:00:30.000Z'));
    expect(idle.gate).toBeUndefined();
    expect(readGate).not.toHaveBeenCalled();
    const due = await plan(input('2026-01-01T10:01:00.000Z'));
    expect(due.gate).toEqual(gate);
    expect(readGate).toHaveBeenCalledWith({ workspaceId: 'ws_A', month: '2026-01' });
    // The burst the job fires in now (1 000) is the estimate for its next instant.
    expect(due.burst).toBe(1_000);
    expect(due.leadMs).toBe(
      prepareLeadMs({ ...prepare, burst: 1_000, baseMs: 1_000, ratePerS: 25, maxMs: 60_000, gapMs: 60_000 }),
    );
    expect(calls[1]).toEqual({
      next: new Date('2026-01-01T10:02:00.000Z'),
      previous: new Date('2026-01-01T10:01:00.000Z'),
      register: true,
    });
    // Already counted at that instant: read, not counted again.
    await plan({
      ...input('2026-01-01T10:01:00.000Z'),
      prepare: { ...prepare, registered: '2026-01-01T10:02:00.000Z' },
    });
    expect(calls[2]!.register).toBe(false);
  });

  it('should keep the base lead for other overlap policies and when the estimate cannot be read', async () => {
    const queued = await activities({ next: 1_000, previous: 1_000 }).plan({
      ...input('2026-01-01T10:01:00.000Z'),
      prepare: { ...prepare, overlapPolicy: 'queue' },
    });
    expect(queued.leadMs).toBe(1_000);
    const down = activities(new Error('connection refused'));
    const plan = await down.plan(input('2026-01-01T10:01:00.000Z'));
    expect(plan.leadMs).toBe(1_000);
    expect(plan.onTime).toEqual(['2026-01-01T10:01:00.000Z']);
    expect(down.warnings[0]).toMatch(/connection refused/);
  });
});

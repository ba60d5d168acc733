import type { OpenRunsInput } from '@svc/workflow-contract/activity-types';
import type { ScheduleSnapshot } from '@svc/workflow-contract/definitions';
import type { AppConfig } from '@svc/common';
import { occurrenceRunId } from '@svc/workflow-contract/ids';
import { prepareLeadMs } from '@svc/orchestration';
import type { OccurrenceBurstsRepository } from '@svc/persistence';
import { detectKind } from '@svc/schedule';
import { createScheduleActivities, planOccurrences } from './schedule.activities';

const schedule = (expr: string, extra: Partial<{ count: number; endsAt: string }> = {}): ScheduleSnapshot => ({
  expr,
  kind: detectKind(expr), // as the job row stores it: the kind `auto` detected
  timezone: 'UTC',
  startsAt: null,
  endsAt: extra.endsAt ?? null,
  count: extra.count ?? null,
  anchor: '2026-01-01T00:00:00.000Z',
});

/** A plan with a 1-minute misfire threshold and the workflow's catch-up cap unless overridden. */
const planFor = ({
  misfireThresholdMs = 60_000,
  ...input
}: {
  schedule: ScheduleSnapshot;
  after: string;
  now: string;
  misfireThresholdMs?: number;
}) => planOccurrences({ maxCatchUp: 100, ...input }, misfireThresholdMs);

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

  it('should judge occurrences by their planned time with a start window, returning them nominal (issue 46)', () => {
    const spread = { offsetMs: 40_000 };
    const plan = planOccurrences(
      {
        schedule: schedule('0 * * * * ?'),
        after: '2026-01-01T10:00:00.000Z',
        // 10:05 nominal is due at 10:05:40, after now: it is the next one
        now: '2026-01-01T10:05:30.000Z',
        maxCatchUp: 100,
        spread,
      },
      120_000,
    );
    // 10:03 is planned at 10:03:40, 110 s before now: on time at a 120 s threshold
    expect(plan.missed).toEqual(['2026-01-01T10:01:00.000Z', '2026-01-01T10:02:00.000Z']);
    expect(plan.onTime).toEqual(['2026-01-01T10:03:00.000Z', '2026-01-01T10:04:00.000Z']);
    expect(plan.next).toBe('2026-01-01T10:05:00.000Z');
    expect(plan.scannedUntil).toBe('2026-01-01T10:04:00.000Z');
  });

  it('should plan occurrences a new offset carried over from the change on, on time (issue 46)', () => {
    // the offset went from 50 s to 10 s at 10:00:30: 10:00 (planned 10:00:50 before) is still due
    const plan = planOccurrences(
      {
        schedule: schedule('0 * * * * ?'),
        after: '2026-01-01T09:59:40.000Z',
        now: '2026-01-01T10:00:30.500Z',
        maxCatchUp: 100,
        spread: { offsetMs: 10_000, notBefore: '2026-01-01T10:00:30.000Z' },
      },
      1_000,
    );
    expect(plan.onTime).toEqual(['2026-01-01T10:00:00.000Z']);
    expect(plan.missed).toEqual([]);
    expect(plan.next).toBe('2026-01-01T10:01:00.000Z');
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

/**
 * Intervals longer than the next unit (issue #24) are planned from the job's anchor, the phase
 * rule of the spec ("interval phases begin at the reference time"), whatever the chunking and
 * wherever a plan resumes.
 */
describe('planOccurrences: interval RRULEs phased at the anchor', () => {
  const ANCHOR = '2026-03-01T10:00:07.000Z';
  const at = (expr: string, extra: Partial<{ timezone: string; startsAt: string }> = {}) => ({
    ...schedule(expr),
    timezone: extra.timezone ?? 'UTC',
    startsAt: extra.startsAt ?? null,
    anchor: ANCHOR,
  });
  const plus = (ms: number): string => new Date(Date.parse(ANCHOR) + ms).toISOString();
  const all = (p: ReturnType<typeof planOccurrences>): string[] => [...p.missed, ...p.onTime];

  it.each([
    ['every 90 seconds', 90_000],
    ['FREQ=SECONDLY;INTERVAL=90', 90_000],
    ['every 90 minutes', 5_400_000],
    ['FREQ=MINUTELY;INTERVAL=90', 5_400_000],
    ['rate(36 hours)', 129_600_000],
  ])('%s: every occurrence is the anchor plus a whole number of steps', (expr, step) => {
    const plan = planFor({
      schedule: at(expr),
      after: ANCHOR,
      now: plus(10 * step + step / 2),
      misfireThresholdMs: 3 * step,
    });
    expect(all(plan)).toEqual(Array.from({ length: 10 }, (_, k) => plus((k + 1) * step)));
    expect(plan.missed).toHaveLength(7);
    expect(plan.next).toBe(plus(11 * step));
  });

  it('a backlog of 960 occurrences across many chunks keeps the phase and the catch-up cap', () => {
    const plan = planFor({ schedule: at('every 90 seconds'), after: ANCHOR, now: plus(86_400_000) });
    expect(plan.missedTotal + plan.onTime.length).toBe(960);
    expect(plan.missed).toHaveLength(100);
    for (const t of all(plan)) {
      expect((Date.parse(t) - Date.parse(ANCHOR)) % 90_000).toBe(0);
    }
    expect(plan.next).toBe(plus(961 * 90_000));
  });

  it('a plan that resumes where the last one stopped continues the same grid', () => {
    const first = planFor({
      schedule: at('FREQ=MINUTELY;INTERVAL=90'),
      after: ANCHOR,
      now: plus(4 * 5_400_000 + 1000),
    });
    const second = planFor({
      schedule: at('FREQ=MINUTELY;INTERVAL=90'),
      after: first.scannedUntil,
      now: plus(7 * 5_400_000 + 1000),
    });
    expect(all(second)).toEqual([5, 6, 7].map((k) => plus(k * 5_400_000)));
  });

  it('starts_at, when set, is the phase instead of the anchor', () => {
    const startsAt = '2026-03-02T00:00:00.000Z';
    const plan = planFor({
      schedule: at('every 90 minutes', { startsAt }),
      after: ANCHOR,
      now: '2026-03-02T03:00:01.000Z',
    });
    expect(all(plan)).toEqual(['2026-03-02T00:00:00.000Z', '2026-03-02T01:30:00.000Z', '2026-03-02T03:00:00.000Z']);
  });

  it('every 6 hours starting at 2am keeps its wall times across a DST change; every 5 hours counts elapsed time', () => {
    const ny = planFor({
      schedule: {
        ...at('every 6 hours starting at 2am', { timezone: 'America/New_York' }),
        anchor: '2026-03-07T12:00:00.000Z',
      },
      after: '2026-03-07T12:00:00.000Z',
      now: '2026-03-09T00:00:00.000Z',
      misfireThresholdMs: 86_400_000 * 3,
    });
    // 8 March: 02:00 does not exist (shifted to 03:00 EDT); then 08:00, 14:00, 20:00 EDT
    expect(ny.onTime).toEqual([
      '2026-03-07T13:00:00.000Z',
      '2026-03-07T19:00:00.000Z',
      '2026-03-08T01:00:00.000Z',
      '2026-03-08T07:00:00.000Z',
      '2026-03-08T12:00:00.000Z',
      '2026-03-08T18:00:00.000Z',
      '2026-03-09T00:00:00.000Z',
    ]);
    const five = planFor({
      schedule: { ...at('every 5 hours starting at 2am'), anchor: '2026-03-07T12:00:00.000Z' },
      after: '2026-03-07T12:00:00.000Z',
      now: '2026-03-08T06:00:00.000Z',
      misfireThresholdMs: 86_400_000,
    });
    expect(five.onTime).toEqual(['2026-03-07T17:00:00.000Z', '2026-03-07T22:00:00.000Z', '2026-03-08T03:00:00.000Z']);
  });
});

describe('the plan activity with prepared bursts (issue 25)', () => {
  const config = {
    scheduler: {
      misfire_threshold_ms: 60_000,
      prepare_ahead_ms: 1_000,
      prepare_rate: 25,
      max_prepare_ahead_ms: 60_000,
    },
  } as AppConfig;
  const prepare = { jobId: 'job_A', registered: null, overlapPolicy: 'allow' as const, timeoutMs: 30_000 };
  const input = (now: string) => ({
    schedule: schedule('0 * * * * ?'),
    after: '2026-01-01T10:00:00.000Z',
    now,
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

  describe('asked to open the runs of an allow job (issue 25)', () => {
    const open = { jobId: 'job_A', workspaceId: 'ws_A', jobVersion: 3, misfirePolicy: 'fire_once' as const };
    function opening(gateRead: typeof gate = gate, fail?: Error) {
      const order: string[] = [];
      const opened: OpenRunsInput[] = [];
      const { planOccurrences: plan } = createScheduleActivities({
        config,
        bursts: {
          plan: async () => {
            order.push('burst');
            return { next: 1, previous: 1 };
          },
        } as unknown as OccurrenceBurstsRepository,
        readGate: async () => gateRead,
        openRuns: async (input) => {
          order.push('open');
          if (fail) {
            throw fail;
          }
          opened.push(input);
          return {};
        },
      });
      return { plan, order, opened };
    }

    it('should decide the due occurrences as the workflow would and open them before counting the burst', async () => {
      const { plan, order, opened } = opening();
      const result = await plan({ ...input('2026-01-01T10:01:00.000Z'), open });
      const runId = occurrenceRunId('job_A', Date.parse('2026-01-01T10:01:00.000Z'));
      expect(result.opened).toEqual({
        decisions: [{ runId, scheduledAt: '2026-01-01T10:01:00.000Z', action: 'start' }],
        collapsed: 0,
      });
      expect(opened).toEqual([
        {
          jobId: 'job_A',
          workspaceId: 'ws_A',
          jobVersion: 3,
          decisions: result.opened!.decisions,
          notifyJob: false,
          collapsed: 0,
        },
      ]);
      // A retry after a failed open must not count the job in the burst twice.
      expect(order).toEqual(['open', 'burst']);
      expect(result.next).toBe('2026-01-01T10:02:00.000Z');
    });

    it('should apply the gate and the misfire policy, recording the fire_all backlog beyond the catch-up', async () => {
      const suspended = await opening({ suspended: true, blockingQuota: null }).plan({
        ...input('2026-01-01T10:01:00.000Z'),
        open,
      });
      expect(suspended.opened!.decisions.map((d) => [d.action, d.skipReason])).toEqual([
        ['skip', 'workspace_suspended'],
      ]);
      // Five missed minutes, a catch-up of two: fire_all delivers the latest two, records the rest.
      const { plan, opened } = opening();
      const late = await plan({
        ...input('2026-01-01T10:10:00.000Z'),
        after: '2026-01-01T10:04:00.000Z',
        maxCatchUp: 2,
        open: { ...open, misfirePolicy: 'fire_all' },
      });
      expect(late.missed).toHaveLength(2);
      expect(late.opened!.decisions.map((d) => d.scheduledAt)).toEqual([...late.missed, ...late.onTime]);
      expect(late.opened!.collapsed).toBe(late.missedTotal - 2);
      expect(opened[0]!.collapsedRange).toEqual({
        schedule: schedule('0 * * * * ?'),
        after: '2026-01-01T10:04:00.000Z',
        before: late.missed[0],
      });
    });

    it('should open nothing when nothing is due, and leave a failed open to be retried whole', async () => {
      const idle = opening();
      expect((await idle.plan({ ...input('2026-01-01T10:00:30.000Z'), open })).opened).toBeUndefined();
      expect(idle.order).toEqual(['burst']);
      const down = opening(gate, new Error('connection refused'));
      await expect(down.plan({ ...input('2026-01-01T10:01:00.000Z'), open })).rejects.toThrow('connection refused');
      expect(down.order).toEqual(['open']);
      // A worker that cannot open (no openRuns given) leaves it to the workflow, as before.
      const notOpening = createScheduleActivities({ config, readGate: async () => gate });
      expect((await notOpening.planOccurrences({ ...input('2026-01-01T10:01:00.000Z'), open })).opened).toBeUndefined();
    });
  });

  it('should tell a plan that prepares its next occurrence where to park, only from a worker that parks', async () => {
    const park = { taskQueue: 'svc-jobs-parked', afterMs: 300_000 };
    const parking = createScheduleActivities({ config, park });
    expect((await parking.planOccurrences(input('2026-01-01T10:00:30.000Z'))).park).toEqual(park);
    // A plan recorded without `prepare` (older code) never parks: its workflow would not know how.
    const { prepare: _none, ...unprepared } = input('2026-01-01T10:00:30.000Z');
    expect((await parking.planOccurrences(unprepared)).park).toBeUndefined();
    // A worker without a parked queue (tests, parking off) never sends a job where none polls.
    const notParking = createScheduleActivities({ config });
    expect((await notParking.planOccurrences(input('2026-01-01T10:00:30.000Z'))).park).toBeUndefined();
    // A series that has ended has no next wake to park for.
    const ended = await parking.planOccurrences({
      ...input('2026-01-01T10:00:30.000Z'),
      schedule: schedule('0 * * * * ?', { count: 1 }),
    });
    expect(ended.next).toBeNull();
    expect(ended.park).toBeUndefined();
  });

  it('should park only while the parking gate says so (worker.park_above_jobs)', async () => {
    const park = { taskQueue: 'svc-jobs-parked', afterMs: 3_600_000 };
    let many = false;
    const gated = createScheduleActivities({ config, park, parkingApplies: async () => many });
    expect((await gated.planOccurrences(input('2026-01-01T10:00:30.000Z'))).park).toBeUndefined();
    many = true;
    expect((await gated.planOccurrences(input('2026-01-01T10:00:30.000Z'))).park).toEqual(park);
  });
});

describe('the plan activity while a burst is being counted (a bulk create)', () => {
  const config = {
    scheduler: {
      misfire_threshold_ms: 60_000,
      prepare_ahead_ms: 1_000,
      prepare_rate: 25,
      max_prepare_ahead_ms: 600_000,
    },
  } as AppConfig;
  const open = { jobId: 'job_A', workspaceId: 'ws_A', jobVersion: 1, misfirePolicy: 'fire_once' as const };
  const prepare = { jobId: 'job_A', registered: null, overlapPolicy: 'allow' as const };
  // A daily job at noon, created (its first plan) at 11:52 with the base lead of 1 s.
  const firstPlan = {
    schedule: schedule('0 0 12 * * ?'),
    after: '2026-01-01T11:52:00.000Z',
    now: '2026-01-01T11:52:01.000Z',
    leadMs: 1_000,
    maxCatchUp: 100,
    prepare,
    gate: { workspaceId: 'ws_A', month: '2026-01' },
    open,
  };

  function activities(count: number) {
    const counted: Array<{ next: string; previous: string | null; register: boolean }> = [];
    const opened: OpenRunsInput[] = [];
    const { planOccurrences: plan } = createScheduleActivities({
      config,
      bursts: {
        plan: async (next: Date, previous: Date | null, register: boolean) => {
          counted.push({ next: next.toISOString(), previous: previous?.toISOString() ?? null, register });
          return { next: count, previous: previous === null ? 0 : count };
        },
      } as unknown as OccurrenceBurstsRepository,
      readGate: async () => ({ suspended: false, blockingQuota: null }),
      openRuns: async (input) => {
        opened.push(input);
        return {};
      },
    });
    return { plan, counted, opened };
  }

  it('should open the first occurrence of a job in a burst at once, and lead the one after by the burst', async () => {
    const { plan, counted, opened } = activities(500);
    const result = await plan(firstPlan);
    // Opened in this plan (8 min ahead, within the 10 min maximum), no wake needed for it.
    expect(result.onTime).toEqual(['2026-01-01T12:00:00.000Z']);
    expect(opened).toHaveLength(1);
    expect(opened[0]!.decisions.map((d) => d.scheduledAt)).toEqual(['2026-01-01T12:00:00.000Z']);
    expect(result.opened?.decisions).toHaveLength(1);
    // Counted once at each instant; the next day's lead is the spread of a known burst of 500.
    expect(counted).toEqual([
      { next: '2026-01-01T12:00:00.000Z', previous: null, register: true },
      { next: '2026-01-02T12:00:00.000Z', previous: '2026-01-01T12:00:00.000Z', register: true },
    ]);
    expect(result.next).toBe('2026-01-02T12:00:00.000Z');
    expect(result.leadMs).toBe(
      prepareLeadMs({ jobId: 'job_A', burst: 500, baseMs: 1_000, ratePerS: 25, maxMs: 600_000, gapMs: 86_400_000 }),
    );
    expect(result.scannedUntil).toBe('2026-01-01T12:00:00.000Z');
  });

  it('should leave a lone job, and an occurrence beyond the maximum lead, to the wake', async () => {
    const lone = activities(1);
    const alone = await lone.plan(firstPlan);
    expect(alone.onTime).toEqual([]);
    expect(lone.opened).toHaveLength(0);
    expect(alone).toMatchObject({ next: '2026-01-01T12:00:00.000Z', leadMs: 1_000 });

    const early = activities(500);
    const far = await early.plan({ ...firstPlan, after: '2026-01-01T11:40:00.000Z', now: '2026-01-01T11:40:01.000Z' });
    expect(early.opened).toHaveLength(0);
    expect(far).toMatchObject({ next: '2026-01-01T12:00:00.000Z', leadMs: 600_000 });
  });
});

import type { ScheduleSnapshot } from './definitions';
import { decideOpening, dropUntracked, type OpeningArgs, renameTracked } from './occurrence-opening';

const schedule = { kind: 'cron', expr: '* * * * *', timezone: 'UTC' } as unknown as ScheduleSnapshot;
const job = {
  jobId: 'job_1',
  workspaceId: 'ws_1',
  jobVersion: 3,
  misfirePolicy: 'fire_once' as const,
  overlapPolicy: 'allow' as const,
  schedule,
};

function args(overrides: Partial<OpeningArgs> = {}): OpeningArgs {
  return {
    job,
    due: { missed: [], onTime: ['2030-01-01T00:01:00.000Z'] },
    missedTotal: 0,
    after: '2030-01-01T00:00:00.000Z',
    gate: { suspended: false, blockingQuota: null },
    state: { inFlight: [], queued: null },
    newRunId: (at) => `run_${at}`,
    notifyJob: false,
    ...overrides,
  };
}

describe('decideOpening (the one occurrence-decision path of the job workflow and the plan activity)', () => {
  it('should decide the due occurrences and ask openRuns to record them, nothing more', () => {
    const opening = decideOpening(args());
    expect(opening.decisions).toEqual([
      { runId: 'run_2030-01-01T00:01:00.000Z', scheduledAt: '2030-01-01T00:01:00.000Z', action: 'start' },
    ]);
    expect(opening.collapsed).toBe(0);
    expect(opening.cancel).toEqual([]);
    expect(opening.openRuns).toEqual({
      jobId: 'job_1',
      workspaceId: 'ws_1',
      jobVersion: 3,
      decisions: opening.decisions,
      notifyJob: false,
      collapsed: 0,
    });
  });

  it('should carry the display and the spread, and under fire_all the range of the collapsed missed ones', () => {
    const display = { name: 'n', schedule: '* * * * *', timezone: 'UTC', timeoutMs: 1_000 };
    const spread = { offsetMs: 5_000 };
    const opening = decideOpening(
      args({
        job: { ...job, misfirePolicy: 'fire_all', display } as OpeningArgs['job'],
        due: { missed: ['2030-01-01T00:03:00.000Z', '2030-01-01T00:04:00.000Z'], onTime: [] },
        missedTotal: 5,
        spread,
      }),
    );
    expect(opening.collapsed).toBe(3);
    expect(opening.openRuns).toEqual(
      expect.objectContaining({
        display,
        spread,
        collapsed: 3,
        collapsedRange: { schedule, after: '2030-01-01T00:00:00.000Z', before: '2030-01-01T00:03:00.000Z' },
      }),
    );
    expect(opening.decisions.map((d) => d.action)).toEqual(['start', 'start']);
  });

  it('should fold all but the latest missed under fire_once, with no range to record', () => {
    const opening = decideOpening(
      args({ due: { missed: ['2030-01-01T00:03:00.000Z', '2030-01-01T00:04:00.000Z'], onTime: [] }, missedTotal: 4 }),
    );
    expect(opening.collapsed).toBe(3);
    expect(opening.openRuns.collapsedRange).toBeUndefined();
    expect(opening.decisions.map((d) => d.scheduledAt)).toEqual(['2030-01-01T00:04:00.000Z']);
  });

  it('should decide against the runs tracked: cancel_previous cancels them and tracks the new one', () => {
    const previous = { runId: 'run_old', scheduledAt: '2030-01-01T00:00:00.000Z' };
    const opening = decideOpening(
      args({
        job: { ...job, overlapPolicy: 'cancel_previous' },
        state: { inFlight: [previous], queued: null },
        notifyJob: true,
      }),
    );
    expect(opening.cancel).toEqual(['run_old']);
    expect(opening.state.inFlight.map((r) => r.runId)).toEqual(['run_2030-01-01T00:01:00.000Z']);
    expect(opening.openRuns.notifyJob).toBe(true);
  });

  it('should skip beyond max_concurrent_runs of an allow job', () => {
    const running = { runId: 'run_old', scheduledAt: '2030-01-01T00:00:00.000Z' };
    const opening = decideOpening(
      args({ job: { ...job, maxConcurrentRuns: 1 }, state: { inFlight: [running], queued: null } }),
    );
    expect(opening.decisions.map((d) => [d.action, d.skipReason])).toEqual([['skip', 'max_concurrent_runs']]);
  });
});

/** Runs a and b in flight, c queued. */
const trackedABC = () => ({
  inFlight: [
    { runId: 'run_a', scheduledAt: 't1' },
    { runId: 'run_b', scheduledAt: 't2' },
  ],
  queued: { runId: 'run_c', scheduledAt: 't3' },
});

describe('renameTracked', () => {
  it('should track an occurrence recorded earlier under its recorded id, and leave the rest', () => {
    const state = trackedABC();
    expect(renameTracked(state, { run_a: 'run_old_a', run_c: 'run_old_c' })).toEqual({
      inFlight: [
        { runId: 'run_old_a', scheduledAt: 't1' },
        { runId: 'run_b', scheduledAt: 't2' },
      ],
      queued: { runId: 'run_old_c', scheduledAt: 't3' },
    });
    expect(renameTracked(state, undefined)).toEqual(state);
    expect(renameTracked({ inFlight: [], queued: null }, { x: 'y' })).toEqual({ inFlight: [], queued: null });
  });
});

describe('dropUntracked (issue 45: a backfill reached the occurrence first)', () => {
  const state = trackedABC();

  it('should stop tracking the runs no runFinished will release, in flight or queued', () => {
    expect(dropUntracked(state, ['run_a', 'run_c'])).toEqual({
      inFlight: [{ runId: 'run_b', scheduledAt: 't2' }],
      queued: null,
    });
  });

  it('should leave the state as it is for results recorded before the field existed', () => {
    expect(dropUntracked(state, undefined)).toBe(state);
    expect(dropUntracked(state, [])).toBe(state);
  });
});

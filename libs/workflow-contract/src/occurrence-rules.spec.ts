import {
  applyMisfirePolicy,
  collapsedCount,
  decideOccurrences,
  isMissed,
  missedOccurrenceFate,
  plannedAt,
} from './occurrence-rules';

const open = { suspended: false, blockingQuota: null };
/** Run ids named after their occurrence, as the job workflow names them. */
function ids() {
  return (scheduledAt: string) => `run_${scheduledAt}`;
}
const due = (missed: string[], onTime: string[]) => ({ missed, onTime });

describe('isMissed (decisions.md → misfire_policy: dispatched the threshold or more after its instant)', () => {
  it('should count an occurrence dispatched within the threshold as on time', () => {
    expect(isMissed(0, 59_999, 60_000)).toBe(false);
    expect(isMissed(1_000, 1_000, 60_000)).toBe(false);
  });
  it('should count an occurrence dispatched the threshold or more after it as missed', () => {
    expect(isMissed(0, 60_000, 60_000)).toBe(true);
    expect(isMissed(0, 3_600_000, 60_000)).toBe(true);
  });
});

describe('missedOccurrenceFate', () => {
  it.each([
    ['fire_once', 'deliver', 'collapse'],
    ['skip', 'misfire', 'collapse'],
    ['fire_all', 'deliver', 'deliver'],
  ] as const)('%s: the latest missed is %s, an earlier one is %s', (policy, latest, earlier) => {
    expect(missedOccurrenceFate(policy, true)).toBe(latest);
    expect(missedOccurrenceFate(policy, false)).toBe(earlier);
  });
});

describe('applyMisfirePolicy', () => {
  const missed = ['t1', 't2', 't3'];
  it('should collapse missed occurrences into the latest one (fire_once)', () => {
    expect(applyMisfirePolicy(due(missed, ['t4']), 'fire_once')).toEqual([
      { scheduledAt: 't3', misfire: false },
      { scheduledAt: 't4', misfire: false },
    ]);
  });
  it('should record the latest missed occurrence as a misfire (skip)', () => {
    expect(applyMisfirePolicy(due(missed, []), 'skip')).toEqual([{ scheduledAt: 't3', misfire: true }]);
  });
  it('should fire every missed occurrence oldest first (fire_all)', () => {
    expect(applyMisfirePolicy(due(missed, []), 'fire_all').map((o) => o.scheduledAt)).toEqual(missed);
  });
});

describe('collapsedCount', () => {
  it('should count every missed occurrence but the one that gets a run (fire_once, skip)', () => {
    expect(collapsedCount(5, 5, 'fire_once')).toBe(4);
    expect(collapsedCount(250, 100, 'skip')).toBe(249);
    expect(collapsedCount(1, 1, 'fire_once')).toBe(0);
  });
  it('should count only what is beyond the catch-up limit (fire_all)', () => {
    expect(collapsedCount(250, 100, 'fire_all')).toBe(150);
    expect(collapsedCount(3, 3, 'fire_all')).toBe(0);
  });
  it('should count nothing without missed occurrences or a recorded total', () => {
    expect(collapsedCount(0, 0, 'skip')).toBe(0);
    expect(collapsedCount(undefined as unknown as number, 2, 'fire_once')).toBe(0);
  });
});

describe('decideOccurrences', () => {
  const base = { misfirePolicy: 'fire_once' as const, gate: open, state: { inFlight: [], queued: null } };

  it('should start every occurrence and track none under allow', () => {
    const outcome = decideOccurrences({ ...base, due: due([], ['a', 'b']), overlapPolicy: 'allow', newRunId: ids() });
    expect(outcome.decisions.map((d) => d.action)).toEqual(['start', 'start']);
    expect(outcome.state.inFlight).toEqual([]);
  });

  it('should skip suspended workspaces and occurrences over a blocking quota', () => {
    const suspended = decideOccurrences({
      ...base,
      gate: { suspended: true, blockingQuota: null },
      due: due([], ['a']),
      overlapPolicy: 'allow',
      newRunId: ids(),
    });
    expect(suspended.decisions[0]).toMatchObject({ action: 'skip', skipReason: 'workspace_suspended' });
    const quota = decideOccurrences({
      ...base,
      gate: { suspended: false, blockingQuota: { limit: 3, used: 2 } },
      due: due([], ['a', 'b']),
      overlapPolicy: 'allow',
      newRunId: ids(),
    });
    expect(quota.decisions.map((d) => d.skipReason ?? d.action)).toEqual(['start', 'quota_exceeded']);
  });

  it('should skip while a run is in flight (skip)', () => {
    const outcome = decideOccurrences({ ...base, due: due([], ['a', 'b']), overlapPolicy: 'skip', newRunId: ids() });
    expect(outcome.decisions.map((d) => d.skipReason ?? d.action)).toEqual(['start', 'previous_run_in_progress']);
    expect(outcome.state.inFlight).toEqual([{ runId: 'run_a', scheduledAt: 'a' }]);
  });

  it('should keep one waiting occurrence and skip further ones (queue)', () => {
    const outcome = decideOccurrences({
      ...base,
      state: { inFlight: [{ runId: 'run_0', scheduledAt: 'z' }], queued: null },
      due: due([], ['a', 'b']),
      overlapPolicy: 'queue',
      newRunId: ids(),
    });
    expect(outcome.decisions.map((d) => d.skipReason ?? d.action)).toEqual(['queue', 'previous_run_in_progress']);
    expect(outcome.state.queued).toEqual({ runId: 'run_a', scheduledAt: 'a' });
  });

  it('should cancel the runs in flight and track only the newest (cancel_previous)', () => {
    const outcome = decideOccurrences({
      ...base,
      state: { inFlight: [{ runId: 'run_0', scheduledAt: 'z' }], queued: null },
      due: due([], ['a']),
      overlapPolicy: 'cancel_previous',
      newRunId: ids(),
    });
    expect(outcome.cancel).toEqual(['run_0']);
    expect(outcome.state.inFlight).toEqual([{ runId: 'run_a', scheduledAt: 'a' }]);
  });

  it('should never let a misfire skip count against the quota or take a place in flight', () => {
    const outcome = decideOccurrences({
      ...base,
      misfirePolicy: 'skip',
      gate: { suspended: false, blockingQuota: { limit: 1, used: 0 } },
      due: due(['old'], ['a']),
      overlapPolicy: 'skip',
      newRunId: ids(),
    });
    expect(outcome.decisions.map((d) => d.skipReason ?? d.action)).toEqual(['misfire', 'start']);
  });
});

describe('plannedAt (issue 46: spread windows)', () => {
  it('is the nominal instant without a spread, and the nominal instant plus the offset with one', () => {
    expect(plannedAt('2026-01-01T10:00:00.000Z', undefined)).toBe('2026-01-01T10:00:00.000Z');
    expect(plannedAt('2026-01-01T10:00:00.000Z', { offsetMs: 42_500 })).toBe('2026-01-01T10:00:42.500Z');
  });
  it('never plans before `notBefore` (occurrences a new offset carried over fire from the change on)', () => {
    const spread = { offsetMs: 10_000, notBefore: '2026-01-01T10:00:30.000Z' };
    expect(plannedAt('2026-01-01T10:00:00.000Z', spread)).toBe('2026-01-01T10:00:30.000Z');
    expect(plannedAt('2026-01-01T10:01:00.000Z', spread)).toBe('2026-01-01T10:01:10.000Z');
  });
});

describe('decideOccurrences with max_concurrent_runs (issue 46)', () => {
  const decide = (inFlight: string[], onTime: string[], maxConcurrentRuns: number | null, overlapPolicy = 'allow') =>
    decideOccurrences({
      due: due([], onTime),
      misfirePolicy: 'fire_once',
      overlapPolicy: overlapPolicy as 'allow',
      gate: open,
      state: { inFlight: inFlight.map((runId) => ({ runId, scheduledAt: runId })), queued: null },
      newRunId: ids(),
      maxConcurrentRuns,
    });

  it('starts occurrences of an allow job while fewer than the cap are in flight, and tracks them', () => {
    const outcome = decide(['a'], ['t1'], 2);
    expect(outcome.decisions).toEqual([{ runId: 'run_t1', scheduledAt: 't1', action: 'start' }]);
    expect(outcome.state.inFlight.map((r) => r.runId)).toEqual(['a', 'run_t1']);
  });

  it('skips an occurrence with the cap in flight, recorded with its reason', () => {
    const outcome = decide(['a'], ['t1', 't2'], 2);
    expect(outcome.decisions).toEqual([
      { runId: 'run_t1', scheduledAt: 't1', action: 'start' },
      { runId: 'run_t2', scheduledAt: 't2', action: 'skip', skipReason: 'max_concurrent_runs' },
    ]);
  });

  it('tracks nothing for an uncapped allow job, and ignores the cap under the other policies', () => {
    expect(decide([], ['t1', 't2'], null).state.inFlight).toEqual([]);
    expect(decide(['a'], ['t1'], 5, 'skip').decisions[0]).toMatchObject({ skipReason: 'previous_run_in_progress' });
  });
});

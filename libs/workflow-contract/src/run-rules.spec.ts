import type { MisfirePolicy } from './definitions';
import {
  type ClaimFacts,
  decideClaim,
  decideOutcome,
  endedStatus,
  DEFAULT_STORED_RETRY,
  type OutcomeFacts,
  type StoredRetryPolicy,
} from './run-rules';

const THRESHOLD = 60_000;
const SCHEDULED = new Date('2026-01-01T10:00:00.000Z');
const at = (msAfterScheduled: number) => new Date(SCHEDULED.getTime() + msAfterScheduled);

function claim(overrides: Partial<ClaimFacts> = {}, run: Partial<NonNullable<ClaimFacts['run']>> = {}) {
  return decideClaim({
    run: { status: 'running', attemptsCount: 0, jobVersion: 1, scheduledAt: SCHEDULED, ...run },
    job: { state: 'active', version: 1, retry: DEFAULT_STORED_RETRY, misfirePolicy: 'fire_once' as const },
    waitedForInstant: false,
    trigger: 'schedule',
    now: at(1_000),
    misfireThresholdMs: THRESHOLD,
    ...overrides,
  });
}
const job = (changes: Partial<NonNullable<ClaimFacts['job']>>) => ({
  job: {
    state: 'active' as const,
    version: 1,
    retry: DEFAULT_STORED_RETRY,
    misfirePolicy: 'fire_once' as MisfirePolicy,
    ...changes,
  },
});

describe('endedStatus (decisions.md → Run transitions: terminal statuses)', () => {
  it.each(['succeeded', 'failed', 'skipped', 'cancelled'] as const)('should end a %s run', (status) => {
    expect(endedStatus({ status })).toBe(status);
  });
  it.each(['running', 'deferred'] as const)('should keep a %s run open', (status) => {
    expect(endedStatus({ status })).toBeNull();
  });
  it('should count a run whose row is gone as cancelled', () => {
    expect(endedStatus(null)).toBe('cancelled');
  });
});

describe('decideClaim', () => {
  it('should make the next attempt of an open run, counting from its own attempts', () => {
    expect(claim()).toMatchObject({ kind: 'attempt', n: 0 });
    expect(claim({}, { status: 'deferred', attemptsCount: 2 })).toMatchObject({ kind: 'attempt', n: 2 });
  });

  it('should cancel the run of a deleted job (decisions.md: deleting a job cancels its runs)', () => {
    expect(claim({ job: null })).toEqual({ kind: 'cancel' });
  });

  it('should do nothing for a run that ended meanwhile', () => {
    expect(claim({}, { status: 'succeeded' })).toEqual({ kind: 'ended', status: 'succeeded' });
    expect(claim({ run: null })).toEqual({ kind: 'ended', status: 'cancelled' });
  });

  it('should fail the run once its attempts are exhausted (max_attempts counts the first attempt)', () => {
    expect(claim({}, { status: 'deferred', attemptsCount: 3 })).toEqual({
      kind: 'exhausted',
      error: 'interrupted (after 3 attempts)',
    });
    expect(claim(job({ retry: { ...DEFAULT_STORED_RETRY, max_attempts: 1 } }), { attemptsCount: 1 })).toMatchObject({
      kind: 'exhausted',
    });
  });

  describe('a run opened ahead of its instant (scheduler.prepare_ahead)', () => {
    const waited = { waitedForInstant: true };
    it.each([
      ['paused', job({ state: 'paused' })],
      ['disabled', job({ state: 'disabled' })],
      ['given a new version', job({ version: 2 })],
    ])('should be withdrawn when its job was %s before the instant (its occurrence never existed)', (_, changed) => {
      expect(claim({ ...waited, ...changed })).toMatchObject({ kind: 'withdraw' });
    });

    it('should be delivered under the newer version that adopted it', () => {
      expect(claim({ ...waited, ...job({ version: 2 }) }, { jobVersion: 2 })).toMatchObject({ kind: 'attempt' });
    });

    it('should never be withdrawn when the attempt started after the instant (a backlog delivers)', () => {
      expect(claim(job({ state: 'paused' }))).toMatchObject({ kind: 'attempt' });
    });
  });

  describe('an occurrence a user skipped (issue 45)', () => {
    const skips = {
      occurrenceSkips: { [SCHEDULED.toISOString()]: { note: 'holiday', created_at: '2025-12-31T00:00:00Z' } },
    };

    it('should close the first attempt of its scheduled run skipped with the note, at the instant or late', () => {
      expect(claim(job(skips))).toEqual({ kind: 'skipped_by_user', note: 'holiday' });
      expect(claim({ waitedForInstant: true, ...job(skips) })).toEqual({ kind: 'skipped_by_user', note: 'holiday' });
      expect(claim({ now: at(THRESHOLD * 10), ...job({ ...skips, misfirePolicy: 'fire_all' }) })).toEqual({
        kind: 'skipped_by_user',
        note: 'holiday',
      });
    });

    it('should leave other occurrences, manual runs and retries of a started run alone', () => {
      expect(claim(job(skips), { scheduledAt: at(60_000) })).toMatchObject({ kind: 'attempt' });
      expect(claim({ trigger: 'manual', ...job(skips) })).toMatchObject({ kind: 'attempt' });
      expect(claim(job(skips), { status: 'deferred', attemptsCount: 1 })).toMatchObject({ kind: 'attempt', n: 1 });
    });

    it('should still withdraw a run the job no longer has (paused while it waited)', () => {
      expect(claim({ waitedForInstant: true, ...job({ ...skips, state: 'paused' }) })).toMatchObject({
        kind: 'withdraw',
      });
    });
  });

  describe('misfire_policy on a first attempt later than the threshold', () => {
    const late = { now: at(THRESHOLD) };

    it('should treat an attempt within the threshold as on time', () => {
      expect(claim({ now: at(THRESHOLD - 1), ...job({ misfirePolicy: 'skip' }) })).toMatchObject({ kind: 'attempt' });
    });

    it('should record a skipped misfire under skip', () => {
      expect(claim({ ...late, ...job({ misfirePolicy: 'skip' }) })).toEqual({ kind: 'misfire' });
    });

    it('should deliver under fire_all', () => {
      expect(claim({ ...late, ...job({ misfirePolicy: 'fire_all' }) })).toMatchObject({ kind: 'attempt', n: 0 });
    });

    it('should deliver only the latest under fire_once: it asks whether a later occurrence has a run', () => {
      expect(claim(late)).toEqual({ kind: 'read_later_occurrence' });
      expect(claim({ ...late, laterOccurrenceHasRun: false })).toMatchObject({ kind: 'attempt', n: 0 });
      expect(claim({ ...late, laterOccurrenceHasRun: true })).toEqual({ kind: 'misfire' });
    });

    it('should measure lateness from the release of a queued occurrence', () => {
      const released = { ...late, ...job({ misfirePolicy: 'skip' }), releasedAt: at(1_000).toISOString() };
      expect(claim(released)).toMatchObject({ kind: 'attempt' });
    });

    it('should not apply to a first attempt that waited for its destination (issue 46)', () => {
      const skip = { ...late, ...job({ misfirePolicy: 'skip' }) };
      expect(claim(skip, { status: 'deferred', deferredReason: 'destination_limit' })).toMatchObject({
        kind: 'attempt',
        n: 0,
      });
      expect(claim(skip, { status: 'deferred', deferredReason: 'destination_held' })).toMatchObject({
        kind: 'attempt',
      });
    });

    it('should not apply to a retry or to a manual run', () => {
      const skip = { ...late, ...job({ misfirePolicy: 'skip' }) };
      expect(claim(skip, { status: 'deferred', attemptsCount: 1 })).toMatchObject({ kind: 'attempt', n: 1 });
      expect(claim({ ...skip, trigger: 'manual' })).toMatchObject({ kind: 'attempt' });
      expect(claim({ ...skip, trigger: 'retry_manual' })).toMatchObject({ kind: 'attempt' });
    });
  });
});

describe('decideOutcome', () => {
  function outcome(overrides: Partial<OutcomeFacts>) {
    return decideOutcome({
      n: 0,
      outcome: 'success',
      error: null,
      retryAfterMs: null,
      cancelled: false,
      retry: DEFAULT_STORED_RETRY,
      random: () => 0.5,
      ...overrides,
    });
  }

  it('should close the run succeeded on success', () => {
    expect(outcome({})).toEqual({ kind: 'close', status: 'succeeded', error: null });
  });

  it('should close the run failed at once on a fatal outcome, attempts left or not', () => {
    expect(outcome({ outcome: 'fatal', error: 'HTTP 404' })).toEqual({
      kind: 'close',
      status: 'failed',
      error: 'HTTP 404',
    });
  });

  it('should defer a retryable outcome with attempts left, after the backoff delay', () => {
    expect(outcome({ outcome: 'retryable', error: 'HTTP 503' })).toEqual({ kind: 'defer', delayMs: 10_000 });
    expect(outcome({ n: 1, outcome: 'retryable', error: 'HTTP 503' })).toEqual({ kind: 'defer', delayMs: 20_000 });
  });

  it('should fail the run when the last attempt was retryable, naming the attempts', () => {
    expect(outcome({ n: 2, outcome: 'retryable', error: 'HTTP 503' })).toEqual({
      kind: 'close',
      status: 'failed',
      error: 'HTTP 503 (after 3 attempts)',
    });
  });

  it('should cancel the run with the attempt recorded when it was cancelled while sending, whatever the answer', () => {
    expect(outcome({ cancelled: true, outcome: 'success' })).toEqual({ kind: 'cancel', error: null });
    expect(outcome({ cancelled: true, outcome: 'retryable', error: 'aborted' })).toEqual({
      kind: 'cancel',
      error: 'aborted',
    });
  });

  describe('the retry delay (decisions.md → retry: backoff, jitter both ways, capped at max_interval)', () => {
    const retryable = (n: number, retry: Partial<StoredRetryPolicy>, more: Partial<OutcomeFacts> = {}) =>
      outcome({
        n,
        outcome: 'retryable',
        error: 'x',
        retry: { ...DEFAULT_STORED_RETRY, max_attempts: 20, ...retry },
        ...more,
      });

    it.each([
      ['exponential', [10_000, 20_000, 40_000]],
      ['linear', [10_000, 20_000, 30_000]],
      ['fixed', [10_000, 10_000, 10_000]],
    ] as const)('%s', (backoff, delays) => {
      expect([0, 1, 2].map((n) => retryable(n, { backoff }))).toEqual(
        delays.map((delayMs) => ({ kind: 'defer', delayMs })),
      );
    });

    it('should apply the jitter both ways and cap at max_interval', () => {
      expect(retryable(0, {}, { random: () => 0 })).toEqual({ kind: 'defer', delayMs: 8_000 });
      expect(retryable(0, {}, { random: () => 0.999_999 })).toEqual({ kind: 'defer', delayMs: 12_000 });
      expect(retryable(10, {})).toEqual({ kind: 'defer', delayMs: 600_000 });
    });

    it('should wait at least the Retry-After the sink asked for, never beyond max_interval', () => {
      expect(retryable(0, {}, { retryAfterMs: 45_000 })).toEqual({ kind: 'defer', delayMs: 45_000 });
      expect(retryable(0, {}, { retryAfterMs: 3_600_000 })).toEqual({ kind: 'defer', delayMs: 600_000 });
    });
  });
});

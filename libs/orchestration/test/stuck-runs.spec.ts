import { DEFAULT_STORED_RETRY } from '@svc/workflow-contract/run-rules';
import {
  judgeStuckRun,
  lastSignOfLife,
  maxRetryDelayMs,
  mayBeStuck,
  runDeadline,
  STUCK_MARGIN_MS,
  type PendingAttemptFacts,
  type StuckRunFacts,
} from '../src/stuck-runs';

const T0 = Date.parse('2026-11-26T02:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms);
const HEARTBEAT = 10_000;

/** decisions.md → `retry` defaults: 3 attempts, 10 s doubling up to 10 min, jitter 0.2. */
const retry = DEFAULT_STORED_RETRY;
const policy = { timeoutMs: 30_000, retry };
const run = (overrides: Partial<StuckRunFacts> = {}): StuckRunFacts => ({
  scheduledAt: at(0),
  startedAt: at(0),
  nextAttemptAt: null,
  attemptsCount: 0,
  ...overrides,
});
const started = (overrides: Partial<PendingAttemptFacts> = {}): PendingAttemptFacts => ({
  state: 'started',
  scheduledAt: at(0),
  lastStartedAt: at(0),
  lastHeartbeatAt: null,
  ...overrides,
});
/** The judgement of `theRun` (a running one unless given) with `pending`, `nowMs` after T0. */
const judgeAt = (pending: PendingAttemptFacts | null, nowMs: number, theRun: StuckRunFacts = run()) =>
  judgeStuckRun({ run: theRun, policy, pending, now: at(nowMs), heartbeatTimeoutMs: HEARTBEAT });

describe('stuck runs (docs/operations.md → Stuck runs)', () => {
  describe('retry budget', () => {
    it('should bound each backoff delay by its jitter maximum, capped at max_interval', () => {
      expect(maxRetryDelayMs(retry, 0)).toBe(12_000);
      expect(maxRetryDelayMs(retry, 1)).toBe(24_000);
      expect(maxRetryDelayMs({ ...retry, max_interval_ms: 15_000 }, 1)).toBe(15_000);
    });

    it('should end the budget at timeout × max_attempts + every delay at its longest + the margin', () => {
      // 3 × 30 s + 12 s + 24 s + 60 s
      expect(runDeadline(run(), policy).getTime()).toBe(T0 + 90_000 + 36_000 + STUCK_MARGIN_MS);
    });

    it('should count from the occurrence before the first attempt', () => {
      expect(runDeadline(run({ startedAt: null, scheduledAt: at(5_000) }), policy).getTime()).toBe(
        T0 + 5_000 + 186_000,
      );
    });

    it('should count the remaining attempts from a waiting retry that lies later (a long Retry-After)', () => {
      const waiting = run({ attemptsCount: 1, nextAttemptAt: at(500_000) });
      // attempts 2 and 3: 2 × 30 s + the delay before the third (24 s) + margin.
      expect(runDeadline(waiting, policy).getTime()).toBe(T0 + 500_000 + 60_000 + 24_000 + STUCK_MARGIN_MS);
    });

    it('should call a running run past its deadline stuck, and not a moment before', () => {
      const deadline = runDeadline(run(), policy).getTime() - T0;
      const judge = (now: number) => judgeAt(null, now);
      expect(judge(deadline)).toMatchObject({ stuck: false, reasons: [] });
      expect(judge(deadline + 1)).toMatchObject({ stuck: true, reasons: ['past_retry_budget'] });
    });
  });

  describe('heartbeat', () => {
    it('should call a started attempt silent for longer than the heartbeat timeout stuck', () => {
      const pending = started({ lastHeartbeatAt: at(4_000) });
      const judge = (now: number) => judgeAt(pending, now);
      expect(judge(14_000)).toMatchObject({ stuck: false, reasons: [] });
      expect(judge(14_001)).toMatchObject({ stuck: true, reasons: ['no_heartbeat'], silentForMs: 10_001 });
    });

    it('should count the start of an attempt that has not heartbeated yet', () => {
      expect(lastSignOfLife(started({ lastStartedAt: at(7_000) }), at(9_000))).toEqual(at(7_000));
    });

    it('should call an attempt due to a worker that none picks up stuck (no worker, or a frozen one)', () => {
      // Heartbeat timed out at 14 s; Temporal scheduled the next attempt at 15 s; nobody took it.
      const pending = started({ state: 'scheduled', scheduledAt: at(15_000), lastHeartbeatAt: at(4_000) });
      expect(judgeAt(pending, 30_000).reasons).toEqual(['no_heartbeat']);
    });

    it('should never count an attempt waiting for its retry time', () => {
      const pending = started({ state: 'scheduled', scheduledAt: at(600_000), lastHeartbeatAt: at(1_000) });
      expect(lastSignOfLife(pending, at(300_000))).toBeNull();
      expect(judgeAt(pending, 100_000)).toMatchObject({ stuck: false });
    });

    it('should count silence from the scheduled instant for an attempt opened ahead, which waits without heartbeating', () => {
      // Opened 40 s ahead of its occurrence at 60 s: started at 20 s, no heartbeat while it waits.
      const prepared = run({ scheduledAt: at(60_000), startedAt: null });
      const pending = started({ scheduledAt: at(20_000), lastStartedAt: at(20_000) });
      const judge = (now: number) => judgeAt(pending, now, prepared);
      expect(judge(59_000)).toMatchObject({ stuck: false, reasons: [] });
      expect(judge(70_000)).toMatchObject({ stuck: false, reasons: [] });
      expect(judge(70_001)).toMatchObject({ stuck: true, reasons: ['no_heartbeat'], silentForMs: 10_001 });
    });

    it('should give both reasons when both hold', () => {
      const pending = started({ lastHeartbeatAt: at(1_000) });
      expect(judgeAt(pending, 1_000_000).reasons).toEqual(['past_retry_budget', 'no_heartbeat']);
    });
  });

  describe('mayBeStuck (which rows are worth describing)', () => {
    it('should skip a run younger than the heartbeat timeout and one whose retry lies ahead', () => {
      expect(mayBeStuck(run(), policy, at(5_000), HEARTBEAT)).toBe(false);
      expect(mayBeStuck(run({ nextAttemptAt: at(40_000), attemptsCount: 1 }), policy, at(30_000), HEARTBEAT)).toBe(
        false,
      );
    });

    it('should describe a run with no progress for longer than the heartbeat timeout, or past its deadline', () => {
      expect(mayBeStuck(run(), policy, at(10_001), HEARTBEAT)).toBe(true);
      expect(mayBeStuck(run({ nextAttemptAt: at(900_000), attemptsCount: 1 }), policy, at(2_000_000), HEARTBEAT)).toBe(
        true,
      );
    });
  });
});

/**
 * What the numbers mean. An occurrence is a (job index, scheduled instant) pair; the measurement
 * window is half-open and aligned to the interval, so `expected` is exactly jobs × slots and
 * deliveries/s and offered/s are counted over the same seconds.
 */
import type { Arrival, Source } from './receiver';
import type { RunRow } from './service-side';
import { percentile, round, type CpuGroup } from './util';

export interface MeasurementWindow {
  /** First counted instant (a multiple of the interval since the epoch). */
  startMs: number;
  /** End, exclusive: `startMs + slots × intervalMs`. */
  endMs: number;
  intervalMs: number;
}

const alignUp = (ms: number, step: number): number => Math.ceil(ms / step) * step;

/**
 * The window after creation ended at `createdAtMs`: one interval of warm-up first (the jobs and
 * Schedules were created over a second or more, and some fire before the rest exist), then
 * whole intervals up to `durationS` after creation.
 */
export function measurementWindow(createdAtMs: number, durationS: number, intervalS: number): MeasurementWindow {
  const intervalMs = intervalS * 1000;
  const startMs = alignUp(createdAtMs + intervalMs, intervalMs);
  const slots = Math.max(0, Math.floor((createdAtMs + durationS * 1000 - startMs) / intervalMs));
  return { startMs, endMs: startMs + slots * intervalMs, intervalMs };
}

export function slotsOf(window: MeasurementWindow): number[] {
  const slots: number[] = [];
  for (let t = window.startMs; t < window.endMs; t += window.intervalMs) {
    slots.push(t);
  }
  return slots;
}

const inWindow = (window: MeasurementWindow, ms: number): boolean => ms >= window.startMs && ms < window.endMs;
const onSlot = (window: MeasurementWindow, ms: number): boolean => (ms - window.startMs) % window.intervalMs === 0;
const occurrenceKey = (index: number, scheduledAtMs: number): string => `${index}@${scheduledAtMs}`;

export interface LagSummary {
  p50: number | null;
  p90: number | null;
  p99: number | null;
  max: number | null;
}

export interface SideResult {
  side: Source;
  jobs: number;
  windowS: number;
  expected: number;
  /** Distinct expected occurrences that arrived at least once. */
  received: number;
  lost: number;
  /** Arrivals beyond the first of the same occurrence. */
  duplicates: number;
  /** Arrivals without a readable `Svc-Scheduled-At`, or for an instant no job has. */
  unexpected: number;
  /** Arrival − scheduled instant, first arrival of each occurrence, ms. */
  lagMs: LagSummary;
  deliveriesPerS: number;
  offeredPerS: number;
  /** Per scheduled instant (a burst when the jobs are aligned): what arrived and its lag. */
  bursts: BurstResult[];
  /** Busy share of the machine's CPU (/proc/stat) from the window's start to the drain's end. */
  cpuBusy: number | null;
  /** The same, split by process group (`sampleGroupCpu`): where a side's CPU goes. */
  cpuByProcess: Partial<Record<CpuGroup, number>> | null;
  /** The service worker's peak RSS over the window (`WORKER_METRICS_URL`), MiB; null when not read. */
  workerRssPeakMiB: number | null;
}

export interface BurstResult {
  /** The scheduled instant (ISO). */
  at: string;
  expected: number;
  received: number;
  lost: number;
  duplicates: number;
  lagMs: LagSummary;
}

export function analyseSide(side: Source, jobs: number, window: MeasurementWindow, arrivals: Arrival[]): SideResult {
  const firstArrival = new Map<string, number>();
  const duplicatesAt = new Map<number, number>();
  let duplicates = 0;
  let unexpected = 0;
  for (const arrival of arrivals) {
    if (arrival.source !== side) {
      continue;
    }
    const at = arrival.scheduledAtMs;
    if (at === null) {
      unexpected++;
      continue;
    }
    if (!inWindow(window, at)) {
      continue;
    }
    if (arrival.index >= jobs || !onSlot(window, at)) {
      unexpected++;
      continue;
    }
    const key = occurrenceKey(arrival.index, at);
    const seen = firstArrival.get(key);
    if (seen === undefined) {
      firstArrival.set(key, arrival.arrivedAtMs - at);
    } else {
      duplicates++;
      duplicatesAt.set(at, (duplicatesAt.get(at) ?? 0) + 1);
    }
  }
  const windowS = (window.endMs - window.startMs) / 1000;
  const expected = jobs * slotsOf(window).length;
  const lags = [...firstArrival.values()].sort((a, b) => a - b);
  return {
    side,
    jobs,
    windowS,
    expected,
    received: firstArrival.size,
    lost: expected - firstArrival.size,
    duplicates,
    unexpected,
    lagMs: lagSummary(lags),
    deliveriesPerS: windowS > 0 ? round(firstArrival.size / windowS, 3) : 0,
    offeredPerS: jobs / (window.intervalMs / 1000),
    bursts: slotsOf(window).map((slot) => {
      const slotLags: number[] = [];
      for (let index = 0; index < jobs; index++) {
        const lag = firstArrival.get(occurrenceKey(index, slot));
        if (lag !== undefined) {
          slotLags.push(lag);
        }
      }
      slotLags.sort((a, b) => a - b);
      return {
        at: new Date(slot).toISOString(),
        expected: jobs,
        received: slotLags.length,
        lost: jobs - slotLags.length,
        duplicates: duplicatesAt.get(slot) ?? 0,
        lagMs: lagSummary(slotLags),
      };
    }),
    cpuBusy: null,
    cpuByProcess: null,
    workerRssPeakMiB: null,
  };
}

function lagSummary(sorted: number[]): LagSummary {
  return {
    p50: percentile(sorted, 0.5),
    p90: percentile(sorted, 0.9),
    p99: percentile(sorted, 0.99),
    max: sorted.length > 0 ? sorted[sorted.length - 1]! : null,
  };
}

/** How the service's own mirror (`GET /api/v1/runs`) accounts for each expected occurrence. */
export interface MirrorAccount {
  expected: number;
  /** Occurrences with a `succeeded` run. */
  delivered: number;
  /** Occurrences with a `skipped` run (and none succeeded), by `skip_reason`. */
  skipped: Record<string, number>;
  /** Occurrences whose runs are all in another status (`running`, `failed`, …), by status. */
  other: Record<string, number>;
  /**
   * Occurrences without a run row of their own but with a later run of the same job: folded into
   * that run by the misfire policy (`fire_once`/`skip` keep only the latest missed occurrence;
   * the worker counts them in `svc_occurrences_total{action="collapse"}`).
   */
  collapsed: number;
  /** Occurrences without any run row and no later run of their job. */
  missing: number;
  /** expected − delivered − skipped − collapsed: neither delivered, a recorded skip nor collapsed. */
  unaccounted: number;
  /** Run rows beyond the first for the same occurrence. */
  duplicateRuns: number;
  /** The service's own `start_lag_ms` over succeeded runs. */
  recordedLagMs: { p50: number | null; p99: number | null };
}

const bump = (counts: Record<string, number>, key: string): void => {
  counts[key] = (counts[key] ?? 0) + 1;
};

/** `runs` may reach past the window: a later run is what a collapsed occurrence was folded into. */
export function accountMirror(jobIds: string[], window: MeasurementWindow, runs: RunRow[]): MirrorAccount {
  const runsByOccurrence = new Map<string, RunRow[]>();
  const latestRunOf = new Map<string, number>();
  for (const run of runs) {
    const at = Date.parse(run.scheduled_at);
    const key = `${run.job_id}@${at}`;
    runsByOccurrence.set(key, [...(runsByOccurrence.get(key) ?? []), run]);
    latestRunOf.set(run.job_id, Math.max(latestRunOf.get(run.job_id) ?? -Infinity, at));
  }
  const account: MirrorAccount = {
    expected: 0,
    delivered: 0,
    skipped: {},
    other: {},
    collapsed: 0,
    missing: 0,
    unaccounted: 0,
    duplicateRuns: 0,
    recordedLagMs: { p50: null, p99: null },
  };
  const lags: number[] = [];
  for (const jobId of jobIds) {
    for (const slot of slotsOf(window)) {
      account.expected++;
      const found = runsByOccurrence.get(`${jobId}@${slot}`) ?? [];
      account.duplicateRuns += Math.max(0, found.length - 1);
      const succeeded = found.find((run) => run.status === 'succeeded');
      const skipped = found.find((run) => run.status === 'skipped');
      if (succeeded) {
        account.delivered++;
        if (succeeded.start_lag_ms !== null) {
          lags.push(succeeded.start_lag_ms);
        }
      } else if (skipped) {
        bump(account.skipped, skipped.skip_reason ?? 'unknown');
      } else if (found.length > 0) {
        bump(account.other, found[0]!.status);
      } else if ((latestRunOf.get(jobId) ?? -Infinity) > slot) {
        account.collapsed++;
      } else {
        account.missing++;
      }
    }
  }
  const skippedTotal = Object.values(account.skipped).reduce((sum, n) => sum + n, 0);
  account.unaccounted = account.expected - account.delivered - skippedTotal - account.collapsed;
  lags.sort((a, b) => a - b);
  account.recordedLagMs = { p50: percentile(lags, 0.5), p99: percentile(lags, 0.99) };
  return account;
}

import { type CompiledSchedule, createStepBudget } from '@svc/schedule';

/** Fire times asked of the schedule per call while a backfill's range is walked. */
const CHUNK = 500;

/** Parallel runs of a backfill when `max_runs` is not given, and at most. */
export const BACKFILL_DEFAULT_MAX_RUNS = 5;
export const BACKFILL_MAX_RUNS = 50;

export interface BackfillRange {
  /** The range is `[from, to)`, and never later than `now`: what is still to come is the schedule's. */
  from: Date;
  to: Date;
  now: Date;
}

/** The occurrences a backfill covers, or why none can be listed. */
export type BackfillOccurrences =
  | { ok: true; instants: Date[] }
  /** More than `limit` occurrences: `firstBeyond` is the first one past the cap. */
  | { ok: false; reason: 'over_cap'; firstBeyond: Date }
  | { ok: false; reason: 'too_expensive' };

/**
 * The occurrences of a job's schedule (compiled in its time zone, with its EXDATE/RDATE and the
 * workspace calendars it excludes) in `[from, to)` and at or before `now`, oldest first, without
 * the ones a user skipped (`skipped`: ISO instants). At most `limit`; past it, the first instant
 * beyond the cap. Pure: the caller compiles the schedule and reads the clock.
 */
export function backfillOccurrences(
  schedule: CompiledSchedule,
  range: BackfillRange,
  limit: number,
  skipped: ReadonlySet<string> = new Set(),
): BackfillOccurrences {
  const end = Math.min(range.to.getTime(), range.now.getTime() + 1);
  const instants: Date[] = [];
  // `next` is strictly after its argument: start a millisecond before `from`.
  let cursor = new Date(range.from.getTime() - 1);
  for (;;) {
    let chunk: Date[];
    try {
      chunk = schedule.next(cursor, CHUNK, createStepBudget());
    } catch {
      return { ok: false, reason: 'too_expensive' };
    }
    for (const at of chunk) {
      if (at.getTime() >= end) {
        return { ok: true, instants };
      }
      if (skipped.has(at.toISOString())) {
        continue;
      }
      if (instants.length >= limit) {
        return { ok: false, reason: 'over_cap', firstBeyond: at };
      }
      instants.push(at);
    }
    if (chunk.length < CHUNK) {
      return { ok: true, instants };
    }
    cursor = chunk[chunk.length - 1];
  }
}

/** How many runs a backfill keeps in flight: one in `sequential` mode, `max_runs` (or the default) in `parallel`. */
export function backfillConcurrency(mode: 'sequential' | 'parallel', maxRuns: number | null | undefined): number {
  if (mode === 'sequential') {
    return 1;
  }
  return Math.min(Math.max(1, maxRuns ?? BACKFILL_DEFAULT_MAX_RUNS), BACKFILL_MAX_RUNS);
}

/** What a backfill does with one occurrence, given the runs that already hold it (newest first). */
export type OccurrenceAction =
  /** A run of it succeeded (and `skip_succeeded`): nothing to do, recorded. */
  | { kind: 'skip_succeeded'; runId: string }
  /** A run of it is in flight (the schedule's, another backfill's): that run is the occurrence's. */
  | { kind: 'join'; runId: string }
  /** No run holds it: the backfill opens the occurrence's own run (named after the occurrence). */
  | { kind: 'open' }
  /** Its runs ended without success (or `skip_succeeded` is off): a re-run of the newest one. */
  | { kind: 'rerun'; of: string };

/**
 * The rule per occurrence (docs/schedules.md → Backfill): one occurrence never has two runs in
 * flight, a succeeded one is not run again unless asked, a failed one is run again.
 */
export function decideOccurrence(
  runs: ReadonlyArray<{ id: string; status: string }>,
  skipSucceeded: boolean,
): OccurrenceAction {
  const inFlight = runs.find((run) => run.status === 'running' || run.status === 'deferred');
  if (inFlight) {
    return { kind: 'join', runId: inFlight.id };
  }
  const succeeded = runs.find((run) => run.status === 'succeeded');
  if (succeeded && skipSucceeded) {
    return { kind: 'skip_succeeded', runId: succeeded.id };
  }
  return runs.length === 0 ? { kind: 'open' } : { kind: 'rerun', of: runs[0].id };
}

/** What the Temporal Web UI shows of a backfill (its workflow's summary). */
export function backfillSummary(backfill: {
  jobName: string;
  occurrences: number;
  firstAt: Date | null;
  lastAt: Date | null;
  mode: string;
  maxRuns: number;
}): string {
  const range =
    backfill.firstAt && backfill.lastAt
      ? `${backfill.firstAt.toISOString()} → ${backfill.lastAt.toISOString()}`
      : 'no occurrence';
  const mode = backfill.mode === 'parallel' ? `parallel ×${backfill.maxRuns}` : 'sequential';
  return `backfill ${backfill.jobName} · ${backfill.occurrences} occurrences · ${range} · ${mode}`;
}

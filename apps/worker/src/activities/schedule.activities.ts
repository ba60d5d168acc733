import { compileJobSchedule } from '@svc/orchestration';
import type { OccurrencePlan, PlanOccurrencesInput, ScheduleActivities } from '@svc/workflows/activity-types';
import type { ScheduleSnapshot } from '@svc/workflows/definitions';

/** Occurrences examined per plan at most; a longer backlog continues in the next plan. */
const MAX_SCANNED = 100_000;
const CHUNK = 500;

/**
 * Schedule math for the job workflow, run as a local activity so time-zone data of the worker
 * host is recorded in history rather than re-evaluated on replay (style.md rule 13).
 */
export function createScheduleActivities(): ScheduleActivities {
  return {
    async planOccurrences(input: PlanOccurrencesInput): Promise<OccurrencePlan> {
      return planOccurrences(input);
    },
  };
}

/**
 * Splits the occurrences in (after, now] into on-time ones (within the misfire threshold) and
 * missed ones (only the latest `maxCatchUp` kept), and finds the first one after `now`.
 */
export function planOccurrences(input: PlanOccurrencesInput): OccurrencePlan {
  const compiled = compileJobSchedule(input.schedule);
  if (!compiled.ok) {
    return {
      onTime: [],
      missed: [],
      missedTotal: 0,
      next: null,
      scannedUntil: input.after,
      ended: false,
      error: compiled.errors[0]?.message ?? 'invalid schedule',
    };
  }
  const now = Date.parse(input.now);
  const cutoff = now - input.misfireThresholdMs;
  const onTime: string[] = [];
  const missed: string[] = [];
  let missedTotal = 0;
  let cursor = new Date(input.after);
  let scanned = 0;
  while (scanned < MAX_SCANNED) {
    const chunk = compiled.schedule.next(cursor, CHUNK);
    if (chunk.length === 0) {
      return { onTime, missed, missedTotal, next: null, scannedUntil: maxIso(cursor, input.now), ended: true };
    }
    for (const at of chunk) {
      const t = at.getTime();
      if (t > now) {
        return {
          onTime,
          missed,
          missedTotal,
          next: at.toISOString(),
          scannedUntil: lastOr(onTime, missed, input),
          ended: false,
        };
      }
      if (t <= cutoff) {
        missedTotal += 1;
        missed.push(at.toISOString());
        if (missed.length > input.maxCatchUp) {
          missed.shift();
        }
      } else {
        onTime.push(at.toISOString());
      }
    }
    scanned += chunk.length;
    cursor = chunk[chunk.length - 1];
  }
  return { onTime, missed, missedTotal, next: null, scannedUntil: cursor.toISOString(), ended: false };
}

/**
 * The occurrences strictly between `after` and `before` (ISO, ascending), at most `limit`: the
 * missed occurrences a `fire_all` catch-up does not deliver, recorded as skipped misfires.
 */
export function occurrencesBetween(schedule: ScheduleSnapshot, after: string, before: string, limit: number): string[] {
  const compiled = compileJobSchedule(schedule);
  if (!compiled.ok) {
    return [];
  }
  const end = Date.parse(before);
  const found: string[] = [];
  let cursor = new Date(after);
  while (found.length < limit) {
    const chunk = compiled.schedule.next(cursor, CHUNK);
    for (const at of chunk) {
      if (at.getTime() >= end || found.length >= limit) {
        return found;
      }
      found.push(at.toISOString());
    }
    if (chunk.length < CHUNK) {
      return found;
    }
    cursor = chunk[chunk.length - 1];
  }
  return found;
}

function lastOr(onTime: string[], missed: string[], input: PlanOccurrencesInput): string {
  if (onTime.length > 0) {
    return onTime[onTime.length - 1];
  }
  if (missed.length > 0) {
    return missed[missed.length - 1];
  }
  return input.after;
}

function maxIso(a: Date, b: string): string {
  return a.getTime() > Date.parse(b) ? a.toISOString() : b;
}

/**
 * Exceptions to a schedule's series: instants that are not occurrences (RRULE `EXDATE`),
 * whole days in the schedule's zone that have none (`EXDATE;VALUE=DATE`, workspace calendars given
 * as data), and extra instants (RRULE `RDATE`). RFC 5545 → Recurrence set: the set is the rule's
 * instances plus the RDATEs, less the EXDATEs; a COUNT counts the rule's instances before
 * exclusion. Pure: calendars arrive as dates, never read here.
 */
import type { Budget, CompiledSchedule } from './types';
import { DAY_MS } from './civil';
import { instantToWall, rfc5545WallToInstant, type ZoneOffsets } from './tz';

export interface OccurrenceExceptions {
  /** Instants (epoch ms) that are not occurrences. */
  excludedInstants: ReadonlySet<number>;
  /** Days (days since the epoch of the wall calendar in the schedule's zone) without any occurrence. */
  excludedDays: ReadonlySet<number>;
  /** Instants (epoch ms) that are occurrences besides the schedule's own, ascending, no duplicates. */
  added: readonly number[];
}

export const NO_EXCEPTIONS: OccurrenceExceptions = { excludedInstants: new Set(), excludedDays: new Set(), added: [] };

/** True when `exceptions` change nothing. */
export function isEmpty(exceptions: OccurrenceExceptions): boolean {
  return exceptions.excludedInstants.size === 0 && exceptions.excludedDays.size === 0 && exceptions.added.length === 0;
}

/** The wall-calendar day of `instant` in `zone` (days since 1970-01-01). */
export function wallDay(zone: ZoneOffsets, instant: number): number {
  return Math.floor(instantToWall(zone, instant) / DAY_MS);
}

/** Merges two sets of exceptions (a rule's own and the calendars excluded from it). */
export function mergeExceptions(a: OccurrenceExceptions, b: OccurrenceExceptions): OccurrenceExceptions {
  return {
    excludedInstants: new Set([...a.excludedInstants, ...b.excludedInstants]),
    excludedDays: new Set([...a.excludedDays, ...b.excludedDays]),
    added: [...new Set([...a.added, ...b.added])].sort((x, y) => x - y),
  };
}

const FIRST_BATCH = 16;
const MAX_BATCH = 4_096;

/**
 * `schedule` with `exceptions` applied; the same schedule when there are none. `next(after, n)`
 * keeps its contract (strictly after `after`, ascending, at most `n`, the budget checked per batch):
 * the schedule's own fire times are read in growing batches until `n` survive the exclusions (the
 * exclusions are finite, so this ends), then merged with the added instants.
 */
export function withExceptions(
  schedule: CompiledSchedule,
  exceptions: OccurrenceExceptions,
  zone: ZoneOffsets,
): CompiledSchedule {
  if (isEmpty(exceptions)) {
    return schedule;
  }
  const { excludedInstants, excludedDays, added } = exceptions;
  const excluded = (t: number): boolean =>
    excludedInstants.has(t) || (excludedDays.size > 0 && excludedDays.has(wallDay(zone, t)));
  /** The last millisecond of a wall day in the zone (its next midnight, as RFC 5545 resolves it, less 1). */
  const dayEnd = (day: number): number => rfc5545WallToInstant(zone, (day + 1) * DAY_MS) - 1;
  const inner = (afterMs: number, n: number, budget?: Budget): number[] =>
    schedule.nextTimes
      ? schedule.nextTimes(afterMs, n, budget)
      : schedule.next(new Date(afterMs), n, budget).map((d) => d.getTime());

  function fireTimes(afterMs: number, n: number, budget?: Budget): number[] {
    const want = Math.max(0, Math.floor(n));
    if (want === 0) {
      return [];
    }
    const kept: number[] = [];
    let cursor = afterMs;
    let batch = Math.max(want, FIRST_BATCH);
    for (;;) {
      budget?.check();
      const times = inner(cursor, batch, budget);
      let next = times.length > 0 ? times[times.length - 1]! : cursor;
      for (const t of times) {
        if (excludedDays.size > 0 && excludedDays.has(wallDay(zone, t))) {
          // A sub-daily schedule on an excluded day: go on from the day's end, not through it.
          next = Math.max(t, dayEnd(wallDay(zone, t)));
          break;
        }
        if (!excludedInstants.has(t)) {
          kept.push(t);
          if (kept.length >= want) {
            break;
          }
        }
      }
      if (kept.length >= want || (times.length < batch && next === times[times.length - 1])) {
        break;
      }
      if (times.length === 0) {
        break;
      }
      cursor = next;
      batch = Math.min(batch * 2, MAX_BATCH);
    }
    if (added.length === 0) {
      return kept;
    }
    const extra = added.filter((t) => t > afterMs && !excluded(t)).slice(0, want);
    return [...new Set([...kept, ...extra])].sort((a, b) => a - b).slice(0, want);
  }

  return {
    ...schedule,
    oneOff: schedule.oneOff && added.length === 0,
    // Removing occurrences only widens gaps; an added one can fall anywhere.
    minGapLowerBoundMs: added.length === 0 ? schedule.minGapLowerBoundMs : undefined,
    equivalentAfter: schedule.equivalentAfter
      ? (afterMs: number): number | null => {
          const a2 = (schedule.equivalentAfter as (x: number) => number | null)(afterMs);
          // An added instant between `after` and `a2` belongs to one answer and not the other.
          return a2 === null || added.some((t) => t > afterMs && t <= a2) ? null : a2;
        }
      : undefined,
    next: (after: Date, n: number, budget?: Budget): Date[] =>
      fireTimes(after.getTime(), n, budget).map((t) => new Date(t)),
    nextTimes: fireTimes,
  };
}

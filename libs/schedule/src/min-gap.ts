/**
 * A proven lower bound on the gap between successive fire times of a field-based schedule (cron,
 * Quartz), from its second, minute and hour sets alone, so the minimum-gap check can skip sampling
 * 101 fire times when no gap can be short enough to fail it (validate.ts). Same answers, less work.
 *
 * Why it holds: every fire time's wall time is in the field sets (Quartz and the cron evaluator
 * only return matching wall times), so two distinct fire walls are at least G apart, G being the
 * smallest distance between two allowed values of the finest field with more than one value, on
 * its cycle (`0,30` seconds: 30 s; minutes `*\/5`: 5 min; hours `9,17`: 8 h; one value in each: a
 * day). The instants of two wall times differ from the wall distance by the zone's offset change
 * between them, which is below 3 hours for every real transition; in UTC it is zero.
 */
const SECOND_MS = 1000;
const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** Larger than any offset change of a real zone (DST moves 1 h, at most 2 h historically). */
export const MAX_OFFSET_CHANGE_MS = 3 * HOUR_MS;

/**
 * Smallest distance between two distinct values on a cycle of `size` (`[0, 30]` on 60 → 30;
 * `[5, 55]` on 60 → 10), or `size` when fewer than two values lie in `[0, size)`.
 */
export function cyclicMinDistance(values: readonly number[], size: number): number {
  // presence bits (size <= 64), without sorting or a Set: this runs on every compile
  let low = 0;
  let high = 0;
  for (const x of values) {
    if (x >= 0 && x < size) {
      if (x < 32) {
        low |= 1 << x;
      } else {
        high |= 1 << (x - 32);
      }
    }
  }
  let first = -1;
  let prev = -1;
  let min = size;
  for (let i = 0; i < size; i++) {
    if (((i < 32 ? low >>> i : high >>> (i - 32)) & 1) === 0) {
      continue;
    }
    if (first < 0) {
      first = i;
    } else {
      min = Math.min(min, i - prev);
    }
    prev = i;
  }
  return first < 0 || first === prev ? size : Math.min(min, size - prev + first);
}

/**
 * Lower bound in ms on the gap between successive fire times (0 when nothing useful can be said).
 * `seconds`, `minutes`, `hours`: the allowed values (markers outside the range are ignored).
 */
export function fieldGapLowerBound(
  seconds: readonly number[],
  minutes: readonly number[],
  hours: readonly number[],
  utc: boolean,
): number {
  const s = cyclicMinDistance(seconds, 60);
  const m = cyclicMinDistance(minutes, 60);
  const h = cyclicMinDistance(hours, 24);
  const wall = s < 60 ? s * SECOND_MS : m < 60 ? m * MINUTE_MS : h < 24 ? h * HOUR_MS : DAY_MS;
  return Math.max(0, wall - (utc ? 0 : MAX_OFFSET_CHANGE_MS));
}

/** Indices of the set entries of a boolean table (`[false, true, true]` → `[1, 2]`). */
export function allowedValues(table: readonly boolean[]): number[] {
  const out: number[] = [];
  table.forEach((on, i) => {
    if (on) {
      out.push(i);
    }
  });
  return out;
}

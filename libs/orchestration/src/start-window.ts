/**
 * Spread windows: a job with `start_window` fires each occurrence at a fixed offset
 * inside that window after its nominal time, so jobs aligned on one instant (`0 * * * *`) leave
 * spread over the window instead of at once. Pure: the API computes the offset for responses and
 * the job snapshot carries it to the workflow, which never hashes anything itself.
 */

/**
 * The job's offset in `[0, windowMs)`, derived from its id alone: the same on every occurrence,
 * across restarts and workers, and spread evenly over the window across jobs. 0 without a window.
 */
export function startOffsetMs(jobId: string, windowMs: number | null | undefined): number {
  if (!windowMs || windowMs <= 0) {
    return 0;
  }
  return Math.floor(windowPosition(jobId) * windowMs);
}

/**
 * A job's place in [0, 1): FNV-1a of its id, then murmur3's finalizer so that ids differing only in
 * their last characters (ULIDs minted together) still land far apart. Not the burst position of
 * prepare-lead.ts: a job's offset and the lead it is prepared with stay independent.
 */
export function windowPosition(jobId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < jobId.length; i++) {
    hash ^= jobId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return (hash >>> 0) / 2 ** 32;
}

/**
 * The shortest gap between successive fire times (ascending), or null with fewer than two: the
 * job's interval, which a start window may not exceed (a longer one could reorder occurrences).
 */
export function shortestGapMs(fireTimes: readonly Date[]): number | null {
  let min: number | null = null;
  for (let i = 1; i < fireTimes.length; i++) {
    const gap = fireTimes[i].getTime() - fireTimes[i - 1].getTime();
    min = min === null ? gap : Math.min(min, gap);
  }
  return min;
}

/**
 * Whether idle jobs park now (`worker.park_above_jobs`): only while the deployment holds
 * more jobs than the threshold. Below it every job sleeps in the worker's cache, a bounded few
 * dozen MiB, and keeps the Web UI summary a parked run (a continued run) cannot have; above it the
 * memory of idle jobs is what matters. The answer is recorded in the plan (a local activity), so
 * replay never asks again.
 *
 * A "park" is kept for `maxAgeMs`: a job that parks a little longer than needed costs nothing. A
 * "do not park" is kept only for as many plans as the jobs left below the threshold (the
 * headroom), then read again, at most once per `minAgeMs`: each plan may be a new job's first,
 * and a job cached by a stale "no" stays in memory until its next wake, a day later for a daily
 * job. So creating 10,000 jobs in a minute caches about the threshold's worth (plus what is
 * created within `minAgeMs`), not all of them; and a burst of plans at the threshold costs one
 * count a second. A failed read keeps the last answer (or "do not park"), since parking is an
 * optimisation and a plan must not fail for it.
 */
export function parkAboveJobs(opts: {
  threshold: number;
  countJobs: () => Promise<number>;
  now: () => number;
  maxAgeMs?: number;
  minAgeMs?: number;
  warn?: (message: string) => void;
}): () => Promise<boolean> {
  if (opts.threshold === 0) {
    return async () => true;
  }
  const maxAgeMs = opts.maxAgeMs ?? 60_000;
  const minAgeMs = opts.minAgeMs ?? 1_000;
  let answer = false;
  /** "Do not park" answers left before the count may have crossed the threshold. */
  let headroom = 0;
  let readAt = Number.NEGATIVE_INFINITY;
  let reading: Promise<boolean> | null = null;
  /** Plans waiting on the read in flight: each one's answer spends headroom. */
  let askers = 0;
  return async () => {
    const age = opts.now() - readAt;
    if (reading === null && age < maxAgeMs && (answer || headroom > 0 || age < minAgeMs)) {
      headroom -= answer ? 0 : 1;
      return answer;
    }
    if (reading === null) {
      askers = 0;
      reading = opts
        .countJobs()
        .then((count) => {
          answer = count > opts.threshold;
          headroom = opts.threshold - count - askers;
          return answer;
        })
        .catch((err: unknown) => {
          opts.warn?.(
            `could not count jobs for worker.park_above_jobs, keeping "${answer ? 'park' : 'do not park'}": ${(err as Error).message}`,
          );
          return answer;
        })
        .finally(() => {
          readAt = opts.now();
          reading = null;
        });
    }
    askers += 1;
    return reading;
  };
}

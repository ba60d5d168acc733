/**
 * Whether idle jobs park now (issue 25, `worker.park_above_jobs`): only while the deployment holds
 * more jobs than the threshold. Below it every job sleeps in the worker's cache, a bounded few
 * dozen MiB, and keeps the Web UI summary a parked run (a continued run) cannot have; above it the
 * memory of idle jobs is what matters. The answer is recorded in the plan (a local activity), so
 * replay never asks again.
 *
 * The count is read at most once per `maxAgeMs`, so a burst of plans costs one query; a failed read
 * keeps the last answer (or "do not park"), since parking is an optimisation and a plan must not
 * fail for it.
 */
export function parkAboveJobs(opts: {
  threshold: number;
  countJobs: () => Promise<number>;
  now: () => number;
  maxAgeMs?: number;
  warn?: (message: string) => void;
}): () => Promise<boolean> {
  if (opts.threshold === 0) {
    return async () => true;
  }
  const maxAgeMs = opts.maxAgeMs ?? 60_000;
  let answer = false;
  let readAt = Number.NEGATIVE_INFINITY;
  let reading: Promise<boolean> | null = null;
  return async () => {
    if (opts.now() - readAt < maxAgeMs) {
      return answer;
    }
    reading ??= opts
      .countJobs()
      .then((count) => {
        answer = count > opts.threshold;
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
    return reading;
  };
}

import type { State } from '@temporalio/worker';

/** How often a running worker's state is looked at (a failure is noticed within this). */
export const WORKER_STATE_CHECK_MS = 1_000;

/**
 * Calls `onFailed` once the worker's state becomes `FAILED`, without waiting for its `run()` to
 * settle: after the SDK gives a worker up it still finalizes its shutdown in sdk-core before
 * `run()` rejects, and with the namespace gone that step can hang for minutes (seen in CI), which
 * would leave the process half running. Returns a function that stops watching.
 */
export function watchWorkerFailure(
  worker: { getState(): State },
  onFailed: () => void,
  everyMs = WORKER_STATE_CHECK_MS,
): () => void {
  const timer = setInterval(() => {
    if (worker.getState() === 'FAILED') {
      clearInterval(timer);
      onFailed();
    }
  }, everyMs);
  // The watch alone never keeps the process alive.
  timer.unref();
  return () => clearInterval(timer);
}

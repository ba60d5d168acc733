/** The timed loop of the CPU benches: calls in batches of 20 until the time is up. */

/** Calls `fn` in batches of 20 until `ms` have passed (checked between batches): the calls made and the ms they took. */
export function callFor(fn: () => void, ms: number): { calls: number; elapsedMs: number } {
  let calls = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    for (let i = 0; i < 20; i++) {
      fn();
    }
    calls += 20;
    now = performance.now();
  }
  return { calls, elapsedMs: now - start };
}

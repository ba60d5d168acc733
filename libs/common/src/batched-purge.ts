/** How a purge is cut into statements. */
export interface BatchedPurgeOptions {
  /** Rows one statement removes at most: short transactions, however large the backlog. */
  batch: number;
  /** Statements at most (the next call continues); without it, until none is left. */
  maxBatches?: number;
  /** Awaited before each statement, with its index (0 for the first): a purge may yield I/O to the live path. */
  beforeBatch?: (index: number) => Promise<void>;
}

export interface BatchedPurgeResult {
  /** Rows removed (or cleared) by all statements. */
  count: number;
  /** Statements run. */
  batches: number;
  /** True when it stopped at `maxBatches` with rows possibly left for the next call. */
  truncated: boolean;
}

/**
 * The purge loop of every retention (audit entries, alert events, runs, response bodies): runs
 * `purgeBatch(batch)` (one statement removing at most `batch` rows, returning how many it did)
 * until a statement removes fewer than `batch` (nothing left) or `maxBatches` statements ran.
 */
export async function purgeInBatches(
  purgeBatch: (batch: number) => Promise<number>,
  options: BatchedPurgeOptions,
): Promise<BatchedPurgeResult> {
  const { batch, maxBatches = Infinity, beforeBatch } = options;
  let count = 0;
  for (let batches = 0; ;) {
    if (batches >= maxBatches) {
      return { count, batches, truncated: true };
    }
    await beforeBatch?.(batches);
    const removed = await purgeBatch(batch);
    batches += 1;
    count += removed;
    if (removed < batch) {
      return { count, batches, truncated: false };
    }
  }
}

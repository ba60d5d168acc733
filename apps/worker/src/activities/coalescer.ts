/**
 * Coalesces the calls made in one turn of the event loop into one call of `flush`.
 * The attempts of a burst are released by timers of the same millisecond; one by one, their reads
 * and writes would queue thousands of round trips on the worker's database pool in the very second
 * their requests should leave. A failed flush fails every call of its batch (each activity then
 * retries on its own, as after any database error).
 */
export class Coalescer<T, R> {
  private queue: Array<{ item: T; resolve: (result: R) => void; reject: (err: unknown) => void }> = [];

  constructor(
    /** Answers `items` in order. */
    private readonly flush: (items: T[]) => Promise<R[]>,
    private readonly maxBatch = 500,
  ) {}

  call(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (this.queue.length === 1) {
        // After the timers phase that released the others of this instant.
        setImmediate(() => this.drain());
      }
    });
  }

  private drain(): void {
    const batch = this.queue;
    this.queue = [];
    for (let i = 0; i < batch.length; i += this.maxBatch) {
      const part = batch.slice(i, i + this.maxBatch);
      this.flush(part.map((entry) => entry.item)).then(
        (results) => part.forEach((entry, j) => entry.resolve(results[j]!)),
        (err: unknown) => part.forEach((entry) => entry.reject(err)),
      );
    }
  }
}

/** A coalesced lookup by id: one query for the batch, `null` for an id it did not find. */
export function byIdLoader<V extends { id: string }>(
  find: (ids: string[]) => Promise<V[]>,
): Coalescer<string, V | null> {
  return new Coalescer<string, V | null>(async (ids) => {
    const found = new Map((await find([...new Set(ids)])).map((row) => [row.id, row]));
    return ids.map((id) => found.get(id) ?? null);
  });
}

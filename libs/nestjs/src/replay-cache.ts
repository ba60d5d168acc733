/**
 * The deliveries this replica has handled or is handling, by `webhook-id` (the run id): a replayed
 * request of a run already handled here is answered from memory, one still running joins it.
 * Bounded (least recently used out). Per replica and per process: the service's own
 * once-per-occurrence is the main guarantee; this covers a redelivery that lands on the same
 * replica (a replayed request, a crash before the response was recorded in fast mode).
 */
export class ReplayCache<T> {
  private readonly entries = new Map<string, Promise<T>>();

  constructor(private readonly capacity: number) {}

  get(id: string): Promise<T> | undefined {
    const entry = this.entries.get(id);
    if (entry !== undefined) {
      // Map keeps insertion order: re-inserting makes it the most recent.
      this.entries.delete(id);
      this.entries.set(id, entry);
    }
    return entry;
  }

  set(id: string, value: Promise<T>): void {
    this.entries.delete(id);
    this.entries.set(id, value);
    while (this.entries.size > this.capacity) {
      this.entries.delete(this.entries.keys().next().value as string);
    }
  }

  delete(id: string): void {
    this.entries.delete(id);
  }

  get size(): number {
    return this.entries.size;
  }
}

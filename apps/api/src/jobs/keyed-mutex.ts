/**
 * One holder per key in this process, the others queued in memory (FIFO). An apply waits here
 * before it asks PostgreSQL for its advisory lock, so the applies of one owner queued in this
 * process hold no database connection while they wait: ten at once cannot take the whole pool
 * and starve the one holding the lock (docs/architecture.md → Jobs as code).
 */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    this.tails.set(key, tail);
    await previous;
    try {
      return await work();
    } finally {
      release();
      if (this.tails.get(key) === tail) {
        this.tails.delete(key);
      }
    }
  }
}

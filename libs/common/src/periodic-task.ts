/** How a periodic task runs; every time is in milliseconds. */
export interface PeriodicTaskOptions<T> {
  /** Time between two ticks. A tick while a pass is in flight is skipped, never queued. */
  intervalMs: number;
  /** When set, one extra tick this long after `start()` (0: at once), off the start-up path. */
  firstDelayMs?: number;
  /** One pass; `now` is when it started. */
  pass: (now: Date) => Promise<T>;
  /** A pass a tick started failed; the task goes on at the next tick. */
  onError: (err: unknown) => void;
}

/**
 * A pass repeated on a timer, shared by the API's retention purges and the worker's passes
 * (reconciler, sweeps, health probe). Passes never overlap: a tick or `runNow` while one is in
 * flight is skipped. The timers are unref'd, so they never keep the process alive. `stop()`
 * clears them and resolves once the pass in flight has settled: the apps call it from Nest's
 * `beforeApplicationShutdown` and await it in `onApplicationShutdown`, so no pass outlives the
 * connections it uses. No jitter: every process runs its passes on its own start-up's phase.
 */
export class PeriodicTask<T = void> {
  private first?: NodeJS.Timeout;
  private interval?: NodeJS.Timeout;
  /** The pass in flight, settled (never rejects); null when idle. */
  private inFlight: Promise<void> | null = null;
  private stopped = false;
  private stopping?: Promise<void>;

  constructor(private readonly options: PeriodicTaskOptions<T>) {}

  /** Starts the timers; a no-op once started or stopped. */
  start(): void {
    if (this.interval !== undefined || this.stopped) {
      return;
    }
    const tick = (): void => {
      this.runNow()?.catch(this.options.onError);
    };
    if (this.options.firstDelayMs !== undefined) {
      this.first = setTimeout(tick, this.options.firstDelayMs).unref();
    }
    this.interval = setInterval(tick, this.options.intervalMs).unref();
  }

  /** Whether a pass is in flight. */
  get running(): boolean {
    return this.inFlight !== null;
  }

  /**
   * Runs a pass now and answers its result; null, and nothing runs, while a pass is in flight
   * or once the task is stopped. The caller handles the pass's failure.
   */
  runNow(now: Date = new Date()): Promise<T> | null {
    if (this.inFlight !== null || this.stopped) {
      return null;
    }
    let settled!: () => void;
    this.inFlight = new Promise<void>((resolve) => (settled = resolve));
    return (async () => {
      try {
        return await this.options.pass(now);
      } finally {
        this.inFlight = null;
        settled();
      }
    })();
  }

  /** Stops the timers (no pass starts after this) and resolves once the pass in flight has settled. */
  stop(): Promise<void> {
    if (this.stopping === undefined) {
      this.stopped = true;
      clearTimeout(this.first);
      clearInterval(this.interval);
      this.stopping = this.inFlight ?? Promise.resolve();
    }
    return this.stopping;
  }
}

/** How long shutdown waits for follow-up attempts still in flight. */
const DRAIN_MS = 5_000;

/** How a failed follow-up is tried again (docs/operations.md → Faults). */
export interface FollowUpRetry {
  /** Wait after the first failure, doubled after each further one … */
  initialDelayMs: number;
  /** … up to this. */
  maxDelayMs: number;
  /** No retry starts later than this after the first try; the reconciler repairs the rest. */
  giveUpAfterMs: number;
}

/** 1 s doubling to 30 s, for up to 10 minutes (about 24 tries). */
export const FOLLOW_UP_RETRY: FollowUpRetry = { initialDelayMs: 1_000, maxDelayMs: 30_000, giveUpAfterMs: 600_000 };

/** Where follow-ups report (the API passes its Nest logger); any line may be left out. */
export interface FollowUpLog {
  log?(message: string): void;
  warn?(message: string): void;
  debug?(message: string): void;
  error?(message: string): void;
}

export interface RunOptions {
  /** Work on one job (its id): runs after the earlier work under the key, and supersedes it. */
  key?: string;
  /** The caller made the first try itself, and it failed: start with the first retry's wait. */
  alreadyTried?: boolean;
}

interface Task {
  readonly label: string;
  /** Later work under the same key was queued: no further try of this one. */
  superseded: boolean;
  /** Ends the current wait between tries at once (superseded, shutdown). */
  wake: (() => void) | null;
  done: Promise<void>;
}

/**
 * Temporal follow-ups of committed job changes (`JobLifecycle` sends every one through here):
 * PostgreSQL already holds the outcome and the worker re-reads it (an attempt of a job that is
 * gone sends nothing), so a caller waits at most for the first try (`runAwaitingFirstTry`, for a
 * change in force when the request answers) or not at all (`run`). A failure (Temporal
 * unreachable, overloaded) is tried again with capped exponential backoff (`FOLLOW_UP_RETRY`), so
 * a short outage is repaired within seconds of its end instead of at the reconciler's next pass. Work under one key runs in
 * the order it was asked for, each making its first try; only the newest work of a key retries:
 * an earlier one stops at its next failure (a wait between its tries ends at once), because the
 * newer one carries the job's whole state (the job as it now is, or its deletion). Retrying
 * stops for good after `giveUpAfterMs` and once shutdown begins; the reconciler repairs whatever
 * is left. Shutdown drains only the tries in flight and first tries, not the retry window. A wait
 * between tries never holds a process open (a worker that ends without draining just stops).
 */
export class BackgroundWork {
  private readonly tasks = new Set<Task>();
  /** The newest task per key. */
  private readonly tails = new Map<string, Task>();
  private stopping = false;

  constructor(
    private readonly retry: FollowUpRetry = FOLLOW_UP_RETRY,
    private readonly logger: FollowUpLog = {},
  ) {}

  /**
   * Runs `work` (given its try number, 0 first) after the work already queued under `options.key`
   * has settled, and again on failure, as the class describes. Never throws; failures are logged.
   */
  run(label: string, work: (attempt: number) => Promise<void>, options: RunOptions = {}): void {
    this.enqueue(label, work, options);
  }

  /**
   * The same as `run`, but resolves once the first try has settled, with whether it succeeded:
   * for a change that should be in force when the request answers. A failed first try is retried
   * in the background like any other; this never throws.
   */
  async runAwaitingFirstTry(
    label: string,
    work: (attempt: number) => Promise<void>,
    options: Omit<RunOptions, 'alreadyTried'> = {},
  ): Promise<boolean> {
    let settle!: (succeeded: boolean) => void;
    const firstTry = new Promise<boolean>((resolve) => (settle = resolve));
    const task = this.enqueue(
      label,
      async (attempt) => {
        if (attempt > 0) {
          return work(attempt);
        }
        try {
          await work(attempt);
          settle(true);
        } catch (err) {
          settle(false);
          throw err;
        }
      },
      options,
    );
    // Settled anyway if the first try never ran (an earlier task's chain failed unexpectedly).
    void task.done.then(() => settle(false));
    return firstTry;
  }

  private enqueue(label: string, work: (attempt: number) => Promise<void>, options: RunOptions): Task {
    const { key } = options;
    const before = key ? this.tails.get(key) : undefined;
    if (before) {
      before.superseded = true;
      before.wake?.();
    }
    const task: Task = { label, superseded: false, wake: null, done: Promise.resolve() };
    task.done = (before?.done ?? Promise.resolve())
      .then(() => this.tries(task, work, options.alreadyTried ?? false))
      .catch((err: unknown) => this.logger.error?.(`${label}: ${messageOf(err)}`))
      .finally(() => {
        this.tasks.delete(task);
        if (key && this.tails.get(key) === task) {
          this.tails.delete(key);
        }
      });
    this.tasks.add(task);
    if (key) {
      this.tails.set(key, task);
    }
    return task;
  }

  /**
   * Shutdown: no retry starts from now on (waits between tries end at once); resolves when the
   * tries in flight and the first tries of work already asked for have settled, or after
   * `timeoutMs`.
   */
  async drain(timeoutMs = DRAIN_MS): Promise<void> {
    this.stopping = true;
    for (const task of this.tasks) {
      task.wake?.();
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    await Promise.race([Promise.allSettled([...this.tasks].map((task) => task.done)), timeout]);
    clearTimeout(timer);
  }

  private async tries(task: Task, work: (attempt: number) => Promise<void>, alreadyTried: boolean): Promise<void> {
    const started = Date.now();
    let attempt = alreadyTried ? 1 : 0;
    let lastError = alreadyTried ? 'the first try failed' : '';
    for (;;) {
      if (attempt > 0 && !(await this.waitToRetry(task, attempt, lastError, started))) {
        return;
      }
      try {
        await work(attempt);
        if (attempt > 0) {
          this.logger.log?.(`${task.label} succeeded on try ${attempt + 1}`);
        }
        return;
      } catch (err) {
        lastError = messageOf(err);
      }
      attempt += 1;
      if (attempt === 1) {
        const window = Math.round(this.retry.giveUpAfterMs / 1000);
        this.logger.warn?.(`${task.label} failed (${lastError}); retrying for up to ${window} s`);
      } else {
        this.logger.debug?.(`${task.label} failed on try ${attempt} (${lastError})`);
      }
    }
  }

  /** The wait before try `attempt` (1 for the first retry): doubling from the initial delay, capped. */
  private delayBefore(attempt: number): number {
    return Math.min(this.retry.initialDelayMs * 2 ** Math.min(attempt - 1, 30), this.retry.maxDelayMs);
  }

  /** Waits before try `attempt`; false (logged) when it must not happen. */
  private async waitToRetry(task: Task, attempt: number, lastError: string, started: number): Promise<boolean> {
    const delayMs = this.delayBefore(attempt);
    const stop = () => {
      if (task.superseded) {
        this.logger.debug?.(`${task.label} failed (${lastError}); later work on the same job takes over`);
        return true;
      }
      const why = this.stopping
        ? 'shutting down'
        : Date.now() - started + delayMs > this.retry.giveUpAfterMs
          ? `no retry after ${Math.round(this.retry.giveUpAfterMs / 1000)} s`
          : null;
      if (why) {
        this.logger.warn?.(
          `${task.label} failed after ${attempt} tries (${lastError}); ${why}: the reconciler repairs it`,
        );
      }
      return why !== null;
    };
    if (stop()) {
      return false;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(wake, delayMs);
      timer.unref();
      function wake() {
        clearTimeout(timer);
        task.wake = null;
        resolve();
      }
      task.wake = wake;
    });
    if (task.superseded || this.stopping) {
      stop();
      return false;
    }
    return true;
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

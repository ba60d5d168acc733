import { Injectable, Logger } from '@nestjs/common';

/** How long shutdown waits for follow-up work still in flight. */
const DRAIN_MS = 5_000;

/**
 * Temporal follow-ups that a response need not wait for, because PostgreSQL already holds the
 * outcome and the worker re-reads it (e.g. stopping a deleted job's workflows: an attempt of a
 * job that is gone sends nothing). Failures are logged; the reconciler repairs what is left.
 * Shutdown drains them before the Temporal connection closes.
 */
@Injectable()
export class BackgroundWork {
  private readonly logger = new Logger(BackgroundWork.name);
  private readonly pending = new Set<Promise<void>>();
  /** The last task per key: work on one job runs in the order it was asked for. */
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `work` after the work already queued under `key` (e.g. a job id) has settled. */
  run(label: string, work: () => Promise<void>, key?: string): void {
    const before = key ? this.tails.get(key) : undefined;
    const task: Promise<void> = (before ?? Promise.resolve())
      .then(work)
      .catch((err: unknown) => this.logger.warn(`${label} failed; the reconciler will repair it (${String(err)})`))
      .finally(() => {
        this.pending.delete(task);
        if (key && this.tails.get(key) === task) {
          this.tails.delete(key);
        }
      });
    this.pending.add(task);
    if (key) {
      this.tails.set(key, task);
    }
  }

  /** Resolves when the work started so far has settled, or after `timeoutMs`. */
  async drain(timeoutMs = DRAIN_MS): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    await Promise.race([Promise.allSettled([...this.pending]), timeout]);
    clearTimeout(timer);
  }
}

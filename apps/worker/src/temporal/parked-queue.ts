/**
 * The parked queue's worker, started on first need (docs/architecture.md → Idle jobs are
 * parked). Below `worker.park_above_jobs` no job parks, so a deployment there runs no worker on
 * the parked queue, whose workflow thread would cost it about 20 MiB of live heap for nothing. A
 * plan names the parked queue only once `serving()` says a worker polls it; `ParkedJobsWorker` says how
 * to start one (`serveWith`) and starts it at once when parked runs already wait there.
 */
export class ParkedQueue {
  private start?: () => Promise<void>;
  private started?: Promise<boolean>;

  serveWith(start: () => Promise<void>): void {
    this.start = start;
  }

  /**
   * Whether a worker polls the parked queue, starting it if none does yet (once, however many
   * plans ask at the same time). False while it cannot: not registered yet (parking off, or
   * before the other workers run), shutting down, or the start failed (tried again next time).
   */
  serving(): Promise<boolean> {
    if (!this.start) {
      return Promise.resolve(false);
    }
    this.started ??= this.start().then(
      () => true,
      () => {
        this.started = undefined;
        return false;
      },
    );
    return this.started;
  }
}

import { BackgroundWork, FOLLOW_UP_RETRY } from './background-work';
import type { JobLifecycleDeps } from './job-changes';
import { toJobSnapshot } from './job-snapshot';
import type { JobEntity } from '@svc/persistence';

/**
 * Temporal calls in flight at once for changes nobody waits for (`tell(job, 'after')`: creates).
 * An apply of thousands of jobs commits in seconds; its starts then go out this many at a time, not
 * thousands of calls at once, and leave the server room for the jobs' first plans.
 */
export const UNAWAITED_NOTICE_LANES = 32;

/** Tells job workflows of committed changes through one retried follow-up per job, in order. */
export class JobWorkflowNotices {
  /** The retried follow-ups (the API drains its own at shutdown). */
  readonly followUps: BackgroundWork;
  private readonly unawaited = new Lanes(UNAWAITED_NOTICE_LANES);

  constructor(private readonly deps: Pick<JobLifecycleDeps, 'jobs' | 'gateway' | 'config' | 'warn' | 'followUps'>) {
    this.followUps = deps.followUps ?? new BackgroundWork(FOLLOW_UP_RETRY, { warn: deps.warn, error: deps.warn });
  }

  /**
   * Sends the job as it now is, retried with a fresh read of the row; `before` waits for the first
   * try, so a change that returned is in force while Temporal is up, `after` does not wait.
   */
  tell(job: JobEntity, when: 'before'): Promise<void>;
  tell(job: JobEntity, when: 'after'): void;
  tell(job: JobEntity, when: 'before' | 'after'): Promise<void> | void {
    const { jobs, gateway, config } = this.deps;
    const label = `telling the workflow of job ${job.id} (revision ${job.revision})`;
    const work = async (attempt: number) => {
      const current = attempt === 0 ? job : await jobs.getById(job.workspaceId, job.id);
      if (current) {
        await gateway.upsertJob(toJobSnapshot(current, config), { key: current.key });
      }
    };
    if (when === 'after') {
      this.followUps.run(label, (attempt) => this.unawaited.run(() => work(attempt)), { key: job.id });
      return;
    }
    return this.followUps.runAwaitingFirstTry(label, work, { key: job.id }).then(() => undefined);
  }
}

/** At most `size` calls of `run` in flight; the others wait their turn, first come first served. */
export class Lanes {
  private inFlight = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly size: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.inFlight >= this.size) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.inFlight += 1;
    }
    try {
      return await work();
    } finally {
      // The lane passes straight to the next in line, or frees up.
      const next = this.waiting.shift();
      if (next) {
        next();
      } else {
        this.inFlight -= 1;
      }
    }
  }
}

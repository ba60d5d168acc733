import { BackgroundWork, FOLLOW_UP_RETRY } from './background-work';
import type { JobLifecycleDeps } from './job-changes';
import { toJobSnapshot } from './job-snapshot';
import type { JobEntity } from '@svc/persistence';

/** Tells job workflows of committed changes through one retried follow-up per job, in order. */
export class JobWorkflowNotices {
  /** The retried follow-ups (the API drains its own at shutdown). */
  readonly followUps: BackgroundWork;

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
      this.followUps.run(label, work, { key: job.id });
      return;
    }
    return this.followUps.runAwaitingFirstTry(label, work, { key: job.id }).then(() => undefined);
  }
}

import { newId, occurrenceRunId } from '@svc/workflow-contract/ids';
import type {
  BackfillEntity,
  BackfillItemEntity,
  BackfillsRepository,
  JobEntity,
  RunsRepository,
} from '@svc/persistence';
import { backfillConcurrency, decideOccurrence } from './backfill-plan';
import type { JobWorkflowGateway } from './job-workflow.gateway';
import { describeForTemporal } from './temporal-display';

/** Occurrences one step looks at, at most (skipped ones take no room, so a step may pass many). */
const STEP_MAX_ITEMS = 500;

export interface BackfillsDeps {
  backfills: BackfillsRepository;
  runs: Pick<RunsRepository, 'openRuns'>;
  jobs: { findByIdUnscoped(id: string): Promise<JobEntity | null> };
  gateway: Pick<JobWorkflowGateway, 'startRun'>;
  clock?: () => Date;
}

/** Where a backfill stands after a step: `done` once nothing is pending and none of its runs is in flight. */
export interface BackfillStep {
  done: boolean;
  cancelled: boolean;
}

/**
 * Carries out backfills for their workflow's activities. Each step reads the backfill,
 * makes room (one run in `sequential` mode, after the job's own runs when its overlap policy tracks
 * them; `max_runs` in `parallel`) and gives the next pending occurrences their run: the
 * occurrence's own (`occurrenceRunId`, the schedule's unique index: a schedule reaching the same
 * instant writes nothing more), or a re-run of one that ended without success. Every write is
 * idempotent, so a step retried after a crash repeats nothing.
 */
export class Backfills {
  private readonly clock: () => Date;

  constructor(private readonly deps: BackfillsDeps) {
    this.clock = deps.clock ?? (() => new Date());
  }

  async step(backfillId: string): Promise<BackfillStep> {
    const { backfills, jobs } = this.deps;
    const backfill = await backfills.findByIdUnscoped(backfillId);
    if (!backfill || backfill.status !== 'running') {
      return { done: true, cancelled: backfill?.status === 'cancelled' };
    }
    if (backfill.cancelRequestedAt) {
      await backfills.cancelPending(backfillId);
      return { done: true, cancelled: true };
    }
    const job = await jobs.findByIdUnscoped(backfill.jobId);
    if (!job) {
      // A deleted job runs nothing more; what has started ends on its own.
      await backfills.cancelPending(backfillId);
      return { done: true, cancelled: false };
    }
    const progress = await backfills.progress(backfillId);
    if (progress.pending === 0) {
      return { done: progress.running === 0, cancelled: false };
    }
    let room = backfillConcurrency(backfill.mode, backfill.maxRuns) - progress.running;
    if (room > 0 && backfill.mode === 'sequential' && tracksRuns(job)) {
      // The job's overlap policy: a backfill run never overlaps the job's own (it waits, it skips nothing).
      if (await backfills.jobHasOtherRunInFlight(job.workspaceId, job.id, backfillId)) {
        room = 0;
      }
    }
    let looked = 0;
    while (room > 0 && looked < STEP_MAX_ITEMS) {
      const items = await backfills.nextPending(backfillId, Math.min(room, STEP_MAX_ITEMS - looked));
      if (items.length === 0) {
        break;
      }
      for (const item of items) {
        looked += 1;
        if (await this.startItem(backfill, job, item)) {
          room -= 1;
        }
      }
    }
    return { done: false, cancelled: false };
  }

  /** Ends the backfill (`cancelled` when a cancel was recorded). */
  async finish(backfillId: string): Promise<void> {
    await this.deps.backfills.finish(backfillId, 'completed', this.clock());
  }

  /** Gives one occurrence its run, or records it skipped; true when a run of it is now in flight. */
  private async startItem(backfill: BackfillEntity, job: JobEntity, item: BackfillItemEntity): Promise<boolean> {
    const { backfills } = this.deps;
    for (let tries = 0; tries < 2; tries++) {
      const existing = await backfills.occurrenceRuns(job.id, item.scheduledAt);
      const action = decideOccurrence(existing, backfill.skipSucceeded);
      if (action.kind === 'skip_succeeded') {
        await backfills.settleItem(backfill.id, item.seq, 'skipped_succeeded', action.runId);
        return false;
      }
      if (action.kind === 'join') {
        const run = existing.find((r) => r.id === action.runId)!;
        if (run.backfillId === backfill.id) {
          // Opened by this backfill in a step that did not finish: its workflow is started again (a no-op when it runs).
          await this.startWorkflow(backfill, job, run.id, item.scheduledAt, run.retryOf);
        }
        await backfills.settleItem(backfill.id, item.seq, 'started', run.id);
        return true;
      }
      const retryOf = action.kind === 'rerun' ? action.of : null;
      const now = this.clock();
      const id = retryOf ? newId('run', now.getTime()) : occurrenceRunId(job.id, item.scheduledAt.getTime());
      const [opened] = await this.deps.runs.openRuns(
        [
          {
            id,
            workspaceId: job.workspaceId,
            jobId: job.id,
            jobVersion: job.version,
            scheduledAt: item.scheduledAt,
            // Planned for when the backfill opens it: lateness, start lag, e2e time and the SLA
            // are measured from here, not from an occurrence that is days old on purpose.
            plannedAt: now,
            trigger: 'backfill',
            status: 'running',
            retryOf,
            overrides: backfill.overrides,
            backfillId: backfill.id,
          },
        ],
        now,
      );
      if (!opened.inserted) {
        // Another path reached the occurrence first (the schedule at the same instant, another
        // backfill): look again and join it, or skip it.
        continue;
      }
      await this.startWorkflow(backfill, job, id, item.scheduledAt, retryOf);
      await backfills.settleItem(backfill.id, item.seq, 'started', id);
      return true;
    }
    // Still contended: left pending for the next step.
    return false;
  }

  private async startWorkflow(
    backfill: BackfillEntity,
    job: JobEntity,
    runId: string,
    scheduledAt: Date,
    retryOf: string | null,
  ): Promise<void> {
    await this.deps.gateway.startRun({
      runId,
      jobId: job.id,
      workspaceId: job.workspaceId,
      jobVersion: job.version,
      scheduledAt: scheduledAt.toISOString(),
      trigger: 'backfill',
      ...(retryOf ? { retryOf } : {}),
      display: describeForTemporal(job),
      // A job workflow that tracks its runs may have met this occurrence too and track this run:
      // it hears when it ends (an untracked id is ignored there).
      ...(tracksRuns(job) ? { notifyJob: true } : {}),
    });
  }
}

/** Whether the job's workflow tracks its runs (an overlap policy other than `allow`, or a concurrency cap). */
function tracksRuns(job: Pick<JobEntity, 'overlapPolicy' | 'maxConcurrentRuns'>): boolean {
  return (job.overlapPolicy ?? 'allow') !== 'allow' || job.maxConcurrentRuns !== null;
}

import { Injectable } from '@nestjs/common';
import { NotFoundError, ValidationFailedError } from '@svc/common';
import { AuditRepository, CalendarsRepository, type JobEntity, JobsRepository, Transactions } from '@svc/persistence';
import { nextFireTimes, usesCalendars } from '@svc/orchestration';
import type { AuthContext } from '../../auth/auth.decorators';
import { upcomingSkips, type OccurrenceSkipResponse } from './occurrence-skips.mapper';

/** Upcoming skips one job may hold at once. */
export const MAX_UPCOMING_SKIPS = 100;
/** Marks of instants older than this are dropped at the next skip: their runs were claimed long ago. */
const PRUNE_AFTER_MS = 7 * 86_400_000;

/**
 * Skip one upcoming occurrence of a job, or undo it. The mark is stored on the job row
 * (`occurrence_skips`); the job workflow is not told: the attempt's claim reads the row at the
 * instant and closes the occurrence's run `skipped` (`occurrence_skipped`) with the note, whether
 * the run was opened ahead, the job parked or the occurrence queued (run-rules.ts).
 */
@Injectable()
export class OccurrenceSkipsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly jobs: JobsRepository,
    private readonly audit: AuditRepository,
    private readonly calendars: CalendarsRepository,
  ) {}

  async skip(auth: AuthContext, jobId: string, at: Date, note: string): Promise<OccurrenceSkipResponse> {
    const now = new Date();
    const job = await this.require(auth.workspaceId, jobId);
    const key = await this.checkUpcomingOccurrence(job, at, now);
    const skips = upcomingSkips(job, now);
    if (skips.length >= MAX_UPCOMING_SKIPS && !skips.some((skip) => skip.at === key)) {
      throw new ValidationFailedError({
        at: `the job already skips ${MAX_UPCOMING_SKIPS} upcoming occurrences; undo one first (or pause the job)`,
      });
    }
    const skip = { note, created_at: now.toISOString() };
    await this.transactions.run(async (tx) => {
      const found = await this.jobs.setOccurrenceSkip(
        auth.workspaceId,
        jobId,
        key,
        skip,
        new Date(now.getTime() - PRUNE_AFTER_MS),
        tx,
      );
      if (!found) {
        throw new NotFoundError('Job');
      }
      await this.audit.insert(
        auth.workspaceId,
        { actor: auth.actor, action: 'job.skip_occurrence', target: jobId, details: { at: key, note } },
        tx,
      );
    });
    return { at: key, ...skip };
  }

  /** Undoes a skip; `404` when the occurrence is not skipped. */
  async unskip(auth: AuthContext, jobId: string, at: Date): Promise<void> {
    await this.require(auth.workspaceId, jobId);
    const key = at.toISOString();
    await this.transactions.run(async (tx) => {
      if (!(await this.jobs.setOccurrenceSkip(auth.workspaceId, jobId, key, null, new Date(0), tx))) {
        throw new NotFoundError('Skipped occurrence');
      }
      await this.audit.insert(
        auth.workspaceId,
        { actor: auth.actor, action: 'job.unskip_occurrence', target: jobId, details: { at: key } },
        tx,
      );
    });
  }

  private async require(workspaceId: string, jobId: string): Promise<JobEntity> {
    const job = await this.jobs.getById(workspaceId, jobId);
    if (!job) {
      throw new NotFoundError('Job');
    }
    return job;
  }

  /** `at` as the key it is stored under, when it is an occurrence of the job's schedule after `now`; else `400`. */
  private async checkUpcomingOccurrence(job: JobEntity, at: Date, now: Date): Promise<string> {
    if (at.getTime() <= now.getTime()) {
      throw new ValidationFailedError({ at: 'must be an upcoming occurrence: this instant has passed' });
    }
    const calendars = usesCalendars(job) ? await this.calendars.datesByName(job.workspaceId) : undefined;
    const [occurrence] = nextFireTimes(job, new Date(at.getTime() - 1), 1, undefined, calendars);
    if (!occurrence || occurrence.getTime() !== at.getTime()) {
      throw new ValidationFailedError({
        at: occurrence
          ? `is not an occurrence of the job's schedule; the next one from it is ${occurrence.toISOString()}`
          : "is not an occurrence of the job's schedule (it has none from this instant on)",
      });
    }
    return occurrence.toISOString();
  }
}

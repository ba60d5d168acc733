import { Injectable, Logger } from '@nestjs/common';
import { ConflictError, LimitExceededError, newId, NotFoundError, UnavailableError } from '@svc/common';
import {
  AuditRepository,
  JobsRepository,
  type RunEntity,
  RunsRepository,
  TERMINAL_RUN_STATUSES,
} from '@svc/persistence';
import { JobLifecycle, JobWorkflowGateway, runWorkflowInputOf } from '@svc/orchestration';
import type { AuthContext } from '../auth/auth.decorators';
import { RunResponse, toRunResponse } from './runs.mapper';

/**
 * `POST /runs/{id}/retry` (decisions.md → Manual retry): one manual retry per occurrence
 * (`job_id`, `scheduled_at`), coalesced in the database by a unique index so it holds across API
 * processes; its workflow id is its run id, so starting it again is a no-op. While it is not
 * terminal every request answers it; once it has ended the occurrence is exhausted (`409`).
 */
@Injectable()
export class RunRetryService {
  private readonly logger = new Logger(RunRetryService.name);

  constructor(
    private readonly runs: RunsRepository,
    private readonly jobs: JobsRepository,
    private readonly audit: AuditRepository,
    private readonly gateway: JobWorkflowGateway,
    private readonly lifecycle: JobLifecycle,
  ) {}

  async retry(auth: AuthContext, id: string): Promise<RunResponse> {
    const original = await this.runs.getById(auth.workspaceId, id);
    if (!original) {
      throw new NotFoundError('Run');
    }
    if (original.status !== 'failed') {
      throw new ConflictError(`Cannot retry a ${original.status} run; only failed runs can be retried`);
    }
    const existing = await this.runs.findManualRetry(auth.workspaceId, original.jobId, original.scheduledAt);
    if (existing) {
      return this.answer(auth, existing);
    }
    const job = await this.jobs.getById(auth.workspaceId, original.jobId);
    if (!job) {
      throw new ConflictError('Cannot retry a run of a deleted job');
    }
    const now = new Date();
    const quota = await this.lifecycle.blockingQuota(auth.workspaceId, now.toISOString().slice(0, 7));
    if (quota && quota.used >= quota.limit) {
      throw new LimitExceededError(
        'max_runs_per_month_per_workspace',
        quota.limit,
        'The monthly run limit of this workspace is reached',
        429,
      );
    }
    // The job's current configuration (decisions.md), the occurrence's own time.
    const { run, inserted } = await this.runs.openManualRetry(
      {
        id: newId('run', now.getTime()),
        workspaceId: auth.workspaceId,
        jobId: job.id,
        jobVersion: job.version,
        scheduledAt: original.scheduledAt,
        retryOf: original.id,
      },
      now,
    );
    if (!inserted) {
      // Another request, possibly on another API process, wrote it first.
      return this.answer(auth, run);
    }
    try {
      await this.gateway.startRun(runWorkflowInputOf(run, job));
    } catch (err) {
      this.logger.warn(`retry of ${original.id} failed: ${(err as Error).message}`);
      // Nothing will deliver it: the row is removed so that the occurrence is not used up.
      await this.runs.deleteUnstarted(auth.workspaceId, run.id);
      throw new UnavailableError('The scheduler is unavailable; retry');
    }
    await this.audit.insert(auth.workspaceId, {
      actor: auth.actor,
      action: 'run.retry',
      target: original.id,
      details: { job_id: job.id, retry_run_id: run.id },
    });
    return toRunResponse(run, []);
  }

  /**
   * The occurrence's existing manual retry: exhausted once it has ended; otherwise its workflow is
   * started again (a no-op when it runs: workflow id = run id), which also repairs a request that
   * wrote the row and died before starting it.
   */
  private async answer(auth: AuthContext, run: RunEntity): Promise<RunResponse> {
    if (TERMINAL_RUN_STATUSES.includes(run.status)) {
      throw new ConflictError(`The manual retry of this occurrence is exhausted (run ${run.id} is ${run.status})`);
    }
    try {
      await this.gateway.startRun(runWorkflowInputOf(run, await this.jobs.getById(auth.workspaceId, run.jobId)));
    } catch (err) {
      this.logger.warn(`start of manual retry ${run.id} failed: ${(err as Error).message}`);
      throw new UnavailableError('The scheduler is unavailable; retry');
    }
    return toRunResponse(run, await this.runs.listAttempts(auth.workspaceId, run.id));
  }
}

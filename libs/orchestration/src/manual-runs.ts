import { ConflictError, LimitExceededError, NotFoundError, UnavailableError } from '@svc/common';
import { newId } from '@svc/workflow-contract/ids';
import { addLogFields } from '@svc/common/logging';
import { type JobEntity, type JsonObject, type RunEntity, TERMINAL_RUN_STATUSES } from '@svc/persistence';
import type { RunWorkflowInput } from '@svc/workflow-contract/definitions';
import {
  type ChangeNote,
  type CloseRunInput,
  type JobLifecycleDeps,
  type ManualOpening,
  type ManualRetry,
  noteDetails,
  type OverridesFor,
  TRIGGERABLE,
} from './job-changes';
import { runWorkflowInputOf } from './run-input';
import { describeForTemporal } from './temporal-display';

/** Runs a user starts or stops: trigger, manual retry (one per occurrence) and cancel. */
export class ManualRuns {
  constructor(
    private readonly deps: JobLifecycleDeps,
    private readonly quota: {
      blockingQuota(workspaceId: string, month: string): Promise<{ limit: number; used: number } | null>;
    },
    /** The lifecycle's `closeRun`: a cancel closes the run as the workflow's own cancellation would. */
    private readonly closeRun: (input: CloseRunInput) => Promise<void>,
  ) {}

  /** `POST /jobs/{id}/trigger`: a manual run now, from `active` or `paused`; the schedule is unaffected. */
  async trigger(
    workspaceId: string,
    id: string,
    actor: string,
    context: ChangeNote = {},
    overridesFor?: OverridesFor,
  ): Promise<{ runId: string }> {
    const job = await this.deps.jobs.getById(workspaceId, id);
    if (!job) {
      throw new NotFoundError('Job');
    }
    if (!TRIGGERABLE.includes(job.state)) {
      throw new ConflictError(`Cannot trigger a ${job.state} job; only active or paused jobs can be triggered`);
    }
    const overrides = (await overridesFor?.(job)) ?? null;
    const { runId } = await this.openManualRun(job, actor, { trigger: 'manual' }, context, overrides);
    return { runId };
  }

  /**
   * `POST /runs/{id}/cancel`: a `running` or `deferred` run ends `cancelled`. Its
   * workflow is cancelled first (the attempt in flight is abandoned: its sink's AbortSignal fires
   * at its next heartbeat; a retry waiting in backoff never happens), then the row is closed here
   * as the workflow's own cancellation path closes it, so the answer shows `cancelled` at once; a
   * queued run (no workflow yet) is closed the same way and its job workflow, starting it later,
   * finds it closed. A Temporal that cannot be reached leaves the run as it was (`503`).
   */
  async cancelRun(workspaceId: string, runId: string, actor: string): Promise<RunEntity> {
    const { runs, gateway, audit } = this.deps;
    const run = await runs.getById(workspaceId, runId);
    if (!run) {
      throw new NotFoundError('Run');
    }
    if (TERMINAL_RUN_STATUSES.includes(run.status)) {
      throw new ConflictError(`Cannot cancel a ${run.status} run; only running or deferred runs can be cancelled`);
    }
    try {
      await gateway.cancelRun(run.id);
    } catch (err) {
      this.deps.warn?.(`cancel of run ${run.id} not sent: ${(err as Error).message}`);
      throw new UnavailableError('The scheduler is unavailable; retry');
    }
    await this.closeRun({ runId: run.id, status: 'cancelled', finishedAt: new Date() });
    const closed = (await runs.getById(workspaceId, run.id)) ?? run;
    if (closed.status === 'cancelled') {
      await audit.insert(workspaceId, { actor, action: 'run.cancel', target: run.id, details: { job_id: run.jobId } });
    } else {
      // It ended otherwise (succeeded, failed) between the read and the cancel: nothing was cancelled.
      throw new ConflictError(`Cannot cancel a ${closed.status} run; only running or deferred runs can be cancelled`);
    }
    return closed;
  }

  /**
   * `POST /runs/{id}/retry` (decisions.md → Manual retry): one manual retry per occurrence
   * (`job_id`, `scheduled_at`) with the job's current configuration, coalesced in the database so
   * it holds across API processes. While it is not terminal every request answers it (its
   * workflow started again, a no-op when it runs); once it has ended the occurrence is exhausted.
   */
  async retryRun(
    workspaceId: string,
    runId: string,
    actor: string,
    context: ChangeNote = {},
    overridesFor?: OverridesFor,
  ): Promise<ManualRetry> {
    const { runs, jobs } = this.deps;
    const original = await runs.getById(workspaceId, runId);
    if (!original) {
      throw new NotFoundError('Run');
    }
    if (original.status !== 'failed') {
      throw new ConflictError(`Cannot retry a ${original.status} run; only failed runs can be retried`);
    }
    const existing = await runs.findManualRetry(workspaceId, original.jobId, original.scheduledAt);
    if (existing) {
      return { run: await this.restartManualRetry(existing), inserted: false };
    }
    const job = await jobs.getById(workspaceId, original.jobId);
    if (!job) {
      throw new ConflictError('Cannot retry a run of a deleted job');
    }
    const overrides = (await overridesFor?.(job)) ?? null;
    const opened = await this.openManualRun(job, actor, { trigger: 'retry_manual', original }, context, overrides);
    if (!opened.inserted) {
      // Another request, possibly on another API process, wrote it first.
      return { run: await this.restartManualRetry(opened.run!), inserted: false };
    }
    return { run: opened.run!, inserted: true };
  }

  /**
   * Opens a manual run, for a trigger or a manual retry: the monthly cap (`429 limit_exceeded`),
   * the run row (a retry coalesced per occurrence: `inserted` false when another request wrote
   * it, then nothing more is done here), its workflow started at once, the audit entry. The row
   * comes first, so `GET /runs/{run_id}` answers as soon as this returns; a row whose workflow
   * cannot be started is removed again (nothing would deliver it, and it would use up the quota
   * and the occurrence) and the caller gets `503`.
   */
  private async openManualRun(
    job: JobEntity,
    actor: string,
    opening: ManualOpening,
    context: ChangeNote,
    overrides: JsonObject | null,
  ): Promise<{ runId: string; run: RunEntity | null; inserted: boolean }> {
    const { runs, gateway, audit } = this.deps;
    const now = new Date();
    await this.requireRunQuota(job.workspaceId, now);
    const row = {
      id: newId('run', now.getTime()),
      workspaceId: job.workspaceId,
      jobId: job.id,
      jobVersion: job.version,
    };
    let run: RunEntity | null = null;
    let input: RunWorkflowInput;
    if (opening.trigger === 'manual') {
      addLogFields({ run_id: row.id });
      await runs.openRuns([{ ...row, scheduledAt: now, trigger: 'manual', status: 'running', overrides }], now);
      input = {
        runId: row.id,
        jobId: job.id,
        workspaceId: job.workspaceId,
        jobVersion: job.version,
        scheduledAt: now.toISOString(),
        trigger: 'manual',
        display: describeForTemporal(job),
      };
    } else {
      // The job's current configuration (decisions.md), the occurrence's own time.
      const { original } = opening;
      const written = await runs.openManualRetry(
        { ...row, scheduledAt: original.scheduledAt, retryOf: original.id, overrides },
        now,
      );
      if (!written.inserted) {
        return { runId: written.run.id, run: written.run, inserted: false };
      }
      run = written.run;
      input = runWorkflowInputOf(run, job);
    }
    try {
      await gateway.startRun(input);
    } catch (err) {
      this.deps.warn?.(`manual run ${row.id} of ${job.id} not started: ${(err as Error).message}`);
      await runs.deleteUnstarted(job.workspaceId, row.id);
      throw new UnavailableError('The scheduler is unavailable; retry');
    }
    await audit.insert(
      job.workspaceId,
      opening.trigger === 'manual'
        ? {
            actor,
            action: 'job.trigger',
            target: job.id,
            details: { run_id: row.id, ...noteDetails(context), ...(overrides ? { overrides } : {}) },
          }
        : {
            actor,
            action: 'run.retry',
            target: opening.original.id,
            details: {
              job_id: job.id,
              retry_run_id: row.id,
              ...noteDetails(context),
              ...(overrides ? { overrides } : {}),
            },
          },
    );
    return { runId: row.id, run, inserted: true };
  }

  /**
   * An occurrence's existing manual retry: exhausted (`409`) once it has ended; otherwise its
   * workflow is started again (a no-op when it runs: workflow id = run id), which also repairs a
   * request that wrote the row and died before starting it.
   */
  private async restartManualRetry(run: RunEntity): Promise<RunEntity> {
    if (TERMINAL_RUN_STATUSES.includes(run.status)) {
      throw new ConflictError(`The manual retry of this occurrence is exhausted (run ${run.id} is ${run.status})`);
    }
    try {
      await this.deps.gateway.startRun(
        runWorkflowInputOf(run, await this.deps.jobs.getById(run.workspaceId, run.jobId)),
      );
    } catch (err) {
      this.deps.warn?.(`start of manual retry ${run.id} failed: ${(err as Error).message}`);
      throw new UnavailableError('The scheduler is unavailable; retry');
    }
    return run;
  }

  /** `429 limit_exceeded` when the workspace's monthly run cap blocks and is reached. */
  private async requireRunQuota(workspaceId: string, now: Date): Promise<void> {
    const quota = await this.quota.blockingQuota(workspaceId, now.toISOString().slice(0, 7));
    if (quota && quota.used >= quota.limit) {
      throw new LimitExceededError(
        'max_runs_per_month_per_workspace',
        quota.limit,
        'The monthly run limit of this workspace is reached',
        429,
      );
    }
  }
}

import { type AppConfig, ConflictError, NotFoundError, type PlanLimits } from '@svc/common';
import {
  type AttemptFinish,
  AuditRepository,
  type JobEntity,
  type JobState,
  JobsRepository,
  type RunEntity,
  RunsRepository,
  WorkspacesRepository,
} from '@svc/persistence';
import type { DataSource } from 'typeorm';
import type { JobWorkflowGateway } from './job-workflow.gateway';
import { toJobSnapshot } from './job-snapshot';

export interface JobLifecycleDeps {
  dataSource: DataSource;
  jobs: JobsRepository;
  runs: RunsRepository;
  audit: AuditRepository;
  workspaces: WorkspacesRepository;
  gateway: JobWorkflowGateway;
  config: AppConfig;
  /** Where a failed workflow notification is reported (the change itself stands). */
  warn?: (message: string) => void;
  /** Told once per run, after the transaction that moved it to a terminal status (metrics). */
  onRunClosed?: (run: RunEntity) => void;
}

export interface CloseRunInput {
  runId: string;
  status: 'succeeded' | 'failed' | 'cancelled' | 'skipped';
  finishedAt: Date;
  error?: string | null;
  skipReason?: string | null;
  /** The attempt that ended the run, closed in the same transaction. */
  attempt?: { n: number; finish: AttemptFinish };
}

/**
 * The one home of a job's state machine, used by the API and the worker alike: transitions with
 * their revision bump and audit entry, the effect of a finished run (failure streak,
 * auto-disable), completion, and the plan limits and monthly quota that gate runs. After every
 * committed change the job's workflow is told (the reconciler repairs a missed signal).
 */
export class JobLifecycle {
  constructor(private readonly deps: JobLifecycleDeps) {}

  async planOf(workspaceId: string): Promise<PlanLimits> {
    const { config, workspaces } = this.deps;
    const workspace = await workspaces.findById(workspaceId);
    return config.plans[workspace?.plan ?? ''] ?? config.plans[config.default_plan];
  }

  /** The monthly cap that blocks runs (`over_quota_policy = block`), with the month's use; else null. */
  async blockingQuota(workspaceId: string, month: string): Promise<{ limit: number; used: number } | null> {
    const plan = await this.planOf(workspaceId);
    if (plan.max_runs_per_month_per_workspace <= 0 || plan.over_quota_policy !== 'block') {
      return null;
    }
    const used = await this.deps.runs.monthlyUsage(workspaceId, month);
    return { limit: plan.max_runs_per_month_per_workspace, used };
  }

  /** pause / resume / enable (spec: Job states): `409 conflict` unless the job is in `from`. */
  async transition(
    workspaceId: string,
    id: string,
    change: { from: JobState; to: JobState; action: string; actor: string },
  ): Promise<JobEntity> {
    const { dataSource, jobs, audit } = this.deps;
    const enabling = change.action === 'job.enable';
    const updated = await dataSource.transaction(async (manager) => {
      const job = await jobs.getForUpdate(workspaceId, id, manager);
      if (!job) {
        throw new NotFoundError('Job');
      }
      if (job.state !== change.from) {
        throw new ConflictError(`Job is ${job.state}; ${change.action.split('.')[1]} needs a ${change.from} job`);
      }
      const moved = await jobs.transitionState(
        id,
        {
          from: change.from,
          to: change.to,
          ...(enabling ? { disabledReason: null, resetFailures: true } : {}),
        },
        manager,
      );
      await audit.insert(workspaceId, { actor: change.actor, action: change.action, target: id, details: {} }, manager);
      return moved!;
    });
    await this.syncWorkflow(updated);
    return updated;
  }

  /**
   * Closes a run once (a repeated call changes nothing) and, for `succeeded` and `failed`, folds it
   * into the job: the failure streak, and auto-disable when the streak reaches the threshold
   * (decisions.md → auto_disable_threshold), audited as actor `system`.
   */
  async closeRun(input: CloseRunInput): Promise<void> {
    const { dataSource, jobs, runs, audit, config } = this.deps;
    let closedRun: RunEntity | null = null;
    const disabled = await dataSource.transaction(async (manager) => {
      if (input.attempt) {
        await runs.finishAttempt(input.runId, input.attempt.n, input.attempt.finish, manager);
      }
      const current = await runs.findByIdUnscoped(input.runId);
      const job = current ? await jobs.findByIdUnscoped(current.jobId, manager) : null;
      const closed = await runs.finishRun(
        input.runId,
        {
          status: input.status,
          finishedAt: input.finishedAt,
          lastError: input.error ?? null,
          skipReason: input.skipReason ?? null,
          slaThresholdMs: job?.slaThresholdMs ?? config.scheduler.default_sla_threshold_ms,
        },
        manager,
      );
      closedRun = closed;
      if (!closed || (input.status !== 'succeeded' && input.status !== 'failed')) {
        return null;
      }
      const outcome = await jobs.recordRunOutcome(
        closed.jobId,
        { scheduledAt: closed.scheduledAt, status: input.status },
        manager,
      );
      const threshold = outcome?.autoDisableThreshold ?? config.scheduler.default_auto_disable_threshold;
      if (!outcome || input.status !== 'failed' || threshold <= 0 || outcome.consecutiveFailures < threshold) {
        return null;
      }
      const moved = await jobs.transitionState(
        closed.jobId,
        {
          from: 'active',
          to: 'disabled',
          disabledReason: `auto_disabled: ${outcome.consecutiveFailures} consecutive failed runs`,
        },
        manager,
      );
      if (moved) {
        await audit.insert(
          moved.workspaceId,
          {
            actor: 'system',
            action: 'job.auto_disable',
            target: moved.id,
            details: { consecutive_failures: outcome.consecutiveFailures, run_id: closed.id },
          },
          manager,
        );
      }
      return moved;
    });
    if (closedRun) {
      this.deps.onRunClosed?.(closedRun);
    }
    if (disabled) {
      await this.syncWorkflow(disabled);
    }
  }

  /** An active job whose schedule has no further occurrence becomes `completed` (audited, actor `system`). */
  async markCompleted(jobId: string, revision: number): Promise<void> {
    const { dataSource, jobs, audit } = this.deps;
    await dataSource.transaction(async (manager) => {
      const moved = await jobs.transitionState(jobId, { from: 'active', to: 'completed', revision }, manager);
      if (moved) {
        await audit.insert(
          moved.workspaceId,
          { actor: 'system', action: 'job.complete', target: jobId, details: {} },
          manager,
        );
      }
    });
  }

  /** Tells the job's workflow the row's current state; PostgreSQL stays the system of record. */
  async syncWorkflow(job: JobEntity): Promise<void> {
    try {
      await this.deps.gateway.upsertJob(toJobSnapshot(job, this.deps.config));
    } catch (err) {
      this.deps.warn?.(`workflow of ${job.id} not updated yet; the reconciler will (${(err as Error).message})`);
    }
  }
}

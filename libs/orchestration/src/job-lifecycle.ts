import { type AppConfig, ConflictError, NotFoundError, type PlanLimits } from '@svc/common';
import { type AlertEventDetails, type AlertEventType, newAlertEvent } from '@svc/common/alert-events';
import {
  type AlertEventsRepository,
  type AttemptFinish,
  AuditRepository,
  type JobEntity,
  type JobState,
  JobsRepository,
  type RunEntity,
  RunsRepository,
  WorkspacesRepository,
} from '@svc/persistence';
import type { DataSource, EntityManager } from 'typeorm';
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
  /**
   * Alerts (docs/alerts.md): where `closeRun` records the events it causes, in its transaction,
   * and who starts their delivery once it has committed (a start that is lost is repeated by the
   * worker's sweeper). Absent in processes that close no runs.
   */
  alerts?: { events: AlertEventsRepository; dispatch: (eventIds: string[]) => Promise<void> };
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
/** Why a state change is refused, as a sentence naming what the user can do instead. */
const TRANSITION_REFUSED: Record<string, (state: string) => string> = {
  'job.pause': (state) => `The job is ${state}; only an active job can be paused`,
  'job.resume': (state) => `The job is ${state}; only a paused job can be resumed`,
  'job.enable': (state) => `The job is ${state}; only a disabled job can be enabled`,
};

export class JobLifecycle {
  constructor(private readonly deps: JobLifecycleDeps) {}

  async planOf(workspaceId: string): Promise<PlanLimits> {
    return this.planOfWorkspace(await this.deps.workspaces.findById(workspaceId));
  }

  private planOfWorkspace(workspace: { plan: string } | null): PlanLimits {
    const { config } = this.deps;
    return config.plans[workspace?.plan ?? ''] ?? config.plans[config.default_plan];
  }

  /**
   * The monthly cap that blocks runs (`over_quota_policy = block`), with the month's use; else null.
   * A caller that has just read the workspace passes it (one read less per occurrence).
   */
  async blockingQuota(
    workspaceId: string,
    month: string,
    workspace?: { plan: string } | null,
  ): Promise<{ limit: number; used: number } | null> {
    const plan = workspace === undefined ? await this.planOf(workspaceId) : this.planOfWorkspace(workspace);
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
        throw new ConflictError(TRANSITION_REFUSED[change.action]?.(job.state) ?? `The job is ${job.state}`);
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
    let eventIds: string[] = [];
    const disabled = await dataSource.transaction(async (manager) => {
      if (input.attempt) {
        await runs.finishAttempt(input.runId, input.attempt.n, input.attempt.finish, manager);
      }
      // On the transaction's connection: a second one from the pool, awaited while this one is
      // held, deadlocks once as many runs close at once as the pool has connections.
      const current = await runs.findByIdUnscoped(input.runId, manager);
      // Locked first: the failure streak read here is the one this run's outcome replaces (job.recovered).
      const job = current ? await jobs.getForUpdate(current.workspaceId, current.jobId, manager) : null;
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
      eventIds = await this.recordAlerts(job, closed, manager, [
        input.status === 'failed' ? ['run.failed', { consecutive_failures: outcome?.consecutiveFailures }] : null,
        input.status === 'succeeded' && job && job.consecutiveFailures > 0
          ? ['job.recovered', { previous_failures: job.consecutiveFailures }]
          : null,
        // Same id as the SLA watch's event for this run: recorded here only if the watch had not.
        closed.slaBreached
          ? [
              'run.sla_breached',
              {
                sla_threshold_ms: job?.slaThresholdMs ?? config.scheduler.default_sla_threshold_ms,
                still_running: false,
              },
            ]
          : null,
      ]);
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
        const disabledAlert: Partial<AlertEventDetails> = {
          consecutive_failures: outcome.consecutiveFailures,
          disabled_reason: moved.disabledReason ?? undefined,
        };
        eventIds.push(...(await this.recordAlerts(job, closed, manager, [['job.auto_disabled', disabledAlert]])));
      }
      return moved;
    });
    if (closedRun) {
      this.deps.onRunClosed?.(closedRun);
    }
    if (disabled) {
      await this.syncWorkflow(disabled);
    }
    if (eventIds.length > 0) {
      try {
        await this.deps.alerts!.dispatch(eventIds);
      } catch (err) {
        this.deps.warn?.(`alerts ${eventIds.join(', ')} not started yet; the sweeper will (${(err as Error).message})`);
      }
    }
  }

  /** Records the alert events a closed run causes (docs/alerts.md); the ids inserted now. */
  private async recordAlerts(
    job: JobEntity | null,
    run: RunEntity,
    manager: EntityManager,
    events: Array<[AlertEventType, Partial<AlertEventDetails>] | null>,
  ): Promise<string[]> {
    const alerts = this.deps.alerts;
    if (!alerts || !job) {
      return [];
    }
    const snapshot: AlertEventDetails & { workspaceId: string } = {
      workspaceId: job.workspaceId,
      job: { id: job.id, name: job.name, timezone: job.scheduleTimezone, tags: job.tags },
      run: {
        id: run.id,
        scheduled_at: run.scheduledAt.toISOString(),
        trigger: run.trigger,
        status: run.status,
        attempts: run.attemptsCount,
        last_error: run.lastError,
        finished_at: run.finishedAt?.toISOString() ?? null,
      },
    };
    const at = run.finishedAt ?? new Date();
    const recorded = events
      .filter((e): e is [AlertEventType, Partial<AlertEventDetails>] => e !== null)
      .map(([type, extra]) => newAlertEvent(type, at, { ...snapshot, ...extra }));
    return alerts.events.record(recorded, manager);
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

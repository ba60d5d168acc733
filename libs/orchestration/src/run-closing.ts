import { type AlertEventDetails, type JobAlertEventType, newAlertEvent } from '@svc/common/alert-events';
import type { JobEntity, RunEntity } from '@svc/persistence';
import type { EntityManager } from 'typeorm';
import { type CloseRunInput, type JobLifecycleDeps, nextRevision } from './job-changes';
import type { JobWorkflowNotices } from './job-workflow-notices';

/** The end of a run and what it does to its job: failure streak, auto-disable, alert events. */
export class RunClosing {
  constructor(
    private readonly deps: JobLifecycleDeps,
    private readonly notices: JobWorkflowNotices,
  ) {}

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
      const { error, ...close } = input;
      const closing = await runs.close(
        { ...close, lastError: error, defaultSlaThresholdMs: config.scheduler.default_sla_threshold_ms },
        manager,
      );
      closedRun = closing?.run ?? null;
      // Runs that were already closed, end otherwise than succeeded / failed, or whose job is gone
      // leave the job as it is.
      const outcome = closing?.outcome;
      if (!closing || !outcome) {
        return null;
      }
      const closed = closing.run;
      const events: Array<[JobAlertEventType, Partial<AlertEventDetails>] | null> = [
        input.status === 'failed' ? ['run.failed', { consecutive_failures: outcome.consecutiveFailures }] : null,
        input.status === 'succeeded' && outcome.previousFailures > 0
          ? ['job.recovered', { previous_failures: outcome.previousFailures }]
          : null,
        // Same id as the SLA watch's event for this run: recorded here only if the watch had not.
        closed.slaBreached
          ? ['run.sla_breached', { sla_threshold_ms: closing.slaThresholdMs, still_running: false }]
          : null,
      ];
      const threshold = outcome.autoDisableThreshold ?? config.scheduler.default_auto_disable_threshold;
      const reachesThreshold = input.status === 'failed' && threshold > 0 && outcome.consecutiveFailures >= threshold;
      const alerting = this.deps.alerts !== undefined && events.some((event) => event !== null);
      if (!alerting && !reachesThreshold) {
        return null;
      }
      // Locked by the close above; read whole only when an alert or an auto-disable needs it.
      const job = await jobs.getById(closed.workspaceId, closed.jobId, manager);
      eventIds = await this.recordAlerts(job, closed, manager, events);
      if (!job || !reachesThreshold) {
        return null;
      }
      const moved = await jobs.transitionState(
        closed.jobId,
        {
          from: 'active',
          to: 'disabled',
          revision: job.revision,
          nextRevision: nextRevision(job),
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
      await this.notices.tell(disabled, 'before');
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
    events: Array<[JobAlertEventType, Partial<AlertEventDetails>] | null>,
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
      .filter((e): e is [JobAlertEventType, Partial<AlertEventDetails>] => e !== null)
      .map(([type, extra]) => newAlertEvent(type, at, { ...snapshot, ...extra }));
    return alerts.events.record(recorded, manager);
  }
}

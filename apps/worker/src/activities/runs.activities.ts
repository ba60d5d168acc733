import type { AppConfig } from '@svc/common';
import { AuditRepository, JobEntity, JobsRepository, RunsRepository, WorkspaceEntity } from '@svc/persistence';
import { type JobWorkflowGateway, toJobSnapshot } from '@svc/scheduling';
import type { ClaimResult, FinishRunInput, RunActivities } from '@svc/workflows/activity-types';
import type { RunWorkflowInput } from '@svc/workflows/definitions';
import { Context } from '@temporalio/activity';
import type { DataSource } from 'typeorm';

const QUEUE_POLL_MS = 500;

export interface RunActivityDeps {
  dataSource: DataSource;
  jobs: JobsRepository;
  runs: RunsRepository;
  audit: AuditRepository;
  gateway: JobWorkflowGateway;
  config: AppConfig;
  clock: () => Date;
}

/**
 * Mirror of the run lifecycle into PostgreSQL. Every write is idempotent: a re-executed
 * activity finds the row already there (or already terminal) and changes nothing.
 */
export function createRunActivities(deps: RunActivityDeps): RunActivities {
  const { dataSource, jobs, runs, audit, gateway, config, clock } = deps;

  async function decideSkip(input: RunWorkflowInput, job: JobEntity): Promise<string | null> {
    if (input.skipReason) {
      return input.skipReason;
    }
    const workspace = await dataSource.manager.findOne(WorkspaceEntity, { where: { id: job.workspaceId } });
    if (workspace?.suspendedAt) {
      return 'workspace_suspended';
    }
    if (input.trigger === 'schedule') {
      const plan = config.plans[workspace?.plan ?? ''] ?? config.plans[config.default_plan];
      if (plan.max_runs_per_month_per_workspace > 0 && plan.over_quota_policy === 'block') {
        const used = await runs.monthlyUsage(job.workspaceId, input.scheduledAt.slice(0, 7));
        if (used >= plan.max_runs_per_month_per_workspace) {
          return 'quota_exceeded';
        }
      }
      if (job.overlapPolicy === 'skip' && (await runs.hasInFlightRun(job.workspaceId, job.id, input.runId))) {
        return 'previous_run_in_progress';
      }
      // `queue` keeps at most one waiting occurrence; further ones are skipped.
      if (job.overlapPolicy === 'queue' && (await runs.hasWaitingRun(job.workspaceId, job.id, input.runId))) {
        return 'previous_run_in_progress';
      }
    }
    return null;
  }

  return {
    async claimRun(input: RunWorkflowInput): Promise<ClaimResult> {
      const existing = await runs.findByIdUnscoped(input.runId);
      const job = await jobs.findByIdUnscoped(input.jobId);
      if (!existing && !job) {
        return { action: 'done', status: 'cancelled' };
      }
      let status = existing?.status;
      if (!existing && job) {
        const now = clock();
        const skipReason = await decideSkip(input, job);
        const waits =
          !skipReason &&
          input.trigger === 'schedule' &&
          job.overlapPolicy === 'queue' &&
          (await runs.hasInFlightRun(job.workspaceId, job.id, input.runId));
        const { run } = await runs.insertIfAbsent(
          {
            id: input.runId,
            workspaceId: input.workspaceId,
            jobId: input.jobId,
            jobVersion: input.jobVersion,
            scheduledAt: new Date(input.scheduledAt),
            trigger: input.trigger,
            // A queued run waits as `deferred` with no attempt yet (decisions.md → overlap_policy).
            status: skipReason ? 'skipped' : waits ? 'deferred' : 'running',
            claimedAt: now,
            finishedAt: skipReason ? now : null,
            skipReason: (skipReason as never) ?? null,
            retryOf: input.retryOf ?? null,
          },
          !skipReason,
        );
        status = run.status;
        if (!skipReason && job.overlapPolicy === 'cancel_previous') {
          for (const other of await runs.listInFlightForJob(job.workspaceId, job.id)) {
            if (other.id !== input.runId) {
              await gateway.cancelRun(other.id);
            }
          }
        }
      }
      if (status !== 'running' && status !== 'deferred') {
        return { action: 'done', status: status ?? 'cancelled' };
      }
      if (!job) {
        return { action: 'done', status: 'cancelled' };
      }
      const stored = await runs.findByIdUnscoped(input.runId);
      const waiting = stored?.status === 'deferred' && stored.attemptsCount === 0 && stored.nextAttemptAt === null;
      return {
        action: waiting ? 'wait' : 'deliver',
        timeoutMs: job.timeoutMs,
        retry: {
          maxAttempts: job.retry.max_attempts,
          initialIntervalMs: job.retry.initial_interval_ms,
          maxIntervalMs: job.retry.max_interval_ms,
          multiplier: job.retry.multiplier,
        },
      };
    },

    async finishRun(input: FinishRunInput): Promise<void> {
      const run = await runs.findByIdUnscoped(input.runId);
      if (!run) {
        return;
      }
      const job = await jobs.findByIdUnscoped(run.jobId);
      const slaThresholdMs = job?.slaThresholdMs ?? config.scheduler.default_sla_threshold_ms;
      const finished = await runs.finishRun(input.runId, {
        status: input.status,
        finishedAt: clock(),
        lastError: input.error ?? null,
        slaThresholdMs,
      });
      if (!finished || !job || input.status === 'cancelled') {
        return;
      }
      const disabled = await dataSource.transaction(async (manager) => {
        const locked = await manager
          .getRepository(JobEntity)
          .createQueryBuilder('job')
          .setLock('pessimistic_write')
          .where('job.id = :id', { id: job.id })
          .getOne();
        if (!locked) {
          return null;
        }
        locked.lastRunAt = finished.scheduledAt;
        locked.lastRunStatus = finished.status;
        locked.consecutiveFailures = input.status === 'failed' ? locked.consecutiveFailures + 1 : 0;
        const threshold = locked.autoDisableThreshold ?? config.scheduler.default_auto_disable_threshold;
        let autoDisabled = false;
        if (
          input.status === 'failed' &&
          threshold > 0 &&
          locked.consecutiveFailures >= threshold &&
          locked.state === 'active'
        ) {
          locked.state = 'disabled';
          locked.disabledReason = `auto_disabled: ${locked.consecutiveFailures} consecutive failed runs`;
          locked.revision += 1;
          autoDisabled = true;
        }
        await manager.getRepository(JobEntity).save(locked);
        if (autoDisabled) {
          await audit.insert(
            locked.workspaceId,
            {
              actor: 'system',
              action: 'job.auto_disable',
              target: locked.id,
              details: { consecutive_failures: locked.consecutiveFailures, run_id: finished.id },
            },
            manager,
          );
          return locked;
        }
        return null;
      });
      if (disabled) {
        await gateway.upsertJob(toJobSnapshot(disabled, config));
      }
    },

    async awaitTurn({ runId }): Promise<void> {
      const context = Context.current();
      for (;;) {
        const run = await runs.findByIdUnscoped(runId);
        if (!run || run.status !== 'deferred') {
          return;
        }
        if (!(await runs.hasOlderInFlightRun(run))) {
          await runs.markRunning(runId);
          return;
        }
        context.heartbeat();
        await context.sleep(QUEUE_POLL_MS);
      }
    },

    async markJobCompleted({ jobId, revision }): Promise<void> {
      await dataSource.query(
        `UPDATE jobs SET state = 'completed', revision = revision + 1, updated_at = now()
          WHERE id = $1 AND state = 'active' AND revision = $2`,
        [jobId, revision],
      );
    },
  };
}

import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { JobsRepository, RunsRepository } from '@svc/persistence';
import type { RunActivities } from '@svc/workflow-contract/activity-types';
import type {
  LegacyClaimResult,
  LegacyDeliveryActivities,
  LegacyRunActivities,
  LegacyRunWorkflowInput,
} from '@svc/workflows/legacy/types.v1';

const QUEUE_POLL_MS = 500;

export interface LegacyActivityDeps {
  jobs: JobsRepository;
  runs: RunsRepository;
  clock: () => Date;
  /** The current attempt activity, which the legacy `deliverAttempt` delegates to. */
  current: RunActivities;
}

/**
 * Activities only run workflows started before the one-activity path still call
 * (temporal/workflows/legacy/run.workflow.v1.ts). They delegate to the current code where they
 * can; remove them with the legacy workflows.
 */
export function createLegacyActivities(
  deps: LegacyActivityDeps,
): Pick<LegacyRunActivities, 'claimRun' | 'awaitTurn'> & LegacyDeliveryActivities {
  const { jobs, runs, clock, current } = deps;

  return {
    /** Records the run if needed; overlap decisions now belong to the job workflow. */
    async claimRun(input: LegacyRunWorkflowInput): Promise<LegacyClaimResult> {
      const job = await jobs.findByIdUnscoped(input.jobId);
      if (!job) {
        return { action: 'done', status: 'cancelled' };
      }
      if (!(await runs.findByIdUnscoped(input.runId))) {
        await runs.openRuns(
          [
            {
              ...input,
              id: input.runId,
              status: input.skipReason ? 'skipped' : 'running',
              skipReason: input.skipReason ?? null,
            },
          ],
          clock(),
        );
      }
      const run = await runs.findByIdUnscoped(input.runId);
      if (!run || (run.status !== 'running' && run.status !== 'deferred')) {
        return { action: 'done', status: run?.status ?? 'cancelled' };
      }
      const waiting = run.status === 'deferred' && run.attemptsCount === 0 && run.nextAttemptAt === null;
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

    async deliverAttempt({ runId }): Promise<{ statusCode: number | null }> {
      const run = await runs.findByIdUnscoped(runId);
      if (!run) {
        throw ApplicationFailure.nonRetryable(`run ${runId} not found`, 'RunGone');
      }
      const { status } = await current.runAttempt({
        runId,
        jobId: run.jobId,
        workspaceId: run.workspaceId,
        jobVersion: run.jobVersion,
        scheduledAt: run.scheduledAt.toISOString(),
        trigger: run.trigger,
      });
      if (status !== 'succeeded') {
        // The run is already closed; the legacy workflow's finishRun then changes nothing.
        throw ApplicationFailure.nonRetryable(`run ${status}`, 'FatalDelivery');
      }
      return { statusCode: null };
    },
  };
}

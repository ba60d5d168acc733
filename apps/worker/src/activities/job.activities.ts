import { eachLimited } from '@svc/common';
import {
  type CalendarsRepository,
  type OpenRunRow,
  TERMINAL_RUN_STATUSES,
  type WorkspacesRepository,
} from '@svc/persistence';
import { type JobWorkflowGateway, toJobSnapshot } from '@svc/orchestration';
import type { JobActivities, OpenRunsInput, StartQueuedRunInput } from '@svc/workflow-contract/activity-types';
import type { RunWorkflowInput } from '@svc/workflow-contract/definitions';
import { occurrenceRunId } from '@svc/workflow-contract/ids';
import { plannedAt } from '@svc/workflow-contract/occurrence-rules';
import type { CoreActivityDeps } from './activity-deps';
import { occurrencesBetween } from './schedule.activities';

/** Skipped misfires a `fire_all` catch-up records at most (each plan scans up to 100 000). */
const MAX_RECORDED_PER_CATCH_UP = 10_000;
const RECORD_BATCH = 1_000;
/** Run workflows one `openRuns` starts at once. */
const RUN_STARTS_IN_FLIGHT = 16;

export interface JobActivityDeps extends CoreActivityDeps {
  workspaces: WorkspacesRepository;
  /** Starts runs eagerly: its client shares the worker's connection. */
  gateway: JobWorkflowGateway;
  /** Workspace calendars, for a catch-up of a schedule that excludes some. */
  calendars?: Pick<CalendarsRepository, 'datesByName'>;
}

/**
 * I/O for the job workflow, run as local activities inside its workflow task: reading the facts
 * its rules need, writing run rows and starting run workflows. Each is idempotent by run id, so
 * a local activity retried after a crash repeats nothing.
 */
export function createJobActivities(deps: JobActivityDeps): JobActivities {
  const { jobs, runs, workspaces, lifecycle, gateway, config, clock, metrics } = deps;

  function runInput(
    job: OpenRunsInput | StartQueuedRunInput,
    runId: string,
    scheduledAt: string,
    planned?: string,
  ): RunWorkflowInput {
    return {
      runId,
      jobId: job.jobId,
      workspaceId: job.workspaceId,
      jobVersion: job.jobVersion,
      scheduledAt,
      ...(planned !== undefined && planned !== scheduledAt ? { plannedAt: planned } : {}),
      trigger: 'schedule',
      ...(job.display ? { display: job.display } : {}),
    };
  }

  /**
   * Records the missed occurrences a `fire_all` catch-up does not deliver as skipped misfires
   * (decisions.md → misfire_policy), named after their occurrence like every scheduled run, at
   * most MAX_RECORDED_PER_CATCH_UP of them (the rest stay counted as collapsed). Returns how many.
   */
  async function recordCollapsed(
    input: OpenRunsInput,
    range: NonNullable<OpenRunsInput['collapsedRange']>,
  ): Promise<number> {
    const calendars =
      range.schedule.calendars && deps.calendars
        ? await deps.calendars.datesByName(range.schedule.calendars.workspaceId)
        : undefined;
    const instants = occurrencesBetween(
      range.schedule,
      range.after,
      range.before,
      MAX_RECORDED_PER_CATCH_UP,
      calendars,
    );
    for (let i = 0; i < instants.length; i += RECORD_BATCH) {
      const opened = await runs.openRuns(
        instants.slice(i, i + RECORD_BATCH).map((scheduledAt) => ({
          id: occurrenceRunId(input.jobId, Date.parse(scheduledAt)),
          workspaceId: input.workspaceId,
          jobId: input.jobId,
          jobVersion: input.jobVersion,
          scheduledAt,
          trigger: 'schedule' as const,
          status: 'skipped' as const,
          skipReason: 'misfire',
        })),
        clock(),
      );
      const inserted = opened.filter((run) => run.inserted).length;
      metrics?.occurrences.inc({ action: 'skip', skip_reason: 'misfire' }, inserted);
      metrics?.runsFinished.inc({ status: 'skipped', trigger: 'schedule', skip_reason: 'misfire' }, inserted);
    }
    return instants.length;
  }

  return {
    async readWorkspaceGate({ workspaceId, month }) {
      const workspace = await workspaces.findById(workspaceId);
      return {
        suspended: Boolean(workspace?.suspendedAt),
        blockingQuota: await lifecycle.blockingQuota(workspaceId, month, workspace),
      };
    },

    async openRuns(input) {
      // Spread windows: each run fires at its planned time; its identity stays nominal.
      const planned = (d: { scheduledAt: string }) =>
        input.spread ? plannedAt(d.scheduledAt, input.spread) : undefined;
      const rows: OpenRunRow[] = input.decisions.map((d) => ({
        id: d.runId,
        workspaceId: input.workspaceId,
        jobId: input.jobId,
        jobVersion: input.jobVersion,
        scheduledAt: d.scheduledAt,
        plannedAt: planned(d) ?? null,
        trigger: 'schedule',
        status: d.action === 'skip' ? 'skipped' : d.action === 'queue' ? 'deferred' : 'running',
        skipReason: d.skipReason ?? null,
      }));
      const opened = await runs.openRuns(rows, clock());
      const recorded = input.collapsedRange ? await recordCollapsed(input, input.collapsedRange) : 0;
      if (input.collapsed && input.collapsed > recorded) {
        metrics?.occurrences.inc({ action: 'collapse', skip_reason: 'misfire' }, input.collapsed - recorded);
      }
      const renamed: Record<string, string> = {};
      const untracked: string[] = [];
      for (const [i, d] of input.decisions.entries()) {
        const run = opened[i];
        if (run.id !== d.runId) {
          renamed[d.runId] = run.id;
        }
        if (!run.inserted && (TERMINAL_RUN_STATUSES.includes(run.status) || run.trigger === 'backfill')) {
          untracked.push(run.id);
        }
        if (!run.inserted) {
          // A second path to an occurrence already recorded (a retried task): counted once.
          continue;
        }
        metrics?.occurrences.inc({ action: d.action, skip_reason: d.skipReason ?? '' });
        if (d.action === 'skip') {
          // Written terminal: it never passes JobLifecycle.closeRun, where other runs are counted.
          metrics?.runsFinished.inc({ status: 'skipped', trigger: 'schedule', skip_reason: d.skipReason ?? '' });
        }
      }
      // Only an open row gets its workflow: started again, it is a no-op while the workflow runs
      // (workflow id = run id), and an occurrence that already ended is never delivered again.
      // Several at once: a job catching up after an outage opens dozens, and one start after
      // another outlasted the workflow task holding this local activity on a busy server.
      await eachLimited(input.decisions, RUN_STARTS_IN_FLIGHT, async (d, i) => {
        const run = opened[i];
        if (d.action !== 'start' || (run.status !== 'running' && run.status !== 'deferred')) {
          return;
        }
        if (run.status === 'deferred') {
          await runs.markRunning(run.id);
        }
        await gateway.startRun(
          { ...runInput(input, run.id, d.scheduledAt, planned(d)), notifyJob: input.notifyJob },
          { eager: true },
        );
      });
      return {
        ...(Object.keys(renamed).length > 0 ? { renamed } : {}),
        ...(untracked.length > 0 ? { untracked } : {}),
      };
    },

    async startQueuedRun(input) {
      await runs.markRunning(input.run.runId);
      await gateway.startRun(
        { ...runInput(input, input.run.runId, input.run.scheduledAt), releasedAt: input.releasedAt, notifyJob: true },
        { eager: true },
      );
    },

    async cancelRuns({ runIds }) {
      for (const runId of runIds) {
        await gateway.cancelRun(runId);
        // A queued run has no workflow yet; its row is closed here.
        await runs.cancelWaitingRun(runId, clock());
      }
    },

    async loadJobSnapshot({ jobId }) {
      const job = await jobs.findByIdUnscoped(jobId);
      return job ? toJobSnapshot(job, config) : null;
    },

    async markJobCompleted({ jobId, revision }) {
      await lifecycle.markCompleted(jobId, revision);
    },
  };
}

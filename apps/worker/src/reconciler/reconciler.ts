import type { AppConfig } from '@svc/common';
import type { JobsRepository } from '@svc/persistence';
import { type JobWorkflowGateway, toJobSnapshot } from '@svc/orchestration';
import { JOB_WORKFLOW, type JobWorkflowMemo, parkedTaskQueue } from '@svc/workflow-contract/definitions';
import type { Client } from '@temporalio/client';

const PAGE = 1_000;
const DEFAULT_CONCURRENCY = 16;

export interface ReconcileReport {
  /** Job rows examined. */
  checked: number;
  /** Workflows started or sent the row's snapshot (missing, or behind the row's revision). */
  upserted: number;
  /** Workflows stopped because their job is gone or completed. */
  stopped: number;
}

/**
 * Repairs drift between job rows and job workflows, and only drift (docs/architecture.md → How a
 * job becomes a workflow, step 6): one visibility listing gives every running job workflow with the
 * revision in its memo; a job whose workflow is missing or behind gets its snapshot
 * (signal-with-start), a workflow whose job is gone or completed is stopped. Jobs in sync cost no
 * Temporal call and add no history event. Calls run with bounded concurrency.
 */
export async function reconcileJobWorkflows(deps: {
  jobs: JobsRepository;
  gateway: JobWorkflowGateway;
  client: Client;
  config: AppConfig;
  concurrency?: number;
}): Promise<ReconcileReport> {
  const { jobs, gateway, client, config } = deps;
  const concurrency = deps.concurrency ?? DEFAULT_CONCURRENCY;
  const report: ReconcileReport = { checked: 0, upserted: 0, stopped: 0 };

  const running = new Map<string, number | null>();
  // Parked job runs wait on the parked task queue: they are this deployment's too.
  const queues = [config.temporal.task_queue, parkedTaskQueue(config.temporal.task_queue)];
  const query =
    `WorkflowType = '${JOB_WORKFLOW}' AND ExecutionStatus = 'Running' AND ` +
    `(${queues.map((queue) => `TaskQueue = '${queue}'`).join(' OR ')})`;
  for await (const execution of client.workflow.list({ query })) {
    const revision = (execution.memo as Partial<JobWorkflowMemo> | undefined)?.revision;
    running.set(execution.workflowId, typeof revision === 'number' ? revision : null);
  }

  let afterId: string | null = null;
  for (;;) {
    const page = await jobs.listWorkflowRevisions(afterId, PAGE);
    report.checked += page.length;
    const driftedIds = page
      .filter((job) => {
        const revision = running.get(job.id);
        running.delete(job.id);
        return revision === undefined || revision === null || revision < job.revision;
      })
      .map((job) => job.id);
    // Only drifted jobs are loaded in full (a job in sync costs one compared row).
    const drifted = await jobs.findManyUnscoped(driftedIds);
    await forEachBounded(drifted, concurrency, (job) =>
      gateway.upsertJob(toJobSnapshot(job, config), { key: job.key }),
    );
    report.upserted += drifted.length;
    if (page.length < PAGE) {
      break;
    }
    afterId = page[page.length - 1].id;
  }

  // What is left runs without an active, paused or disabled job; a job created since the listing
  // started is excluded by looking the ids up again.
  const orphans = [...running.keys()];
  const stillLive = new Set(await jobs.findIdsWithWorkflows(orphans));
  const stale = orphans.filter((id) => !stillLive.has(id));
  await forEachBounded(stale, concurrency, (id) => gateway.deleteJob(id));
  report.stopped = stale.length;
  return report;
}

async function forEachBounded<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      await fn(items[next++]);
    }
  });
  await Promise.all(lanes);
}

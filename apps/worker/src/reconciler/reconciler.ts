import type { AppConfig } from '@svc/common';
import type { JobsRepository } from '@svc/persistence';
import { type JobWorkflowGateway, toJobSnapshot } from '@svc/scheduling';
import { JOB_WORKFLOW } from '@svc/workflows/definitions';
import type { Client } from '@temporalio/client';

const PAGE = 200;

export interface ReconcileReport {
  upserted: number;
  stopped: number;
}

/**
 * Makes every active, paused or disabled job have its workflow, carrying the row's current
 * snapshot, and stops job workflows whose job no longer exists (architecture.md → How data moves 1).
 * Idempotent: a workflow ignores a snapshot whose revision it has already seen.
 */
export async function reconcileJobWorkflows(deps: {
  jobs: JobsRepository;
  gateway: JobWorkflowGateway;
  client: Client;
  config: AppConfig;
}): Promise<ReconcileReport> {
  const { jobs, gateway, client, config } = deps;
  const report: ReconcileReport = { upserted: 0, stopped: 0 };
  let afterId: string | null = null;
  for (;;) {
    const page = await jobs.listAllWithWorkflows(afterId, PAGE);
    for (const job of page) {
      await gateway.upsertJob(toJobSnapshot(job, config));
      report.upserted += 1;
    }
    if (page.length < PAGE) {
      break;
    }
    afterId = page[page.length - 1].id;
  }
  const query = `WorkflowType = '${JOB_WORKFLOW}' AND ExecutionStatus = 'Running' AND TaskQueue = '${config.temporal.task_queue}'`;
  for await (const execution of client.workflow.list({ query })) {
    const job = await jobs.findByIdUnscoped(execution.workflowId);
    if (!job || job.state === 'completed') {
      await gateway.deleteJob(execution.workflowId);
      report.stopped += 1;
    }
  }
  return report;
}

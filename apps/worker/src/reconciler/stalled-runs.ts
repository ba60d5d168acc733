import type { JobEntity, JobsRepository, RunEntity, RunsRepository } from '@svc/persistence';
import { type JobLifecycle, type JobWorkflowGateway, runWorkflowInputOf } from '@svc/orchestration';
import { type Client, WorkflowNotFoundError } from '@temporalio/client';

const BATCH = 200;

/** What a sweep did with each stalled run it examined. */
export interface StalledRunReport {
  examined: number;
  /** Rows whose workflow never started (or ended before the row was written): started now. */
  started: number;
  /** Rows of deleted jobs: closed `cancelled`. */
  cancelled: number;
  /** Rows whose workflow ended without closing them: closed with the workflow's end as reason. */
  closed: number;
}

/** What Temporal knows about a run's workflow (workflow id = run id). */
export type RunWorkflowState =
  { kind: 'missing' } | { kind: 'running' } | { kind: 'closed'; status: string; closedAt: Date | null };

/** The repair a stalled run gets, decided from its row, its job and its workflow. */
export type StalledRunAction =
  { kind: 'leave' } | { kind: 'start' } | { kind: 'close'; status: 'cancelled' | 'failed'; error: string };

/**
 * The rule, pure: a run of a deleted job ends `cancelled`; a row whose workflow never started, or
 * whose only workflow ended before the row was written (an occurrence withdrawn and reopened), is
 * started once; a row whose workflow ended without closing it is closed with that end as reason.
 * A queued occurrence (`deferred`, no attempt, no retry due) belongs to its job workflow: only a
 * deleted job closes it.
 */
export function decideStalledRun(run: RunEntity, jobExists: boolean, workflow: RunWorkflowState): StalledRunAction {
  const queued = run.status === 'deferred' && run.attemptsCount === 0 && run.nextAttemptAt === null;
  if (!jobExists) {
    if (workflow.kind === 'running') {
      // Its attempt finds the job gone and closes it; cancelling is the API's (delete) to do.
      return { kind: 'leave' };
    }
    return { kind: 'close', status: 'cancelled', error: 'job deleted before the run could finish' };
  }
  if (queued || workflow.kind === 'running') {
    return { kind: 'leave' };
  }
  if (workflow.kind === 'missing') {
    return { kind: 'start' };
  }
  if (workflow.closedAt !== null && workflow.closedAt < run.createdAt) {
    return { kind: 'start' };
  }
  if (workflow.status === 'CANCELLED') {
    return { kind: 'close', status: 'cancelled', error: 'run workflow cancelled' };
  }
  return {
    kind: 'close',
    status: 'failed',
    error: `run workflow ended (${workflow.status.toLowerCase()}) without recording an outcome`,
  };
}

/**
 * Finds runs that stopped progressing and repairs them (nothing hangs). Open rows with
 * no progress for `graceMs` are checked against their workflow (one DescribeWorkflowExecution
 * each); most are healthy (a long attempt, a retry about to fire) and left alone. Rows are written
 * before their workflows start, so a crash between the two, a start that never reached Temporal,
 * or a server that lost the workflow leaves such a row; here it is started (same id: same run
 * workflow, same `webhook-id`) or closed with a reason. Safe to run in several workers at once:
 * starts are idempotent by workflow id and closing a run twice changes nothing.
 */
export async function repairStalledRuns(deps: {
  runs: RunsRepository;
  jobs: JobsRepository;
  lifecycle: JobLifecycle;
  gateway: JobWorkflowGateway;
  client: Client;
  graceMs: number;
  clock: () => Date;
}): Promise<StalledRunReport> {
  const { runs, jobs, lifecycle, gateway, client, clock } = deps;
  const report: StalledRunReport = { examined: 0, started: 0, cancelled: 0, closed: 0 };
  const stalled = await runs.findStalled(new Date(clock().getTime() - deps.graceMs), BATCH);
  if (stalled.length === 0) {
    return report;
  }
  const jobsById = new Map<string, JobEntity>(
    (await jobs.findManyUnscoped([...new Set(stalled.map((run) => run.jobId))])).map((job) => [job.id, job]),
  );
  for (const run of stalled) {
    report.examined += 1;
    const job = jobsById.get(run.jobId);
    const workflow = await describeRunWorkflow(client, run.id);
    // Read again after asking Temporal: a workflow that closed its run between the listing and
    // the describe has made progress, and is neither restarted nor counted as repaired.
    const current = await runs.findByIdUnscoped(run.id);
    if (!current || !isOpen(current) || current.updatedAt.getTime() !== run.updatedAt.getTime()) {
      continue;
    }
    const action = decideStalledRun(current, job !== undefined, workflow);
    if (action.kind === 'start' && job) {
      // The job workflow tracks runs for these policies and ignores the end of one it does not know.
      await gateway.startRun(runWorkflowInputOf(current, job, { notifyJob: job.overlapPolicy !== 'allow' }));
      report.started += 1;
    } else if (action.kind === 'close') {
      await lifecycle.closeRun({ runId: run.id, status: action.status, finishedAt: clock(), error: action.error });
      report[action.status === 'cancelled' ? 'cancelled' : 'closed'] += 1;
    }
  }
  return report;
}

function isOpen(run: RunEntity): boolean {
  return run.status === 'running' || run.status === 'deferred';
}

async function describeRunWorkflow(client: Client, runId: string): Promise<RunWorkflowState> {
  try {
    const description = await client.workflow.getHandle(runId).describe();
    const status = description.status.name;
    if (status === 'RUNNING') {
      return { kind: 'running' };
    }
    return { kind: 'closed', status, closedAt: description.closeTime ?? null };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) {
      return { kind: 'missing' };
    }
    throw err;
  }
}

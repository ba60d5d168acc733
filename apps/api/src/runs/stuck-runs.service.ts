import { Inject, Injectable } from '@nestjs/common';
import { type AppConfig, finalPage, type Page, pageLimit, UnavailableError } from '@svc/common';
import { isId } from '@svc/workflow-contract/ids';
import { type JobEntity, JobsRepository, type RunEntity, RunsRepository, type RunStatus } from '@svc/persistence';
import { judgeStuckRun, JobWorkflowGateway, mayBeStuck } from '@svc/orchestration';
import { ATTEMPT_HEARTBEAT_TIMEOUT_MS } from '@svc/workflow-contract/definitions';
import type { AuthContext } from '../auth/auth.decorators';
import { APP_CONFIG } from '../config/config.module';
import type { ListRunsQueryDto } from './dto/list-runs-query.dto';
import { type RunListItem, toRunResponse, toStuckResponse } from './runs.mapper';

/** Open runs examined per request, oldest first (the likeliest to be stuck). */
export const STUCK_SCAN_LIMIT = 200;
/** DescribeWorkflowExecution calls in flight at once. */
const DESCRIBE_CONCURRENCY = 8;
const OPEN_STATUSES: RunStatus[] = ['running', 'deferred'];

/**
 * `GET /runs?stuck=true` (docs/operations.md → Stuck runs): open runs whose run workflow is
 * running in Temporal but not progressing, judged by the pure rule in libs/orchestration
 * (`judgeStuckRun`) against Temporal's pending activity. Rows without a running workflow are the
 * stalled-run sweep's (apps/worker/src/reconciler/stalled-runs.ts) and are not listed here.
 */
@Injectable()
export class StuckRunsService {
  constructor(
    private readonly runs: RunsRepository,
    private readonly jobs: JobsRepository,
    private readonly gateway: JobWorkflowGateway,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async list(auth: AuthContext, query: ListRunsQueryDto): Promise<Page<RunListItem>> {
    const statuses = query.status ? OPEN_STATUSES.filter((s) => s === query.status) : OPEN_STATUSES;
    if (statuses.length === 0 || (query.job_id !== undefined && !isId('job', query.job_id))) {
      return finalPage();
    }
    const open = await this.runs.list(auth.workspaceId, {
      jobId: query.job_id,
      statuses,
      trigger: query.trigger,
      slaBreached: query.sla_breached === true,
      from: query.from ? new Date(query.from) : undefined,
      to: query.to ? new Date(query.to) : undefined,
      tag: query.tag,
      oldestFirst: true,
      limit: STUCK_SCAN_LIMIT,
    });
    const jobs = new Map<string, JobEntity>(
      (await this.jobs.findMany(auth.workspaceId, [...new Set(open.map((r) => r.jobId))])).map((j) => [j.id, j]),
    );
    const now = new Date();
    const candidates = open.filter((run) => {
      const job = jobs.get(run.jobId);
      return job !== undefined && mayBeStuck(run, job, now, ATTEMPT_HEARTBEAT_TIMEOUT_MS);
    });
    const found: Array<RunListItem | null> = new Array<RunListItem | null>(candidates.length).fill(null);
    let next = 0;
    const lane = async () => {
      while (next < candidates.length) {
        const i = next++;
        found[i] = await this.judge(candidates[i], jobs.get(candidates[i].jobId)!);
      }
    };
    await Promise.all(Array.from({ length: Math.min(DESCRIBE_CONCURRENCY, candidates.length) }, lane));
    const stuck = found.filter((r): r is RunListItem => r !== null);
    // Newest first, like every run list.
    stuck.reverse();
    return finalPage(stuck.slice(0, pageLimit(query)));
  }

  private async judge(run: RunEntity, job: JobEntity): Promise<RunListItem | null> {
    let workflow;
    try {
      workflow = await this.gateway.describeRun(run.id);
    } catch {
      throw new UnavailableError('Temporal is unavailable; retry');
    }
    if (!workflow || workflow.status !== 'RUNNING') {
      return null;
    }
    const pending =
      workflow.pendingActivities.find((a) => a.activityType === 'runAttempt') ?? workflow.pendingActivities[0] ?? null;
    const verdict = judgeStuckRun({
      run,
      policy: job,
      pending,
      now: new Date(),
      heartbeatTimeoutMs: ATTEMPT_HEARTBEAT_TIMEOUT_MS,
    });
    if (!verdict.stuck) {
      return null;
    }
    return { ...toRunResponse(run), stuck: toStuckResponse(run.id, verdict, pending, this.config.temporal) };
  }
}

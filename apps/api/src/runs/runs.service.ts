import { Inject, Injectable } from '@nestjs/common';
import { type AppConfig, CURSORS, NotFoundError, type Page, readKeysetPage } from '@svc/common';
import { isId } from '@svc/workflow-contract/ids';
import { JobsRepository, RunsRepository } from '@svc/persistence';
import type { AuthContext } from '../auth/auth.decorators';
import { APP_CONFIG } from '../config/config.module';
import { ListRunsQueryDto } from './dto/list-runs-query.dto';
import { RunListItem, RunResponse, toRunResponse } from './runs.mapper';
import { StuckRunsService } from './stuck-runs.service';

/**
 * Reads runs and attempts from the PostgreSQL mirror (never from Temporal); `?stuck=true` asks
 * Temporal to describe the open runs that may be stuck (StuckRunsService).
 */
@Injectable()
export class RunsService {
  constructor(
    private readonly runs: RunsRepository,
    private readonly jobs: JobsRepository,
    private readonly stuck: StuckRunsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async listForJob(auth: AuthContext, jobId: string, query: ListRunsQueryDto): Promise<Page<RunListItem>> {
    // Run history outlives a deleted job, so an unknown job id with runs still lists them.
    const job = await this.jobs.getById(auth.workspaceId, jobId);
    if (!job) {
      const any = await this.runs.list(auth.workspaceId, { jobId, limit: 1 });
      if (any.length === 0) {
        throw new NotFoundError('Job');
      }
    }
    return this.list(auth, { ...query, job_id: jobId });
  }

  async list(auth: AuthContext, query: ListRunsQueryDto): Promise<Page<RunListItem>> {
    if (query.stuck === true) {
      return this.stuck.list(auth, query);
    }
    return readKeysetPage(query, {
      format: CURSORS.runs,
      fetch: async (after, limit) =>
        // A job id of another format names no job: an empty list, not a query.
        query.job_id !== undefined && !isId('job', query.job_id)
          ? []
          : this.runs.list(auth.workspaceId, {
              jobId: query.job_id,
              status: query.status,
              trigger: query.trigger,
              slaBreached: query.sla_breached === true,
              from: query.from ? new Date(query.from) : undefined,
              to: query.to ? new Date(query.to) : undefined,
              tag: query.tag,
              after: after && { scheduledAt: new Date(after.at), id: after.id },
              limit,
            }),
      keyOf: (run) => ({ at: run.scheduledAt.getTime(), id: run.id }),
      toItem: (run) => toRunResponse(run, undefined, this.config.temporal.ui_url),
    });
  }

  async get(auth: AuthContext, id: string): Promise<RunResponse> {
    const run = await this.runs.getById(auth.workspaceId, id);
    if (!run) {
      throw new NotFoundError('Run');
    }
    return toRunResponse(run, await this.runs.listAttempts(auth.workspaceId, id), this.config.temporal.ui_url);
  }
}

import { Injectable, Logger } from '@nestjs/common';
import { NotFoundError, ValidationFailedError } from '@svc/common';
import { newId } from '@svc/workflow-contract/ids';
import {
  AuditRepository,
  type JsonObject,
  JobsRepository,
  type OperationAction,
  OperationEntity,
  type OperationKind,
  OperationsRepository,
  RunsRepository,
} from '@svc/persistence';
import { matchesSinkHost, OperationWorkflowGateway, operationSummary } from '@svc/orchestration';
import type { AuthContext } from '../auth/auth.decorators';
import { WorkflowWork } from '../common/workflow-work';
import { bulkJobsProblems, recoverProblems } from './bulk-request.rules';
import {
  type BulkJobFilterDto,
  BulkJobsDto,
  OPERATION_MAX_ITEMS,
  RECOVER_DEFAULT_MAX,
  RecoverRunsDto,
} from './dto/operations.dto';
import { type OperationResponse, toOperationResponse } from './operations.mapper';

/** How many matched jobs or runs a dry run lists (it counts them all). */
const DRY_RUN_LIST_MAX = 1000;
/** How many refused items an operation shows. */
const ERRORS_SHOWN = 100;

/** `sink_host` without its port: the text a matching URL contains (the exact rule is `matchesSinkHost`). */
const hostText = (sinkHost: string | undefined) => sinkHost?.replace(/:\d+$/, '');

/**
 * Bulk actions and recover: validates the request, matches the jobs or failed runs once
 * (a dry run answers them), records the operation with its items and starts its workflow, which
 * applies the action item by item through the job lifecycle (libs/orchestration bulk-operations.ts).
 */
@Injectable()
export class OperationsService {
  private readonly logger = new Logger(OperationsService.name);
  /** Starting and cancelling the operations' workflows. */
  private readonly work: WorkflowWork<OperationEntity>;

  constructor(
    private readonly jobs: JobsRepository,
    private readonly runs: RunsRepository,
    private readonly operations: OperationsRepository,
    private readonly audit: AuditRepository,
    private readonly gateway: OperationWorkflowGateway,
  ) {
    this.work = new WorkflowWork(operations, gateway, 'Operation', this.logger);
  }

  async bulkJobs(auth: AuthContext, dto: BulkJobsDto) {
    const problems = bulkJobsProblems(dto, new Date());
    if (Object.keys(problems).length > 0) {
      throw new ValidationFailedError(problems);
    }
    const matched = await this.matchJobs(auth.workspaceId, dto.filter);
    if (matched.length > OPERATION_MAX_ITEMS) {
      throw new ValidationFailedError({
        filter: `matches more than ${OPERATION_MAX_ITEMS} jobs: narrow it, or split the action`,
      });
    }
    if (dto.dry_run) {
      return {
        dry_run: true as const,
        action: dto.action,
        matched: matched.length,
        jobs: matched.slice(0, DRY_RUN_LIST_MAX).map(({ id, name, state }) => ({ id, name, state })),
      };
    }
    return this.start(auth, {
      kind: 'jobs.bulk',
      action: dto.action,
      note: dto.note ?? null,
      resumeAt: dto.resume_at === undefined ? null : new Date(dto.resume_at),
      filter: { ...dto.filter, ...(dto.all ? { all: true } : {}) } as JsonObject,
      targetIds: matched.map((job) => job.id),
    });
  }

  async recover(auth: AuthContext, dto: RecoverRunsDto) {
    const problems = recoverProblems(dto);
    if (Object.keys(problems).length > 0) {
      throw new ValidationFailedError(problems);
    }
    const { filter } = dto;
    const max = dto.max ?? RECOVER_DEFAULT_MAX;
    const rows = await this.runs.listRecoverable(
      auth.workspaceId,
      {
        jobIds: filter.job_ids,
        tags: filter.tags,
        urlContains: hostText(filter.sink_host),
        from: filter.from === undefined ? undefined : new Date(filter.from),
        to: filter.to === undefined ? undefined : new Date(filter.to),
      },
      // A host filter is exact only after the read: read enough to keep `max` of them.
      filter.sink_host === undefined ? max : OPERATION_MAX_ITEMS,
    );
    const matched = (
      filter.sink_host === undefined
        ? rows
        : rows.filter((run) => matchesSinkHost(run.sinkKind, run.sinkConfig, filter.sink_host!))
    ).slice(0, max);
    if (dto.dry_run) {
      return {
        dry_run: true as const,
        action: 'retry' as const,
        matched: matched.length,
        runs: matched
          .slice(0, DRY_RUN_LIST_MAX)
          .map((run) => ({ id: run.id, job_id: run.jobId, scheduled_at: run.scheduledAt.toISOString() })),
      };
    }
    return this.start(auth, {
      kind: 'runs.recover',
      action: 'retry',
      note: dto.note ?? null,
      resumeAt: null,
      filter: { ...filter, max } as JsonObject,
      targetIds: matched.map((run) => run.id),
    });
  }

  async get(auth: AuthContext, id: string): Promise<OperationResponse> {
    const operation = await this.operations.getById(auth.workspaceId, id);
    if (!operation) {
      throw new NotFoundError('Operation');
    }
    return this.respond(operation);
  }

  /**
   * Stops an operation: no item is handled after the batch in flight, and a maintenance window
   * resumes nothing (its jobs stay paused). `409` once it has ended.
   */
  async cancel(auth: AuthContext, id: string): Promise<OperationResponse> {
    // Once recorded, the next batch stops by itself; but a window's wait only ends with the signal.
    const { found: operation, asked } = await this.work.cancel(auth.workspaceId, id, true);
    await this.audit.insert(auth.workspaceId, {
      actor: auth.actor,
      action: 'operation.cancel',
      target: id,
      details: { kind: operation.kind, action: operation.action },
    });
    return this.respond(asked);
  }

  private async matchJobs(workspaceId: string, filter: BulkJobFilterDto) {
    const rows = await this.jobs.listMatching(
      workspaceId,
      {
        // A field given as null counts as absent (found by Schemathesis: a null key_prefix was a 500).
        ids: filter.ids ?? undefined,
        tags: filter.tags ?? undefined,
        keyPrefix: filter.key_prefix ?? undefined,
        managedBy: filter.managed_by ?? undefined,
        state: filter.state ?? undefined,
        urlContains: hostText(filter.sink_host ?? undefined),
      },
      OPERATION_MAX_ITEMS + 1,
    );
    return (filter.sink_host ?? undefined) === undefined
      ? rows
      : rows.filter((job) => matchesSinkHost(job.sinkKind, job.sinkConfig, filter.sink_host!));
  }

  /**
   * Records the operation with its items, then starts its workflow; an operation whose workflow
   * cannot be started is removed again (`503`), as if it had never been asked for.
   */
  private async start(
    auth: AuthContext,
    request: {
      kind: OperationKind;
      action: OperationAction;
      note: string | null;
      resumeAt: Date | null;
      filter: JsonObject;
      targetIds: string[];
    },
  ): Promise<OperationResponse> {
    const now = new Date();
    const operation = Object.assign(new OperationEntity(), {
      id: newId('operation', now.getTime()),
      workspaceId: auth.workspaceId,
      kind: request.kind,
      action: request.action,
      status: 'running',
      actor: auth.actor,
      note: request.note,
      resumeAt: request.resumeAt,
      filter: request.filter,
      matched: request.targetIds.length,
      cancelRequestedAt: null,
      finishedAt: null,
    });
    await this.operations.create(operation, request.targetIds);
    await this.work.start(operation.id, () =>
      this.gateway.start(
        { operationId: operation.id, workspaceId: auth.workspaceId, resumeAt: request.resumeAt?.toISOString() ?? null },
        operationSummary(operation),
      ),
    );
    await this.audit.insert(auth.workspaceId, {
      actor: auth.actor,
      action: request.kind,
      target: operation.id,
      details: {
        action: request.action,
        matched: operation.matched,
        ...(request.note ? { note: request.note } : {}),
        ...(request.resumeAt ? { resume_at: request.resumeAt.toISOString() } : {}),
      },
    });
    return this.respond((await this.operations.getById(auth.workspaceId, operation.id)) ?? operation);
  }

  private async respond(operation: OperationEntity): Promise<OperationResponse> {
    const [progress, refused] = await Promise.all([
      this.operations.progress(operation.id),
      this.operations.failedItems(operation.id, ERRORS_SHOWN),
    ]);
    return toOperationResponse(operation, progress, refused);
  }
}

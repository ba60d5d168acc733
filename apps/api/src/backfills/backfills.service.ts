import { Inject, Injectable, Logger } from '@nestjs/common';
import { type AppConfig, NotFoundError, ValidationFailedError } from '@svc/common';
import { newId } from '@svc/workflow-contract/ids';
import {
  AuditRepository,
  BackfillEntity,
  BackfillsRepository,
  CalendarsRepository,
  type JobEntity,
  JobsRepository,
} from '@svc/persistence';
import {
  backfillConcurrency,
  backfillOccurrences,
  backfillSummary,
  BackfillWorkflowGateway,
  compileJobSchedule,
  toScheduleSnapshot,
  usesCalendars,
} from '@svc/orchestration';
import type { AuthContext } from '../auth/auth.decorators';
import { WorkflowWork } from '../common/workflow-work';
import { APP_CONFIG } from '../config/config.module';
import { RunOverridesValidator } from '../jobs/run-overrides.validator';
import { backfillOccurrenceProblems, backfillRangeProblems } from './backfill-request.rules';
import { type BackfillResponse, toBackfillResponse } from './backfills.mapper';
import { BackfillDto } from './dto/backfill.dto';

export interface BackfillAccepted {
  backfill_id: string | null;
  dry_run: boolean;
  occurrences: number;
  first: string | null;
  last: string | null;
}

/**
 * Backfills: validates the request, counts the job's occurrences in the range with the
 * schedule library in the job's time zone (a dry run answers them), records the backfill with its
 * occurrences and starts its workflow, which gives them their runs (libs/orchestration backfills.ts).
 */
@Injectable()
export class BackfillsService {
  private readonly logger = new Logger(BackfillsService.name);
  /** Starting and cancelling the backfills' workflows. */
  private readonly work: WorkflowWork<BackfillEntity>;

  constructor(
    private readonly jobs: JobsRepository,
    private readonly backfills: BackfillsRepository,
    private readonly calendars: CalendarsRepository,
    private readonly audit: AuditRepository,
    private readonly overrides: RunOverridesValidator,
    private readonly gateway: BackfillWorkflowGateway,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.work = new WorkflowWork(backfills, gateway, 'Backfill', this.logger);
  }

  async create(auth: AuthContext, jobId: string, dto: BackfillDto): Promise<BackfillAccepted> {
    const job = await this.jobs.getById(auth.workspaceId, jobId);
    if (!job) {
      throw new NotFoundError('Job');
    }
    const from = new Date(dto.from);
    const to = new Date(dto.to);
    const rangeProblems = backfillRangeProblems(from, to);
    if (Object.keys(rangeProblems).length > 0) {
      throw new ValidationFailedError(rangeProblems);
    }
    const overrides = await this.overrides.validate(job, dto.overrides);
    const now = new Date();
    const instants = await this.occurrences(job, from, to, now);
    const first = instants[0] ?? null;
    const last = instants[instants.length - 1] ?? null;
    const answer = (backfillId: string | null): BackfillAccepted => ({
      backfill_id: backfillId,
      dry_run: backfillId === null,
      occurrences: instants.length,
      first: first?.toISOString() ?? null,
      last: last?.toISOString() ?? null,
    });
    if (dto.dry_run) {
      return answer(null);
    }
    const mode = dto.mode ?? 'sequential';
    const backfill = Object.assign(new BackfillEntity(), {
      id: newId('backfill', now.getTime()),
      workspaceId: auth.workspaceId,
      jobId: job.id,
      mode,
      maxRuns: backfillConcurrency(mode, dto.max_runs),
      skipSucceeded: dto.skip_succeeded ?? true,
      rangeFrom: from,
      rangeTo: to,
      firstAt: first,
      lastAt: last,
      occurrences: instants.length,
      overrides,
      status: 'running',
      actor: auth.actor,
      cancelRequestedAt: null,
      finishedAt: null,
    });
    await this.backfills.create(backfill, instants);
    await this.work.start(backfill.id, () =>
      this.gateway.start(
        { backfillId: backfill.id, workspaceId: auth.workspaceId, jobId: job.id },
        backfillSummary({ ...backfill, jobName: job.name }),
        backfillDetails(backfill, job),
      ),
    );
    await this.audit.insert(auth.workspaceId, {
      actor: auth.actor,
      action: 'job.backfill',
      target: job.id,
      details: {
        backfill_id: backfill.id,
        from: from.toISOString(),
        to: to.toISOString(),
        occurrences: instants.length,
        mode,
        max_runs: backfill.maxRuns,
        skip_succeeded: backfill.skipSucceeded,
        ...(overrides ? { overrides } : {}),
      },
    });
    return answer(backfill.id);
  }

  async get(auth: AuthContext, id: string): Promise<BackfillResponse> {
    const backfill = await this.backfills.getById(auth.workspaceId, id);
    if (!backfill) {
      throw new NotFoundError('Backfill');
    }
    return toBackfillResponse(backfill, await this.backfills.progress(backfill.id));
  }

  /** Stops a backfill: no occurrence starts after it; runs in flight end on their own. `409` once it has ended. */
  async cancel(auth: AuthContext, id: string): Promise<BackfillResponse> {
    // Once recorded, the next step cancels what is pending by itself; the signal only ends the wait sooner.
    const { found: backfill, asked } = await this.work.cancel(auth.workspaceId, id, false);
    await this.audit.insert(auth.workspaceId, {
      actor: auth.actor,
      action: 'backfill.cancel',
      target: id,
      details: { job_id: backfill.jobId },
    });
    return toBackfillResponse(asked, await this.backfills.progress(id));
  }

  /** The job's occurrences in the range (its schedule, time zone, calendars and skips), or `400` past the cap. */
  private async occurrences(job: JobEntity, from: Date, to: Date, now: Date): Promise<Date[]> {
    const calendars = usesCalendars(job) ? await this.calendars.datesByName(job.workspaceId) : undefined;
    const compiled = compileJobSchedule(toScheduleSnapshot(job), calendars);
    if (!compiled.ok) {
      throw new ValidationFailedError({ from: 'the job’s schedule no longer compiles: fix the job first' });
    }
    const cap = this.config.limits.backfill_max_occurrences;
    const found = backfillOccurrences(
      compiled.schedule,
      { from, to, now },
      cap,
      new Set(Object.keys(job.occurrenceSkips ?? {})),
    );
    if (!found.ok) {
      throw new ValidationFailedError(backfillOccurrenceProblems(found, cap));
    }
    return found.instants;
  }
}

/** Markdown the Web UI shows under the backfill's workflow (static details). */
function backfillDetails(backfill: BackfillEntity, job: JobEntity): string {
  return [
    `**Backfill** of job \`${job.id}\` (${job.name})`,
    `Range: ${backfill.rangeFrom.toISOString()} → ${backfill.rangeTo.toISOString()} (${backfill.occurrences} occurrences)`,
    `Mode: ${backfill.mode}${backfill.mode === 'parallel' ? `, ${backfill.maxRuns} at once` : ''}; ` +
      `skip succeeded: ${backfill.skipSucceeded ? 'yes' : 'no'}`,
  ].join('\n\n');
}

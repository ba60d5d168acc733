import { Injectable } from '@nestjs/common';
import { CURSORS, NotFoundError, type Page, parseDuration, readKeysetPage } from '@svc/common';
import { JobEntity, JobsRepository, RunsRepository } from '@svc/persistence';
import { JobLifecycle, nextFireTimes, type UserTransition } from '@svc/orchestration';
import type { CompiledSchedule } from '@svc/schedule';
import type { AuthContext } from '../auth/auth.decorators';
import { CreateJobDto, ListJobsQueryDto, SinkDto, UpdateJobDto } from './dto/job-body.dto';
import { checkRetry, storedRetry } from './job-config';
import { applyJobPatch, type JobPatch } from './job-patch';
import { JobScheduleValidator } from './job-schedule.validator';
import { JobResponse, toJobResponse, toJobSettings } from './jobs.mapper';
import { SinkTemplateChecker } from './sink-templates.checker';
import { SinkValidator } from './sink.validator';
import { JobSettingsFactory } from './job-settings.factory';

const NEXT_RUNS_ON_GET = 5;
const DAY_MS = 86_400_000;

/**
 * The jobs endpoints: request validation (schedule, sink, templates, retry, the PATCH merge) and
 * response mapping. Every change of a job (and its workflow) is `JobLifecycle`'s.
 */
@Injectable()
export class JobsService {
  constructor(
    private readonly jobs: JobsRepository,
    private readonly runs: RunsRepository,
    private readonly lifecycle: JobLifecycle,
    private readonly schedules: JobScheduleValidator,
    private readonly sinks: SinkValidator,
    private readonly templates: SinkTemplateChecker,
    private readonly settingsFactory: JobSettingsFactory,
  ) {}

  /** `POST /jobs` (and a `PUT /jobs/by-key/{key}` that creates): the create defaults, `JobSettingsFactory`'s. */
  async create(auth: AuthContext, dto: CreateJobDto): Promise<JobResponse> {
    const now = new Date();
    const plan = await this.lifecycle.planOf(auth.workspaceId);
    const { settings, compiled } = await this.settingsFactory.fromDeclaration(dto, now, plan);
    const { job, signingSecret } = await this.lifecycle.create(auth.workspaceId, auth.actor, settings, {
      plan,
      now,
      check: (manager) => this.templates.check(auth.workspaceId, settings.sinkKind, settings.sinkConfig, manager),
      identity: { key: dto.key ?? null, managedBy: null },
    });
    return toJobResponse(job, { nextRunAt: this.nextRuns(job, now, 1, compiled)[0] ?? null, signingSecret });
  }

  list(auth: AuthContext, query: ListJobsQueryDto): Promise<Page<JobResponse>> {
    const now = new Date();
    return readKeysetPage(query, {
      format: CURSORS.jobs,
      fetch: (after, limit) => this.jobs.list(auth.workspaceId, { ...query, beforeId: after?.id, limit }),
      keyOf: ({ id }) => ({ id }),
      toItem: (job) => toJobResponse(job, { nextRunAt: this.nextRuns(job, now, 1)[0] ?? null }),
    });
  }

  async get(auth: AuthContext, id: string): Promise<JobResponse> {
    const job = await this.require(auth.workspaceId, id);
    const now = new Date();
    const nextRuns = this.nextRuns(job, now, NEXT_RUNS_ON_GET);
    const stats24h = await this.runs.stats(auth.workspaceId, job.id, new Date(now.getTime() - DAY_MS));
    return toJobResponse(job, { nextRunAt: nextRuns[0] ?? null, nextRuns, stats24h });
  }

  /**
   * `PATCH /jobs/{id}`: the stored job ⊕ the patch (`applyJobPatch`, the one merge rule), then
   * the merged job validated as a create validates it, inside the lifecycle's transaction on the
   * locked row: a refused PATCH writes nothing. The version, the signing secret of a new sink kind
   * and the state are `JobLifecycle.update`'s.
   */
  async update(auth: AuthContext, id: string, dto: UpdateJobDto): Promise<JobResponse> {
    const now = new Date();
    const plan = await this.lifecycle.planOf(auth.workspaceId);
    const patch = dto as JobPatch;
    let compiled: CompiledSchedule | undefined; // the new schedule, when the PATCH gives one
    const { job, signingSecret } = await this.lifecycle.update(auth.workspaceId, id, auth.actor, {
      fields: Object.keys(dto),
      apply: async (job, manager) => {
        const merged = applyJobPatch(toJobSettings(job), patch);
        // The stored schedule and sink were valid when written; they are validated again when the
        // PATCH touches them (an untouched schedule keeps its anchor, so interval phases hold).
        if (patch.schedule !== undefined) {
          const schedule = this.schedules.validate(merged.schedule, now, plan.min_interval_ms);
          Object.assign(job, schedule.columns);
          compiled = schedule.compiled;
        }
        if (patch.sink !== undefined) {
          const sinkConfig = await this.sinks.validate(merged.sink as SinkDto);
          await this.templates.check(auth.workspaceId, merged.sink.kind, sinkConfig, manager);
          job.sinkKind = merged.sink.kind;
          job.sinkConfig = sinkConfig as JobEntity['sinkConfig'];
        }
        job.retry = checkRetry(storedRetry(merged.retry));
        job.name = merged.name;
        job.description = merged.description;
        job.tags = merged.tags;
        job.timeoutMs = parseDuration(merged.timeout)!;
        job.slaThresholdMs = merged.sla_threshold === null ? null : parseDuration(merged.sla_threshold)!;
        job.misfirePolicy = merged.misfire_policy;
        job.overlapPolicy = merged.overlap_policy;
        job.autoDisableThreshold = merged.auto_disable_threshold;
      },
      hasNextOccurrence: (job) => nextFireTimes(job, now, 1, compiled).length > 0,
    });
    return toJobResponse(job, { nextRunAt: this.nextRuns(job, now, 1, compiled)[0] ?? null, signingSecret });
  }

  remove(auth: AuthContext, id: string): Promise<void> {
    return this.lifecycle.delete(auth.workspaceId, id, auth.actor);
  }

  pause(auth: AuthContext, id: string) {
    return this.transition(auth, id, 'pause');
  }

  resume(auth: AuthContext, id: string) {
    return this.transition(auth, id, 'resume');
  }

  enable(auth: AuthContext, id: string) {
    return this.transition(auth, id, 'enable');
  }

  /** Manual run (`JobLifecycle.trigger`); its row exists when this answers. */
  async trigger(auth: AuthContext, id: string): Promise<{ run_id: string }> {
    const { runId } = await this.lifecycle.trigger(auth.workspaceId, id, auth.actor);
    return { run_id: runId };
  }

  /** A new signing secret for a webhook job (`JobLifecycle.rotateSigningSecret`), in this response only. */
  async rotateSigningSecret(auth: AuthContext, id: string): Promise<JobResponse> {
    const now = new Date();
    const { job, signingSecret } = await this.lifecycle.rotateSigningSecret(auth.workspaceId, id, auth.actor, now);
    return toJobResponse(job, { nextRunAt: this.nextRuns(job, now, 1)[0] ?? null, signingSecret });
  }

  private async transition(auth: AuthContext, id: string, change: UserTransition): Promise<JobResponse> {
    const updated = await this.lifecycle.transition(auth.workspaceId, id, change, auth.actor);
    return toJobResponse(updated, { nextRunAt: this.nextRuns(updated, new Date(), 1)[0] ?? null });
  }

  /**
   * Upcoming fire times of an active job, from `now`; none for other states. `compiled` is the
   * job's schedule when the validator has just compiled it (create, PATCH).
   */
  private nextRuns(job: JobEntity, now: Date, count: number, compiled?: CompiledSchedule): Date[] {
    return job.state === 'active' ? nextFireTimes(job, now, count, compiled) : [];
  }

  private async require(workspaceId: string, id: string): Promise<JobEntity> {
    const job = await this.jobs.getById(workspaceId, id);
    if (!job) {
      throw new NotFoundError('Job');
    }
    return job;
  }
}

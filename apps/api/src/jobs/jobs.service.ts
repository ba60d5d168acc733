import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '@svc/common';
import { APP_CONFIG } from '../config/config.module';
import { CURSORS, NotFoundError, type Page, readKeysetPage, ValidationFailedError } from '@svc/common';
import { CalendarsRepository, JobEntity, JobsRepository, type LatestRun, RunsRepository } from '@svc/persistence';
import {
  type CalendarDates,
  JobLifecycle,
  nextFireTimes,
  type UserTransition,
  usesCalendars,
} from '@svc/orchestration';
import type { CompiledSchedule } from '@svc/schedule';
import type { AuthContext } from '../auth/auth.decorators';
import { CreateJobDto, ListJobsQueryDto, SinkDto, UpdateJobDto } from './dto/job-body.dto';
import { checkRetry, checkSpread, START_WINDOW_SAMPLE, storedRetry } from './job-config';
import { applyJobPatch, type JobPatch, scalarColumns } from './job-patch';
import { JobScheduleValidator } from './job-schedule.validator';
import { JobResponse, toJobResponse, toJobSettings } from './jobs.mapper';
import { SinkTemplateChecker } from './sink-templates.checker';
import { SinkValidator } from './sink.validator';
import { RunOverridesValidator } from './run-overrides.validator';
import { pendingFieldErrors, withoutRefused } from '../common/validation';
import { FieldErrors } from './field-errors';
import { JobSettingsFactory } from './job-settings.factory';
import { upcomingSkips } from './occurrence-skips/occurrence-skips.mapper';

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
    private readonly calendars: CalendarsRepository,
    private readonly overrides: RunOverridesValidator,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** `POST /jobs` (and a `PUT /jobs/by-key/{key}` that creates): the create defaults, `JobSettingsFactory`'s. */
  async create(auth: AuthContext, dto: CreateJobDto): Promise<JobResponse> {
    const now = new Date();
    const plan = await this.lifecycle.planOf(auth.workspaceId);
    const { settings, compiled, ownSigningSecret } = await this.settingsFactory.fromDeclaration(
      dto,
      now,
      plan,
      auth.workspaceId,
    );
    const { job, signingSecret } = await this.lifecycle.create(auth.workspaceId, auth.actor, settings, {
      plan,
      now,
      check: (manager) => this.templates.check(auth.workspaceId, settings.sinkKind, settings.sinkConfig, manager),
      identity: { key: dto.key ?? null, managedBy: null },
      signingSecret: ownSigningSecret,
    });
    // A secret the caller chose is not echoed: it holds it already, and a response is no place for it.
    return toJobResponse(job, {
      nextRunAt: this.nextRuns(job, now, 1, compiled)[0] ?? null,
      signingSecret: ownSigningSecret === undefined ? signingSecret : undefined,
    });
  }

  /** A page of jobs, each with its `latest_run` (open ones included), read in one query for the page. */
  list(auth: AuthContext, query: ListJobsQueryDto): Promise<Page<JobResponse>> {
    const now = new Date();
    let latest = new Map<string, LatestRun>();
    let calendars: CalendarDates | undefined;
    return readKeysetPage(query, {
      format: CURSORS.jobs,
      fetch: async (after, limit) => {
        const jobs = await this.jobs.list(auth.workspaceId, { ...query, beforeId: after?.id, limit });
        calendars = await this.calendarsFor(auth.workspaceId, jobs);
        latest = await this.runs.latestForJobs(
          auth.workspaceId,
          jobs.map((job) => job.id),
          this.config.scheduler.default_sla_threshold_ms,
          now,
        );
        return jobs;
      },
      keyOf: ({ id }) => ({ id }),
      toItem: (job) =>
        toJobResponse(job, {
          nextRunAt: this.nextRuns(job, now, 1, undefined, calendars)[0] ?? null,
          latestRun: latest.get(job.id) ?? null,
        }),
    });
  }

  async get(auth: AuthContext, id: string): Promise<JobResponse> {
    const job = await this.require(auth.workspaceId, id);
    const now = new Date();
    const nextRuns = this.nextRuns(
      job,
      now,
      NEXT_RUNS_ON_GET,
      undefined,
      await this.calendarsFor(auth.workspaceId, [job]),
    );
    const stats24h = await this.runs.stats(auth.workspaceId, job.id, new Date(now.getTime() - DAY_MS));
    return toJobResponse(job, {
      nextRunAt: nextRuns[0] ?? null,
      nextRuns,
      skippedOccurrences: upcomingSkips(job, now),
      stats24h,
    });
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
    // The body's own errors: the fields they refuse are left out of the merge, the rest
    // is still validated, and one 400 names them all.
    const pending = pendingFieldErrors(dto);
    const patch = withoutRefused(dto, pending) as JobPatch;
    let compiled: CompiledSchedule | undefined; // the new schedule, when the PATCH gives one
    const update = this.lifecycle.update(auth.workspaceId, id, auth.actor, {
      fields: Object.keys(dto),
      apply: async (job, manager) => {
        const problems = new FieldErrors(pending);
        const merged = await problems.run(() => applyJobPatch(toJobSettings(job), patch));
        if (!merged) {
          problems.throwIfAny();
          return;
        }
        // The stored schedule and sink were valid when written; they are validated again when the
        // PATCH touches them (an untouched schedule keeps its anchor, so interval phases hold).
        const schedule =
          patch.schedule === undefined
            ? undefined
            : await problems.run(() =>
                this.schedules.validateIn(auth.workspaceId, merged.schedule, now, plan.min_interval_ms),
              );
        const sinkConfig =
          patch.sink === undefined
            ? undefined
            : await problems.run(() => this.sinks.validate(merged.sink as SinkDto, auth.workspaceId));
        if (sinkConfig !== undefined) {
          await problems.run(() => this.templates.check(auth.workspaceId, merged.sink.kind, sinkConfig, manager));
        }
        const retry = await problems.run(() => checkRetry(storedRetry(merged.retry)));
        const spread = await problems.run(() =>
          checkSpread(merged, () =>
            nextFireTimes(schedule?.columns ?? job, now, START_WINDOW_SAMPLE, schedule?.compiled),
          ),
        );
        problems.throwIfAny(); // a refused PATCH writes nothing
        if (schedule) {
          Object.assign(job, schedule.columns);
          compiled = schedule.compiled;
        }
        if (sinkConfig !== undefined) {
          job.sinkKind = merged.sink.kind;
          job.sinkConfig = sinkConfig as JobEntity['sinkConfig'];
        }
        Object.assign(job, scalarColumns(merged), { retry: retry! }, spread!);
      },
      hasNextOccurrence: (job) => nextFireTimes(job, now, 1, compiled).length > 0,
    });
    const { job, signingSecret } = await update.catch((err: unknown) => {
      // A refused body is refused whatever the id (as it was when the pipe refused it).
      throw err instanceof NotFoundError && Object.keys(pending).length > 0 ? new ValidationFailedError(pending) : err;
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

  /** Manual run (`JobLifecycle.trigger`), with its per-run overrides; its row exists when this answers. */
  async trigger(auth: AuthContext, id: string, overrides?: Record<string, unknown>): Promise<{ run_id: string }> {
    const { runId } = await this.lifecycle.trigger(auth.workspaceId, id, auth.actor, {}, (job) =>
      this.overrides.validate(job, overrides),
    );
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
  private nextRuns(
    job: JobEntity,
    now: Date,
    count: number,
    compiled?: CompiledSchedule,
    calendars?: CalendarDates,
  ): Date[] {
    return job.state === 'active' ? nextFireTimes(job, now, count, compiled, calendars) : [];
  }

  /** The workspace's calendars when one of `jobs` excludes some, else none read. */
  private async calendarsFor(workspaceId: string, jobs: JobEntity[]): Promise<CalendarDates | undefined> {
    return jobs.some(usesCalendars) ? this.calendars.datesByName(workspaceId) : undefined;
  }

  private async require(workspaceId: string, id: string): Promise<JobEntity> {
    const job = await this.jobs.getById(workspaceId, id);
    if (!job) {
      throw new NotFoundError('Job');
    }
    return job;
  }
}

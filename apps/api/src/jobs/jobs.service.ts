import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  type AppConfig,
  ConflictError,
  readCursor,
  CURSORS,
  LimitExceededError,
  newId,
  NotFoundError,
  type Page,
  PAGE_LIMIT_DEFAULT,
  parseDuration,
  type PlanLimits,
  UnavailableError,
} from '@svc/common';
import { addLogFields } from '@svc/common/logging';
import { generateSigningSecret, rotateSigningSecrets } from '@svc/delivery';
import { AuditRepository, JobEntity, JobsRepository, RunsRepository, Transactions, type Tx } from '@svc/persistence';
import {
  compileJobSchedule,
  describeForTemporal,
  JobLifecycle,
  JobWorkflowGateway,
  toJobSnapshot,
} from '@svc/orchestration';
import type { AuthContext } from '../auth/auth.decorators';
import { BackgroundWork } from '../temporal/background-work';
import { APP_CONFIG } from '../config/config.module';
import { CreateJobDto, ListJobsQueryDto, ScheduleDto, SinkDto, UpdateJobDto } from './dto/job-body.dto';
import { checkRetry, DEFAULT_RETRY, DEFAULT_TIMEOUT_MS, mergeRetry, storedRetry } from './job-config';
import { applyJobPatch, changesSinkKind, type JobPatch } from './job-patch';
import { JobScheduleValidator, ValidatedSchedule } from './job-schedule.validator';
import { JobResponse, toJobResponse, toJobSettings } from './jobs.mapper';
import { SinkTemplateChecker } from './sink-templates.checker';
import { SinkValidator } from './sink.validator';

const NEXT_RUNS_ON_GET = 5;
const DAY_MS = 86_400_000;

/** Job lifecycle: validation, the job row and its audit entry, then the job's workflow. */
@Injectable()
export class JobsService {
  private readonly logger = new Logger(JobsService.name);

  constructor(
    private readonly transactions: Transactions,
    private readonly jobs: JobsRepository,
    private readonly runs: RunsRepository,
    private readonly audit: AuditRepository,
    private readonly gateway: JobWorkflowGateway,
    private readonly background: BackgroundWork,
    private readonly lifecycle: JobLifecycle,
    private readonly schedules: JobScheduleValidator,
    private readonly sinks: SinkValidator,
    private readonly templates: SinkTemplateChecker,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async create(auth: AuthContext, dto: CreateJobDto): Promise<JobResponse> {
    const now = new Date();
    const plan = await this.planOf(auth.workspaceId);
    const schedule = this.schedules.validate(dto.schedule, now, plan.min_interval_ms);
    const sinkConfig = await this.sinks.validate(dto.sink);
    const retry = checkRetry(mergeRetry(DEFAULT_RETRY, dto.retry));
    const signingSecret = dto.sink.kind === 'webhook' ? generateSigningSecret() : undefined;

    const job = Object.assign(new JobEntity(), {
      id: newId('job', now.getTime()),
      workspaceId: auth.workspaceId,
      name: dto.name,
      description: dto.description ?? '',
      tags: dto.tags ?? [],
      ...scheduleColumns(schedule),
      sinkKind: dto.sink.kind,
      sinkConfig: sinkConfig as JobEntity['sinkConfig'],
      retry,
      timeoutMs: dto.timeout ? parseDuration(dto.timeout)! : DEFAULT_TIMEOUT_MS,
      slaThresholdMs: dto.sla_threshold ? parseDuration(dto.sla_threshold)! : null,
      misfirePolicy: dto.misfire_policy ?? 'fire_once',
      overlapPolicy: dto.overlap_policy ?? 'allow',
      autoDisableThreshold: dto.auto_disable_threshold ?? null,
      state: 'active',
      disabledReason: null,
      consecutiveFailures: 0,
      version: 1,
      revision: 1,
      signingSecrets: signingSecret ? [{ secret: signingSecret, expires_at: null }] : [],
    });
    addLogFields({ job_id: job.id }); // this request's later lines and its access line name the new job

    const saved = await this.transactions.run(async (manager) => {
      await this.templates.check(auth.workspaceId, job.sinkKind, sinkConfig, manager);
      if (plan.max_jobs_per_workspace > 0) {
        await this.jobs.lockWorkspaceCreates(auth.workspaceId, manager);
        const count = await this.jobs.countInWorkspace(auth.workspaceId, manager);
        if (count >= plan.max_jobs_per_workspace) {
          throw new LimitExceededError(
            'max_jobs_per_workspace',
            plan.max_jobs_per_workspace,
            `This workspace's plan allows at most ${plan.max_jobs_per_workspace} jobs`,
          );
        }
      }
      // The insert's RETURNING fills the columns the database defaults (created_at, updated_at).
      await this.jobs.insert(job, manager);
      await this.audit.insert(
        auth.workspaceId,
        { actor: auth.actor, action: 'job.create', target: job.id, details: { name: job.name, sink: job.sinkKind } },
        manager,
      );
      return job;
    });
    // The row is the system of record; the job's workflow starts right after the answer (a loaded
    // Temporal server does not slow the create down), in order with later work on the same job.
    this.syncInBackground(`starting the workflow of job ${saved.id}`, saved);
    return toJobResponse(saved, { nextRunAt: this.nextRuns(saved, now, 1)[0] ?? null, signingSecret });
  }

  async list(auth: AuthContext, query: ListJobsQueryDto): Promise<Page<JobResponse>> {
    const limit = query.limit ?? PAGE_LIMIT_DEFAULT;
    const beforeId = readCursor(CURSORS.jobs, query.cursor)?.id;
    const rows = await this.jobs.list(auth.workspaceId, { ...query, beforeId, limit: limit + 1 });
    const page = rows.slice(0, limit);
    const now = new Date();
    return {
      data: page.map((job) => toJobResponse(job, { nextRunAt: this.nextRuns(job, now, 1)[0] ?? null })),
      next_cursor: rows.length > limit ? CURSORS.jobs.encode({ id: page[page.length - 1].id }) : null,
    };
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
   * the merged job validated as a create validates it, then written with its audit entry, all in
   * one transaction: a refused PATCH writes nothing. A change of sink kind to `webhook` gives the
   * job a signing secret (in this response only, as on create); to `command`, its secrets go.
   */
  async update(auth: AuthContext, id: string, dto: UpdateJobDto): Promise<JobResponse> {
    const now = new Date();
    const plan = await this.planOf(auth.workspaceId);
    const patch = dto as JobPatch;
    let signingSecret: string | undefined;
    const updated = await this.transactions.run(async (manager) => {
      const job = await this.requireForUpdate(auth.workspaceId, id, manager);
      const stored = toJobSettings(job);
      const merged = applyJobPatch(stored, patch);
      // The stored schedule and sink were valid when written; they are validated again when the
      // PATCH touches them (an untouched schedule keeps its anchor, so interval phases hold).
      if (patch.schedule !== undefined) {
        const schedule = this.schedules.validate(merged.schedule as ScheduleDto, now, plan.min_interval_ms);
        Object.assign(job, scheduleColumns(schedule));
      }
      if (patch.sink !== undefined) {
        const sinkConfig = await this.sinks.validate(merged.sink as SinkDto);
        await this.templates.check(auth.workspaceId, merged.sink.kind, sinkConfig, manager);
        if (changesSinkKind(stored, patch)) {
          signingSecret = merged.sink.kind === 'webhook' ? generateSigningSecret() : undefined;
          job.signingSecrets = signingSecret ? [{ secret: signingSecret, expires_at: null }] : [];
        }
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
      job.version += 1;
      job.revision += 1;
      // A completed job whose new schedule has future occurrences becomes active again.
      if (job.state === 'completed' && this.nextRuns({ ...job, state: 'active' } as JobEntity, now, 1).length > 0) {
        job.state = 'active';
      }
      await this.jobs.save(job, manager);
      await this.audit.insert(
        auth.workspaceId,
        {
          actor: auth.actor,
          action: 'job.update',
          target: job.id,
          details: {
            fields: Object.keys(dto),
            version: job.version,
            ...(changesSinkKind(stored, patch) ? { sink_kind: { from: stored.sink.kind, to: merged.sink.kind } } : {}),
          },
        },
        manager,
      );
      return (await this.jobs.getById(auth.workspaceId, id, manager))!;
    });
    // Signalled before the answer, so a PATCH that returned is in force; if the signal fails
    // (Temporal unreachable), the row stands, the answer goes out and the signal is retried.
    try {
      await this.gateway.upsertJob(toJobSnapshot(updated, this.config));
    } catch (err) {
      this.logger.warn(`signalling the workflow of job ${id} failed (${(err as Error).message}); retrying`);
      this.syncInBackground(`updating the workflow of job ${id}`, updated, { alreadyTried: true });
    }
    return toJobResponse(updated, { nextRunAt: this.nextRuns(updated, now, 1)[0] ?? null, signingSecret });
  }

  async remove(auth: AuthContext, id: string): Promise<void> {
    await this.transactions.run(async (manager) => {
      const job = await this.requireForUpdate(auth.workspaceId, id, manager);
      await this.jobs.delete(auth.workspaceId, job.id, manager);
      await this.audit.insert(
        auth.workspaceId,
        { actor: auth.actor, action: 'job.delete', target: job.id, details: { name: job.name } },
        manager,
      );
    });
    // The job stops at once: its row is gone, so no attempt of it sends anything from here on.
    // Its workflow ends and its in-flight runs are cancelled (decisions.md → Run transitions)
    // after the answer, so a loaded Temporal server does not slow the DELETE down.
    this.background.run(
      `stopping the workflows of deleted job ${id}`,
      async () => {
        const inFlight = await this.runs.listInFlightForJob(auth.workspaceId, id);
        await Promise.all([this.gateway.deleteJob(id), ...inFlight.map((run) => this.gateway.cancelRun(run.id))]);
      },
      { key: id },
    );
  }

  pause(auth: AuthContext, id: string) {
    return this.transition(auth, id, 'active', 'paused', 'job.pause');
  }

  resume(auth: AuthContext, id: string) {
    return this.transition(auth, id, 'paused', 'active', 'job.resume');
  }

  enable(auth: AuthContext, id: string) {
    return this.transition(auth, id, 'disabled', 'active', 'job.enable');
  }

  /**
   * Manual run: starts at once, the schedule is unaffected (spec: Job states). The run row is
   * written before the workflow starts, so `GET /runs/{run_id}` answers as soon as this returns.
   */
  async trigger(auth: AuthContext, id: string): Promise<{ run_id: string }> {
    const job = await this.require(auth.workspaceId, id);
    if (job.state !== 'active' && job.state !== 'paused') {
      throw new ConflictError(`Cannot trigger a ${job.state} job; only active or paused jobs can be triggered`);
    }
    const now = new Date();
    const quota = await this.lifecycle.blockingQuota(auth.workspaceId, now.toISOString().slice(0, 7));
    if (quota && quota.used >= quota.limit) {
      throw new LimitExceededError(
        'max_runs_per_month_per_workspace',
        quota.limit,
        'The monthly run limit of this workspace is reached',
        429,
      );
    }
    const runId = newId('run', now.getTime());
    addLogFields({ run_id: runId });
    const run = {
      runId,
      jobId: job.id,
      workspaceId: job.workspaceId,
      jobVersion: job.version,
      scheduledAt: now.toISOString(),
      trigger: 'manual' as const,
    };
    await this.runs.openRuns([{ ...run, id: runId, status: 'running' }], now);
    try {
      await this.gateway.startRun({ ...run, display: describeForTemporal(job) });
    } catch (err) {
      this.logger.warn(`trigger of ${job.id} failed: ${(err as Error).message}`);
      // Nothing will deliver it: the row is removed again rather than left running forever.
      await this.runs.deleteUnstarted(auth.workspaceId, runId);
      throw new UnavailableError('The scheduler is unavailable; retry');
    }
    await this.audit.insert(auth.workspaceId, {
      actor: auth.actor,
      action: 'job.trigger',
      target: job.id,
      details: { run_id: runId },
    });
    return { run_id: runId };
  }

  /**
   * A new signing secret for a webhook job (spec: Jobs → rotate-signing-secret; Signature 5): it
   * signs from the next request on, and the secret it replaces keeps signing beside it for 24
   * hours (`rotateSigningSecrets`). The new secret is in this response only; the audit entry
   * records when the old one stops, never a secret. The job's `version` is unchanged: its
   * schedule and queued occurrences are untouched.
   */
  async rotateSigningSecret(auth: AuthContext, id: string): Promise<JobResponse> {
    const now = new Date();
    const signingSecret = generateSigningSecret();
    const rotated = await this.transactions.run(async (manager) => {
      const job = await this.jobs.getWithSigningSecretsForUpdate(auth.workspaceId, id, manager);
      if (!job) {
        throw new NotFoundError('Job');
      }
      if (job.sinkKind !== 'webhook') {
        throw new ConflictError(`Only webhook jobs have a signing secret; this job's sink is ${job.sinkKind}`);
      }
      const secrets = rotateSigningSecrets(job.signingSecrets, signingSecret, now.getTime());
      await this.jobs.setSigningSecrets(auth.workspaceId, id, secrets, manager);
      await this.audit.insert(
        auth.workspaceId,
        {
          actor: auth.actor,
          action: 'job.rotate_signing_secret',
          target: id,
          details: { previous_secret_expires_at: secrets[1]?.expires_at ?? null, signing_secrets: secrets.length },
        },
        manager,
      );
      return (await this.jobs.getById(auth.workspaceId, id, manager))!;
    });
    return toJobResponse(rotated, { nextRunAt: this.nextRuns(rotated, now, 1)[0] ?? null, signingSecret });
  }

  private async transition(
    auth: AuthContext,
    id: string,
    from: JobEntity['state'],
    to: JobEntity['state'],
    action: string,
  ): Promise<JobResponse> {
    const updated = await this.lifecycle.transition(auth.workspaceId, id, { from, to, action, actor: auth.actor });
    return toJobResponse(updated, { nextRunAt: this.nextRuns(updated, new Date(), 1)[0] ?? null });
  }

  /**
   * Tells the job's workflow about the row (signal-with-start) after the answer, retried on
   * failure (`BackgroundWork`). A retry reads the row again: it sends the newest snapshot, and
   * nothing for a job deleted meanwhile (the delete's own follow-up, queued after, stops it).
   */
  private syncInBackground(label: string, job: JobEntity, options: { alreadyTried?: boolean } = {}): void {
    this.background.run(
      label,
      async (attempt) => {
        const current = attempt === 0 ? job : await this.jobs.getById(job.workspaceId, job.id);
        if (current) {
          await this.gateway.upsertJob(toJobSnapshot(current, this.config));
        }
      },
      { key: job.id, ...options },
    );
  }

  /** Upcoming fire times of an active job, from `now`; none for other states. */
  private nextRuns(job: JobEntity, now: Date, count: number): Date[] {
    if (job.state !== 'active') {
      return [];
    }
    const result = compileJobSchedule(toJobSnapshot(job, this.config).schedule);
    if (!result.ok) {
      return [];
    }
    try {
      return result.schedule.next(now, count);
    } catch {
      return [];
    }
  }

  private planOf(workspaceId: string): Promise<PlanLimits> {
    return this.lifecycle.planOf(workspaceId);
  }

  private async require(workspaceId: string, id: string): Promise<JobEntity> {
    const job = await this.jobs.getById(workspaceId, id);
    if (!job) {
      throw new NotFoundError('Job');
    }
    return job;
  }

  private async requireForUpdate(workspaceId: string, id: string, manager: Tx): Promise<JobEntity> {
    const job = await this.jobs.getForUpdate(workspaceId, id, manager);
    if (!job) {
      throw new NotFoundError('Job');
    }
    return job;
  }
}

function scheduleColumns(schedule: ValidatedSchedule): Partial<JobEntity> {
  return {
    scheduleExpr: schedule.expr,
    scheduleKind: schedule.kind,
    scheduleCanonical: schedule.canonical,
    scheduleDescription: schedule.description,
    scheduleTimezone: schedule.timezone,
    scheduleStartsAt: schedule.startsAt,
    scheduleEndsAt: schedule.endsAt,
    scheduleCount: schedule.count,
    scheduleAnchor: schedule.anchor,
  };
}

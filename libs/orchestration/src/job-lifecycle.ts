import {
  type AppConfig,
  ConflictError,
  LimitExceededError,
  NotFoundError,
  type PlanLimits,
  UnavailableError,
} from '@svc/common';
import { newId } from '@svc/workflow-contract/ids';
import { type AlertEventDetails, type JobAlertEventType, newAlertEvent } from '@svc/common/alert-events';
import { addLogFields } from '@svc/common/logging';
import { generateSigningSecret, rotateSigningSecrets } from '@svc/delivery';
import {
  type AlertEventsRepository,
  type AttemptFinish,
  AuditRepository,
  isUniqueViolation,
  JOB_KEY_CONSTRAINT,
  JobEntity,
  type JobState,
  JobsRepository,
  type JsonObject,
  type RunEntity,
  RunsRepository,
  TERMINAL_RUN_STATUSES,
  WorkspacesRepository,
} from '@svc/persistence';
import type { RunWorkflowInput } from '@svc/workflow-contract/definitions';
import type { DataSource, EntityManager } from 'typeorm';
import { BackgroundWork, FOLLOW_UP_RETRY } from './background-work';
import type { JobWorkflowGateway } from './job-workflow.gateway';
import { toJobSnapshot } from './job-snapshot';
import { runWorkflowInputOf } from './run-input';
import { describeForTemporal } from './temporal-display';

export interface JobLifecycleDeps {
  dataSource: DataSource;
  jobs: JobsRepository;
  runs: RunsRepository;
  audit: AuditRepository;
  workspaces: WorkspacesRepository;
  gateway: JobWorkflowGateway;
  config: AppConfig;
  /** Where a failed workflow notification is reported (the change itself stands). */
  warn?: (message: string) => void;
  /**
   * Alerts (docs/alerts.md): where `closeRun` records the events it causes, in its transaction,
   * and who starts their delivery once it has committed (a start that is lost is repeated by the
   * worker's sweeper). Absent in processes that close no runs.
   */
  alerts?: { events: AlertEventsRepository; dispatch: (eventIds: string[]) => Promise<void> };
  /** Told once per run, after the transaction that moved it to a terminal status (metrics). */
  onRunClosed?: (run: RunEntity) => void;
  /**
   * The retried follow-ups that tell job workflows of every change (the API passes the one it
   * drains at shutdown); by default one of its own, reporting through `warn`.
   */
  followUps?: BackgroundWork;
}

/** A job's settings as validated by the API: what a create writes and a PATCH replaces. */
export type JobSettingsColumns = Pick<
  JobEntity,
  | 'name'
  | 'description'
  | 'tags'
  | 'scheduleExpr'
  | 'scheduleKind'
  | 'scheduleCanonical'
  | 'scheduleDescription'
  | 'scheduleTimezone'
  | 'scheduleStartsAt'
  | 'scheduleEndsAt'
  | 'scheduleCount'
  | 'scheduleAnchor'
  | 'excludeCalendars'
  | 'sinkKind'
  | 'sinkConfig'
  | 'retry'
  | 'timeoutMs'
  | 'slaThresholdMs'
  | 'misfirePolicy'
  | 'overlapPolicy'
  | 'autoDisableThreshold'
  | 'startWindowMs'
  | 'maxConcurrentRuns'
>;

/** A created or changed job, with the signing secret it was given (in this answer only). */
export interface WrittenJob {
  job: JobEntity;
  signingSecret?: string;
}

/** What the caller of a create or PATCH checks inside the write transaction (a throw writes nothing). */
export type InTransactionCheck = (manager: EntityManager) => Promise<void>;

/** A PATCH, validated by the caller against the row it is applied to. */
export interface JobEdit {
  /** The request's top-level fields (audit). */
  fields: string[];
  /**
   * Writes the merged, validated settings onto the locked row, in the transaction (a throw writes
   * nothing). `'unchanged'`: the row already is what the edit asks for (a PUT by key or an apply
   * of an identical declaration): nothing is written, audited or signalled, the version stays.
   */
  apply(job: JobEntity, manager: EntityManager): Promise<void | 'unchanged'>;
  /** Whether the job as edited has an occurrence after now (a `completed` job with one becomes `active`). */
  hasNextOccurrence(job: JobEntity): boolean;
}

/** Options of the writes an apply makes (issue 42): its one `jobs.apply` audit entry replaces theirs. */
export interface WriteOptions {
  /** Default true: the write's own audit entry. */
  audit?: boolean;
}

/**
 * Why a change was made and by which bulk operation (issue 46): written into its audit entry as
 * `note` and `operation_id`.
 */
export interface ChangeNote {
  note?: string | null;
  operationId?: string;
}

/** A state change's options: its note, and for a pause the end of its maintenance window. */
export interface TransitionOptions extends ChangeNote {
  /** pause: when the job's maintenance window resumes it (shown on the job as `resume_at`). */
  resumeAt?: Date | null;
  /**
   * resume: the end of the maintenance window that paused the job at this `resume_at`. A job no
   * longer in that window (resumed by hand, paused again since) is left alone: `409 conflict`.
   */
  windowEnd?: Date;
}

/** The audit details of a change's note (nothing when there is none). */
function noteDetails(context: ChangeNote): Record<string, string> {
  return {
    ...(context.note ? { note: context.note } : {}),
    ...(context.operationId ? { operation_id: context.operationId } : {}),
  };
}

/** A manual retry: the run that answers it, and whether this request wrote it (else it existed). */
export interface ManualRetry {
  run: RunEntity;
  inserted: boolean;
}

export interface CloseRunInput {
  runId: string;
  status: 'succeeded' | 'failed' | 'cancelled' | 'skipped';
  finishedAt: Date;
  error?: string | null;
  skipReason?: string | null;
  /** The note of an occurrence a user skipped. */
  skipNote?: string | null;
  /** The attempt that ended the run, recorded and closed in the same statement (`RunsRepository.close`). */
  attempt?: { n: number; startedAt: Date; finish: AttemptFinish };
}

/** The state changes a user asks for (spec: Job states), and the one state each is allowed from. */
export const USER_TRANSITIONS = {
  pause: { from: 'active', to: 'paused', action: 'job.pause' },
  resume: { from: 'paused', to: 'active', action: 'job.resume' },
  enable: { from: 'disabled', to: 'active', action: 'job.enable' },
} as const satisfies Record<string, { from: JobState; to: JobState; action: string }>;
export type UserTransition = keyof typeof USER_TRANSITIONS;

/** Why a state change is refused, as a sentence naming what the user can do instead. */
const TRANSITION_REFUSED: Record<UserTransition, (state: string) => string> = {
  pause: (state) => `The job is ${state}; only an active job can be paused`,
  resume: (state) => `The job is ${state}; only a paused job can be resumed`,
  enable: (state) => `The job is ${state}; only a disabled job can be enabled`,
};

/** The states a manual run may start from (spec: Job states; decisions.md: `409` on the others). */
export const TRIGGERABLE: readonly JobState[] = ['active', 'paused'];

/**
 * The one revision rule: every committed change the job's workflow must hear of (a PATCH and every
 * state change) raises `revision` by one, from the row read under its lock or the revision the
 * write is conditioned on. The workflow ignores snapshots at or below the revision it holds, and
 * the reconciler compares it with the workflow's memo. Only a PATCH also raises `version`.
 */
export function nextRevision(job: Pick<JobEntity, 'revision'>): number {
  return job.revision + 1;
}

/** What a manual run is opened for: a trigger (now) or the manual retry of a failed run (its occurrence). */
type ManualOpening = { trigger: 'manual' } | { trigger: 'retry_manual'; original: RunEntity };

/**
 * A manual run's per-run overrides (docs/api.md → Per-run overrides), validated against the job
 * it opens for once that job is read: the value to record (null: none), or a `400` thrown.
 */
export type OverridesFor = (job: JobEntity) => Promise<JsonObject | null>;

/**
 * The one home of a job's state machine, used by the API and the worker alike: create (with the
 * lifecycle's defaults and the plan's job cap), PATCH (version, revision, completed → active),
 * pause / resume / enable, delete, manual runs (trigger and manual retry through one
 * `openManualRun`, gated by the monthly quota), the effect of a finished run (failure streak,
 * auto-disable) and completion, each with its audit entry. After every committed change the job's
 * workflow is told through one retried follow-up (`BackgroundWork`, keyed by job, so it reaches
 * the workflow within seconds of Temporal coming back; the reconciler repairs what is left).
 */
export class JobLifecycle {
  private readonly followUps: BackgroundWork;

  constructor(private readonly deps: JobLifecycleDeps) {
    this.followUps = deps.followUps ?? new BackgroundWork(FOLLOW_UP_RETRY, { warn: deps.warn, error: deps.warn });
  }

  async planOf(workspaceId: string): Promise<PlanLimits> {
    return this.planOfWorkspace(await this.deps.workspaces.findById(workspaceId));
  }

  private planOfWorkspace(workspace: { plan: string } | null): PlanLimits {
    const { config } = this.deps;
    return config.plans[workspace?.plan ?? ''] ?? config.plans[config.default_plan];
  }

  /**
   * The monthly cap that blocks runs (`over_quota_policy = block`), with the month's use; else null.
   * A caller that has just read the workspace passes it (one read less per occurrence).
   */
  async blockingQuota(
    workspaceId: string,
    month: string,
    workspace?: { plan: string } | null,
  ): Promise<{ limit: number; used: number } | null> {
    const plan = workspace === undefined ? await this.planOf(workspaceId) : this.planOfWorkspace(workspace);
    if (plan.max_runs_per_month_per_workspace <= 0 || plan.over_quota_policy !== 'block') {
      return null;
    }
    const used = await this.deps.runs.monthlyUsage(workspaceId, month);
    return { limit: plan.max_runs_per_month_per_workspace, used };
  }

  /**
   * A new job (`POST /jobs`): the caller's validated settings, in state `active` at version and
   * revision 1 with no failures, a signing secret when its sink is a webhook, within the plan's
   * job cap (`403 limit_exceeded`). Answered once committed: its workflow is started right after
   * (a loaded Temporal server does not slow the create down).
   */
  async create(
    workspaceId: string,
    actor: string,
    settings: JobSettingsColumns,
    options: {
      plan: PlanLimits;
      check?: InTransactionCheck;
      now?: Date;
      /** Issue 42: the job's key (unique in the workspace: `409 conflict` when taken) and owner. */
      identity?: { key: string | null; managedBy: string | null };
      /** Issue 43: the caller's own signing secret (validated by the API) instead of a new one. */
      signingSecret?: string;
    } & WriteOptions,
  ): Promise<WrittenJob> {
    const { dataSource, jobs, audit } = this.deps;
    const now = options.now ?? new Date();
    // The caller's own secret (validated by the API) or a new one.
    const signingSecret =
      settings.sinkKind === 'webhook' ? (options.signingSecret ?? generateSigningSecret()) : undefined;
    const job = Object.assign(new JobEntity(), {
      ...settings,
      id: newId('job', now.getTime()),
      workspaceId,
      key: options.identity?.key ?? null,
      managedBy: options.identity?.managedBy ?? null,
      state: 'active',
      disabledReason: null,
      consecutiveFailures: 0,
      version: 1,
      revision: 1,
      signingSecrets: signingSecret ? [{ secret: signingSecret, expires_at: null }] : [],
    });
    addLogFields({ job_id: job.id }); // this request's later lines and its access line name the new job
    const cap = options.plan.max_jobs_per_workspace;
    await dataSource.transaction(async (manager) => {
      await options.check?.(manager);
      if (cap > 0) {
        await jobs.lockWorkspaceCreates(workspaceId, manager);
        if ((await jobs.countInWorkspace(workspaceId, manager)) >= cap) {
          throw new LimitExceededError(
            'max_jobs_per_workspace',
            cap,
            `This workspace's plan allows at most ${cap} jobs`,
          );
        }
      }
      // The insert's RETURNING fills the columns the database defaults (created_at, updated_at).
      try {
        await jobs.insert(job, manager);
      } catch (err) {
        // The unique index on (workspace, key) is the backstop of every create by key.
        if (isUniqueViolation(err, JOB_KEY_CONSTRAINT)) {
          throw new ConflictError(`A job with the key "${job.key}" exists in this workspace`);
        }
        throw err;
      }
      if (options.audit !== false) {
        await audit.insert(
          workspaceId,
          {
            actor,
            action: 'job.create',
            target: job.id,
            details: { name: job.name, sink: job.sinkKind, ...(job.key !== null ? { key: job.key } : {}) },
          },
          manager,
        );
      }
    });
    this.tellWorkflow(job, 'after');
    return { job, signingSecret };
  }

  /**
   * `PATCH /jobs/{id}` (spec: Job states, "any"): the caller's edit applied to the locked row,
   * `version` and `revision` raised, a `completed` job whose new schedule has a future occurrence
   * `active` again; a change of sink kind to `webhook` gives the job a signing secret (in this
   * answer only), to another kind its secrets go. One transaction: a refused edit writes nothing.
   * The workflow's first try is made before the answer, so a PATCH that returned is in force.
   */
  async update(
    workspaceId: string,
    id: string,
    actor: string,
    edit: JobEdit,
    options: WriteOptions = {},
  ): Promise<WrittenJob & { changed: boolean }> {
    const { dataSource, jobs, audit } = this.deps;
    let signingSecret: string | undefined;
    let changed = true;
    const updated = await dataSource.transaction(async (manager) => {
      const job = await this.lockJob(workspaceId, id, manager);
      const sinkKindBefore = job.sinkKind;
      if ((await edit.apply(job, manager)) === 'unchanged') {
        changed = false;
        return job;
      }
      const sinkKindChanged = job.sinkKind !== sinkKindBefore;
      if (sinkKindChanged) {
        signingSecret = job.sinkKind === 'webhook' ? generateSigningSecret() : undefined;
        job.signingSecrets = signingSecret ? [{ secret: signingSecret, expires_at: null }] : [];
      }
      job.version += 1;
      job.revision = nextRevision(job);
      if (job.state === 'completed' && edit.hasNextOccurrence(job)) {
        job.state = 'active';
      }
      await jobs.save(job, manager);
      if (options.audit !== false) {
        await audit.insert(
          workspaceId,
          {
            actor,
            action: 'job.update',
            target: job.id,
            details: {
              fields: edit.fields,
              version: job.version,
              ...(sinkKindChanged ? { sink_kind: { from: sinkKindBefore, to: job.sinkKind } } : {}),
            },
          },
          manager,
        );
      }
      return (await jobs.getById(workspaceId, id, manager))!;
    });
    if (changed) {
      await this.tellWorkflow(updated, 'before');
    }
    return { job: updated, signingSecret, changed };
  }

  /**
   * A new signing secret for a webhook job (spec: Jobs → rotate-signing-secret; Signature 5): it
   * signs from the next request on, and the secret it replaces keeps signing beside it for 24
   * hours (`rotateSigningSecrets`). The new secret is in this answer only; the audit entry
   * records when the old one stops, never a secret. Neither `version` nor `revision` changes:
   * the schedule and queued occurrences are untouched and the workflow has nothing to hear.
   */
  async rotateSigningSecret(workspaceId: string, id: string, actor: string, now = new Date()): Promise<WrittenJob> {
    const { dataSource, jobs, audit } = this.deps;
    const signingSecret = generateSigningSecret();
    const job = await dataSource.transaction(async (manager) => {
      const current = await jobs.getWithSigningSecretsForUpdate(workspaceId, id, manager);
      if (!current) {
        throw new NotFoundError('Job');
      }
      if (current.sinkKind !== 'webhook') {
        throw new ConflictError(`Only webhook jobs have a signing secret; this job's sink is ${current.sinkKind}`);
      }
      const secrets = rotateSigningSecrets(current.signingSecrets, signingSecret, now.getTime());
      await jobs.setSigningSecrets(workspaceId, id, secrets, manager);
      await audit.insert(
        workspaceId,
        {
          actor,
          action: 'job.rotate_signing_secret',
          target: id,
          details: { previous_secret_expires_at: secrets[1]?.expires_at ?? null, signing_secrets: secrets.length },
        },
        manager,
      );
      return (await jobs.getById(workspaceId, id, manager))!;
    });
    return { job, signingSecret };
  }

  /**
   * pause / resume / enable (spec: Job states): `409 conflict` unless the job is in the change's
   * `from`. A pause may carry a note and the end of its maintenance window (issue 46), shown on the
   * job while it stays paused; every move out of `paused` clears them.
   */
  async transition(
    workspaceId: string,
    id: string,
    change: UserTransition,
    actor: string,
    options: TransitionOptions = {},
  ): Promise<JobEntity> {
    const { dataSource, jobs, audit } = this.deps;
    const { from, to, action } = USER_TRANSITIONS[change];
    const pausing = change === 'pause';
    const updated = await dataSource.transaction(async (manager) => {
      const job = await this.lockJob(workspaceId, id, manager);
      if (job.state !== from) {
        throw new ConflictError(TRANSITION_REFUSED[change](job.state));
      }
      if (options.windowEnd && job.resumeAt?.getTime() !== options.windowEnd.getTime()) {
        throw new ConflictError('The job is no longer paused by this maintenance window');
      }
      const moved = await jobs.transitionState(
        id,
        {
          from,
          to,
          revision: job.revision,
          nextRevision: nextRevision(job),
          // enable: the failure counter is reset (spec) and the reason of the disable goes.
          ...(change === 'enable' ? { disabledReason: null, resetFailures: true } : {}),
          ...(pausing ? { pausedNote: options.note ?? null, resumeAt: options.resumeAt ?? null } : {}),
        },
        manager,
      );
      const details = {
        ...noteDetails(options),
        ...(pausing && options.resumeAt ? { resume_at: options.resumeAt.toISOString() } : {}),
        ...(options.windowEnd ? { window_ended: options.windowEnd.toISOString() } : {}),
      };
      await audit.insert(workspaceId, { actor, action, target: id, details }, manager);
      return moved!;
    });
    await this.tellWorkflow(updated, 'before');
    return updated;
  }

  /**
   * `DELETE /jobs/{id}`: the row goes (its run history stays); the job stops at once, as no
   * attempt of a job that is gone sends anything. Its workflow ends and its in-flight runs are
   * cancelled (decisions.md → Run transitions) right after the answer.
   */
  async delete(workspaceId: string, id: string, actor: string, options: WriteOptions & ChangeNote = {}): Promise<void> {
    const { dataSource, jobs, runs, audit, gateway } = this.deps;
    await dataSource.transaction(async (manager) => {
      const job = await this.lockJob(workspaceId, id, manager);
      await jobs.delete(workspaceId, job.id, manager);
      if (options.audit !== false) {
        await audit.insert(
          workspaceId,
          { actor, action: 'job.delete', target: job.id, details: { name: job.name, ...noteDetails(options) } },
          manager,
        );
      }
    });
    this.followUps.run(
      `stopping the workflows of deleted job ${id}`,
      async () => {
        const inFlight = await runs.listInFlightForJob(workspaceId, id);
        await Promise.all([gateway.deleteJob(id), ...inFlight.map((run) => gateway.cancelRun(run.id))]);
      },
      { key: id },
    );
  }

  /** `POST /jobs/{id}/trigger`: a manual run now, from `active` or `paused`; the schedule is unaffected. */
  async trigger(
    workspaceId: string,
    id: string,
    actor: string,
    context: ChangeNote = {},
    overridesFor?: OverridesFor,
  ): Promise<{ runId: string }> {
    const job = await this.deps.jobs.getById(workspaceId, id);
    if (!job) {
      throw new NotFoundError('Job');
    }
    if (!TRIGGERABLE.includes(job.state)) {
      throw new ConflictError(`Cannot trigger a ${job.state} job; only active or paused jobs can be triggered`);
    }
    const overrides = (await overridesFor?.(job)) ?? null;
    const { runId } = await this.openManualRun(job, actor, { trigger: 'manual' }, context, overrides);
    return { runId };
  }

  /**
   * `POST /runs/{id}/cancel` (issue 44): a `running` or `deferred` run ends `cancelled`. Its
   * workflow is cancelled first (the attempt in flight is abandoned: its sink's AbortSignal fires
   * at its next heartbeat; a retry waiting in backoff never happens), then the row is closed here
   * as the workflow's own cancellation path closes it, so the answer shows `cancelled` at once; a
   * queued run (no workflow yet) is closed the same way and its job workflow, starting it later,
   * finds it closed. A Temporal that cannot be reached leaves the run as it was (`503`).
   */
  async cancelRun(workspaceId: string, runId: string, actor: string): Promise<RunEntity> {
    const { runs, gateway, audit } = this.deps;
    const run = await runs.getById(workspaceId, runId);
    if (!run) {
      throw new NotFoundError('Run');
    }
    if (TERMINAL_RUN_STATUSES.includes(run.status)) {
      throw new ConflictError(`Cannot cancel a ${run.status} run; only running or deferred runs can be cancelled`);
    }
    try {
      await gateway.cancelRun(run.id);
    } catch (err) {
      this.deps.warn?.(`cancel of run ${run.id} not sent: ${(err as Error).message}`);
      throw new UnavailableError('The scheduler is unavailable; retry');
    }
    await this.closeRun({ runId: run.id, status: 'cancelled', finishedAt: new Date() });
    const closed = (await runs.getById(workspaceId, run.id)) ?? run;
    if (closed.status === 'cancelled') {
      await audit.insert(workspaceId, { actor, action: 'run.cancel', target: run.id, details: { job_id: run.jobId } });
    } else {
      // It ended otherwise (succeeded, failed) between the read and the cancel: nothing was cancelled.
      throw new ConflictError(`Cannot cancel a ${closed.status} run; only running or deferred runs can be cancelled`);
    }
    return closed;
  }

  /**
   * `POST /runs/{id}/retry` (decisions.md → Manual retry): one manual retry per occurrence
   * (`job_id`, `scheduled_at`) with the job's current configuration, coalesced in the database so
   * it holds across API processes. While it is not terminal every request answers it (its
   * workflow started again, a no-op when it runs); once it has ended the occurrence is exhausted.
   */
  async retryRun(
    workspaceId: string,
    runId: string,
    actor: string,
    context: ChangeNote = {},
    overridesFor?: OverridesFor,
  ): Promise<ManualRetry> {
    const { runs, jobs } = this.deps;
    const original = await runs.getById(workspaceId, runId);
    if (!original) {
      throw new NotFoundError('Run');
    }
    if (original.status !== 'failed') {
      throw new ConflictError(`Cannot retry a ${original.status} run; only failed runs can be retried`);
    }
    const existing = await runs.findManualRetry(workspaceId, original.jobId, original.scheduledAt);
    if (existing) {
      return { run: await this.restartManualRetry(existing), inserted: false };
    }
    const job = await jobs.getById(workspaceId, original.jobId);
    if (!job) {
      throw new ConflictError('Cannot retry a run of a deleted job');
    }
    const overrides = (await overridesFor?.(job)) ?? null;
    const opened = await this.openManualRun(job, actor, { trigger: 'retry_manual', original }, context, overrides);
    if (!opened.inserted) {
      // Another request, possibly on another API process, wrote it first.
      return { run: await this.restartManualRetry(opened.run!), inserted: false };
    }
    return { run: opened.run!, inserted: true };
  }

  /**
   * Opens a manual run, for a trigger or a manual retry: the monthly cap (`429 limit_exceeded`),
   * the run row (a retry coalesced per occurrence: `inserted` false when another request wrote
   * it, then nothing more is done here), its workflow started at once, the audit entry. The row
   * comes first, so `GET /runs/{run_id}` answers as soon as this returns; a row whose workflow
   * cannot be started is removed again (nothing would deliver it, and it would use up the quota
   * and the occurrence) and the caller gets `503`.
   */
  private async openManualRun(
    job: JobEntity,
    actor: string,
    opening: ManualOpening,
    context: ChangeNote,
    overrides: JsonObject | null,
  ): Promise<{ runId: string; run: RunEntity | null; inserted: boolean }> {
    const { runs, gateway, audit } = this.deps;
    const now = new Date();
    await this.requireRunQuota(job.workspaceId, now);
    const row = {
      id: newId('run', now.getTime()),
      workspaceId: job.workspaceId,
      jobId: job.id,
      jobVersion: job.version,
    };
    let run: RunEntity | null = null;
    let input: RunWorkflowInput;
    if (opening.trigger === 'manual') {
      addLogFields({ run_id: row.id });
      await runs.openRuns([{ ...row, scheduledAt: now, trigger: 'manual', status: 'running', overrides }], now);
      input = {
        runId: row.id,
        jobId: job.id,
        workspaceId: job.workspaceId,
        jobVersion: job.version,
        scheduledAt: now.toISOString(),
        trigger: 'manual',
        display: describeForTemporal(job),
      };
    } else {
      // The job's current configuration (decisions.md), the occurrence's own time.
      const { original } = opening;
      const written = await runs.openManualRetry(
        { ...row, scheduledAt: original.scheduledAt, retryOf: original.id, overrides },
        now,
      );
      if (!written.inserted) {
        return { runId: written.run.id, run: written.run, inserted: false };
      }
      run = written.run;
      input = runWorkflowInputOf(run, job);
    }
    try {
      await gateway.startRun(input);
    } catch (err) {
      this.deps.warn?.(`manual run ${row.id} of ${job.id} not started: ${(err as Error).message}`);
      await runs.deleteUnstarted(job.workspaceId, row.id);
      throw new UnavailableError('The scheduler is unavailable; retry');
    }
    await audit.insert(
      job.workspaceId,
      opening.trigger === 'manual'
        ? {
            actor,
            action: 'job.trigger',
            target: job.id,
            details: { run_id: row.id, ...noteDetails(context), ...(overrides ? { overrides } : {}) },
          }
        : {
            actor,
            action: 'run.retry',
            target: opening.original.id,
            details: {
              job_id: job.id,
              retry_run_id: row.id,
              ...noteDetails(context),
              ...(overrides ? { overrides } : {}),
            },
          },
    );
    return { runId: row.id, run, inserted: true };
  }

  /**
   * An occurrence's existing manual retry: exhausted (`409`) once it has ended; otherwise its
   * workflow is started again (a no-op when it runs: workflow id = run id), which also repairs a
   * request that wrote the row and died before starting it.
   */
  private async restartManualRetry(run: RunEntity): Promise<RunEntity> {
    if (TERMINAL_RUN_STATUSES.includes(run.status)) {
      throw new ConflictError(`The manual retry of this occurrence is exhausted (run ${run.id} is ${run.status})`);
    }
    try {
      await this.deps.gateway.startRun(
        runWorkflowInputOf(run, await this.deps.jobs.getById(run.workspaceId, run.jobId)),
      );
    } catch (err) {
      this.deps.warn?.(`start of manual retry ${run.id} failed: ${(err as Error).message}`);
      throw new UnavailableError('The scheduler is unavailable; retry');
    }
    return run;
  }

  /** `429 limit_exceeded` when the workspace's monthly run cap blocks and is reached. */
  private async requireRunQuota(workspaceId: string, now: Date): Promise<void> {
    const quota = await this.blockingQuota(workspaceId, now.toISOString().slice(0, 7));
    if (quota && quota.used >= quota.limit) {
      throw new LimitExceededError(
        'max_runs_per_month_per_workspace',
        quota.limit,
        'The monthly run limit of this workspace is reached',
        429,
      );
    }
  }

  private async lockJob(workspaceId: string, id: string, manager: EntityManager): Promise<JobEntity> {
    const job = await this.deps.jobs.getForUpdate(workspaceId, id, manager);
    if (!job) {
      throw new NotFoundError('Job');
    }
    return job;
  }

  /**
   * Closes a run once (a repeated call changes nothing) and, for `succeeded` and `failed`, folds it
   * into the job: the failure streak, and auto-disable when the streak reaches the threshold
   * (decisions.md → auto_disable_threshold), audited as actor `system`.
   */
  async closeRun(input: CloseRunInput): Promise<void> {
    const { dataSource, jobs, runs, audit, config } = this.deps;
    let closedRun: RunEntity | null = null;
    let eventIds: string[] = [];
    const disabled = await dataSource.transaction(async (manager) => {
      const closing = await runs.close(
        {
          runId: input.runId,
          status: input.status,
          finishedAt: input.finishedAt,
          lastError: input.error ?? null,
          skipReason: input.skipReason ?? null,
          skipNote: input.skipNote ?? null,
          attempt: input.attempt,
          defaultSlaThresholdMs: config.scheduler.default_sla_threshold_ms,
        },
        manager,
      );
      closedRun = closing?.run ?? null;
      // Runs that were already closed, end otherwise than succeeded / failed, or whose job is gone
      // leave the job as it is.
      const outcome = closing?.outcome;
      if (!closing || !outcome) {
        return null;
      }
      const closed = closing.run;
      const events: Array<[JobAlertEventType, Partial<AlertEventDetails>] | null> = [
        input.status === 'failed' ? ['run.failed', { consecutive_failures: outcome.consecutiveFailures }] : null,
        input.status === 'succeeded' && outcome.previousFailures > 0
          ? ['job.recovered', { previous_failures: outcome.previousFailures }]
          : null,
        // Same id as the SLA watch's event for this run: recorded here only if the watch had not.
        closed.slaBreached
          ? ['run.sla_breached', { sla_threshold_ms: closing.slaThresholdMs, still_running: false }]
          : null,
      ];
      const threshold = outcome.autoDisableThreshold ?? config.scheduler.default_auto_disable_threshold;
      const reachesThreshold = input.status === 'failed' && threshold > 0 && outcome.consecutiveFailures >= threshold;
      const alerting = this.deps.alerts !== undefined && events.some((event) => event !== null);
      if (!alerting && !reachesThreshold) {
        return null;
      }
      // Locked by the close above; read whole only when an alert or an auto-disable needs it.
      const job = await jobs.getById(closed.workspaceId, closed.jobId, manager);
      eventIds = await this.recordAlerts(job, closed, manager, events);
      if (!job || !reachesThreshold) {
        return null;
      }
      const moved = await jobs.transitionState(
        closed.jobId,
        {
          from: 'active',
          to: 'disabled',
          revision: job.revision,
          nextRevision: nextRevision(job),
          disabledReason: `auto_disabled: ${outcome.consecutiveFailures} consecutive failed runs`,
        },
        manager,
      );
      if (moved) {
        await audit.insert(
          moved.workspaceId,
          {
            actor: 'system',
            action: 'job.auto_disable',
            target: moved.id,
            details: { consecutive_failures: outcome.consecutiveFailures, run_id: closed.id },
          },
          manager,
        );
        const disabledAlert: Partial<AlertEventDetails> = {
          consecutive_failures: outcome.consecutiveFailures,
          disabled_reason: moved.disabledReason ?? undefined,
        };
        eventIds.push(...(await this.recordAlerts(job, closed, manager, [['job.auto_disabled', disabledAlert]])));
      }
      return moved;
    });
    if (closedRun) {
      this.deps.onRunClosed?.(closedRun);
    }
    if (disabled) {
      await this.tellWorkflow(disabled, 'before');
    }
    if (eventIds.length > 0) {
      try {
        await this.deps.alerts!.dispatch(eventIds);
      } catch (err) {
        this.deps.warn?.(`alerts ${eventIds.join(', ')} not started yet; the sweeper will (${(err as Error).message})`);
      }
    }
  }

  /** Records the alert events a closed run causes (docs/alerts.md); the ids inserted now. */
  private async recordAlerts(
    job: JobEntity | null,
    run: RunEntity,
    manager: EntityManager,
    events: Array<[JobAlertEventType, Partial<AlertEventDetails>] | null>,
  ): Promise<string[]> {
    const alerts = this.deps.alerts;
    if (!alerts || !job) {
      return [];
    }
    const snapshot: AlertEventDetails & { workspaceId: string } = {
      workspaceId: job.workspaceId,
      job: { id: job.id, name: job.name, timezone: job.scheduleTimezone, tags: job.tags },
      run: {
        id: run.id,
        scheduled_at: run.scheduledAt.toISOString(),
        trigger: run.trigger,
        status: run.status,
        attempts: run.attemptsCount,
        last_error: run.lastError,
        finished_at: run.finishedAt?.toISOString() ?? null,
      },
    };
    const at = run.finishedAt ?? new Date();
    const recorded = events
      .filter((e): e is [JobAlertEventType, Partial<AlertEventDetails>] => e !== null)
      .map(([type, extra]) => newAlertEvent(type, at, { ...snapshot, ...extra }));
    return alerts.events.record(recorded, manager);
  }

  /** An active job whose schedule has no further occurrence becomes `completed` (audited, actor `system`). */
  async markCompleted(jobId: string, revision: number): Promise<void> {
    const { dataSource, jobs, audit } = this.deps;
    await dataSource.transaction(async (manager) => {
      const moved = await jobs.transitionState(
        jobId,
        { from: 'active', to: 'completed', revision, nextRevision: nextRevision({ revision }) },
        manager,
      );
      if (moved) {
        await audit.insert(
          moved.workspaceId,
          { actor: 'system', action: 'job.complete', target: jobId, details: {} },
          manager,
        );
      }
    });
  }

  /**
   * Jobs whose schedule reads data kept outside their row changed (a workspace calendar, issue 45):
   * their revision rises in `manager`'s transaction (the one rule: every change the workflow must
   * hear of), and the returned `notify`, called once the caller has committed, sends each workflow
   * its snapshot, so it plans again with the new dates at once rather than at its next wake. The
   * reconciler repairs a notice that could not be sent. Neither `version` nor `updated_at` changes.
   */
  async scheduleDataChanged(workspaceId: string, jobIds: string[], manager: EntityManager): Promise<() => void> {
    const changed = await this.deps.jobs.raiseRevisions(workspaceId, jobIds, manager);
    return () => {
      for (const job of changed) {
        this.tellWorkflow(job, 'after');
      }
    };
  }

  /**
   * The one way a change reaches the job's workflow: a signal-with-start of the job as it now is,
   * as a follow-up keyed by the job (in order with its other changes) that is retried on failure
   * (1 s doubling to 30 s, for up to 10 minutes; a retry reads the row again, so it sends the
   * newest snapshot and nothing for a job deleted since). `before` the answer, the caller waits
   * for the first try, so a change that returned is in force while Temporal is up; `after`, it
   * does not wait at all (a create). PostgreSQL stays the system of record.
   */
  private tellWorkflow(job: JobEntity, when: 'before'): Promise<void>;
  private tellWorkflow(job: JobEntity, when: 'after'): void;
  private tellWorkflow(job: JobEntity, when: 'before' | 'after'): Promise<void> | void {
    const { jobs, gateway, config } = this.deps;
    const label = `telling the workflow of job ${job.id} (revision ${job.revision})`;
    const work = async (attempt: number) => {
      const current = attempt === 0 ? job : await jobs.getById(job.workspaceId, job.id);
      if (current) {
        await gateway.upsertJob(toJobSnapshot(current, config), { key: current.key });
      }
    };
    if (when === 'after') {
      this.followUps.run(label, work, { key: job.id });
      return;
    }
    return this.followUps.runAwaitingFirstTry(label, work, { key: job.id }).then(() => undefined);
  }
}

import { ConflictError, LimitExceededError, NotFoundError, type PlanLimits } from '@svc/common';
import { newId } from '@svc/workflow-contract/ids';
import { addLogFields } from '@svc/common/logging';
import { generateSigningSecret, rotateSigningSecrets } from '@svc/delivery';
import {
  type AuditEntryInput,
  isUniqueViolation,
  JOB_KEY_CONSTRAINT,
  JobEntity,
  type RunEntity,
} from '@svc/persistence';
import type { EntityManager } from 'typeorm';
import {
  type ChangeNote,
  type CloseRunInput,
  type InTransactionCheck,
  type JobEdit,
  type JobLifecycleDeps,
  type JobSettingsColumns,
  type ManualRetry,
  nextRevision,
  noteDetails,
  TRANSITION_REFUSED,
  type TransitionOptions,
  USER_TRANSITIONS,
  type UserTransition,
  type WriteOptions,
  type NewJob,
  type WrittenJob,
} from './job-changes';
import { JobWorkflowNotices } from './job-workflow-notices';
import { ManualRuns } from './manual-runs';
import { RunClosing } from './run-closing';

/** The stores a `JobLifecycle` works on: the database and the job, run, audit and workspace rows. */
export type JobLifecycleStores = Pick<JobLifecycleDeps, 'dataSource' | 'jobs' | 'runs' | 'audit' | 'workspaces'>;

/**
 * The one way a process builds its `JobLifecycle` (the Nest module of the API and the worker, the
 * test kit): the stores are picked from `stores`, so a larger set of repositories can be passed.
 */
export function createJobLifecycle(
  stores: JobLifecycleStores,
  services: Omit<JobLifecycleDeps, keyof JobLifecycleStores>,
): JobLifecycle {
  const { dataSource, jobs, runs, audit, workspaces } = stores;
  return new JobLifecycle({ dataSource, jobs, runs, audit, workspaces, ...services });
}

/**
 * The one home of a job's state machine, for the API and the worker alike: create, PATCH, state
 * changes, delete and completion, each audited, with manual runs (`ManualRuns`) and the effect of
 * a finished run (`RunClosing`) beside it; every committed change reaches the job's workflow
 * through `JobWorkflowNotices`.
 */
export class JobLifecycle {
  private readonly notices: JobWorkflowNotices;
  private readonly manualRuns: ManualRuns;
  private readonly closing: RunClosing;

  constructor(private readonly deps: JobLifecycleDeps) {
    this.notices = new JobWorkflowNotices(deps);
    this.manualRuns = new ManualRuns(deps, this, (input) => this.closeRun(input));
    this.closing = new RunClosing(deps, this.notices);
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
      /** The job's key (unique in the workspace: `409 conflict` when taken) and owner. */
      identity?: { key: string | null; managedBy: string | null };
      /** The caller's own signing secret (validated by the API) instead of a new one. */
      signingSecret?: string;
    } & WriteOptions,
  ): Promise<WrittenJob> {
    const { check, identity, signingSecret, ...shared } = options;
    const [written] = await this.createMany(workspaceId, actor, [{ settings, identity, signingSecret }], {
      ...shared,
      ...(check ? { check: (_job, manager) => check(manager) } : {}),
    });
    addLogFields({ job_id: written.job.id }); // this request's later lines and its access line name the new job
    return written;
  }

  /**
   * New jobs in one transaction, each as `create` makes it: the plan's job cap checked once for
   * all of them, one insert per `INSERT_CHUNK` rows; their workflows are started after the commit.
   * A set (`POST /jobs/apply`) creates in a few statements what one create per job would take a
   * transaction each for. A key taken fails the whole call (`409 conflict`), nothing written.
   */
  async createMany(
    workspaceId: string,
    actor: string,
    items: NewJob[],
    options: {
      plan: PlanLimits;
      /** Checked for each job inside the transaction (a throw writes nothing). */
      check?: (job: NewJob, manager: EntityManager) => Promise<void>;
      now?: Date;
    } & WriteOptions,
  ): Promise<WrittenJob[]> {
    const { dataSource, jobs } = this.deps;
    const now = options.now ?? new Date();
    const written = items.map((item) => newJobEntity(workspaceId, item, now));
    const cap = options.plan.max_jobs_per_workspace;
    await dataSource.transaction(async (manager) => {
      for (const item of items) {
        await options.check?.(item, manager);
      }
      if (cap > 0) {
        await jobs.lockWorkspaceCreates(workspaceId, manager);
        if ((await jobs.countInWorkspace(workspaceId, manager)) + items.length > cap) {
          throw new LimitExceededError(
            'max_jobs_per_workspace',
            cap,
            `This workspace's plan allows at most ${cap} jobs`,
          );
        }
      }
      // The insert's RETURNING fills the columns the database defaults (created_at, updated_at).
      try {
        for (let i = 0; i < written.length; i += INSERT_CHUNK) {
          await jobs.insert(
            written.slice(i, i + INSERT_CHUNK).map(({ job }) => job),
            manager,
          );
        }
      } catch (err) {
        // The unique index on (workspace, key) is the backstop of every create by key.
        if (isUniqueViolation(err, JOB_KEY_CONSTRAINT)) {
          const key = takenKey(err) ?? (written.length === 1 ? written[0].job.key : null);
          throw new ConflictError(
            key === null
              ? 'A job with one of these keys exists in this workspace'
              : `A job with the key "${key}" exists in this workspace`,
          );
        }
        throw err;
      }
      for (const { job } of written) {
        await this.auditJobWrite(manager, options, workspaceId, {
          actor,
          action: 'job.create',
          target: job.id,
          details: { name: job.name, sink: job.sinkKind, ...(job.key !== null ? { key: job.key } : {}) },
        });
      }
    });
    for (const { job } of written) {
      this.notices.tell(job, 'after');
    }
    return written;
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
    const { dataSource, jobs } = this.deps;
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
      await this.auditJobWrite(manager, options, workspaceId, {
        actor,
        action: 'job.update',
        target: job.id,
        details: {
          fields: edit.fields,
          version: job.version,
          ...(sinkKindChanged ? { sink_kind: { from: sinkKindBefore, to: job.sinkKind } } : {}),
        },
      });
      return (await jobs.getById(workspaceId, id, manager))!;
    });
    if (changed) {
      await this.notices.tell(updated, 'before');
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
   * `from`. A pause may carry a note and the end of its maintenance window, shown on the
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
    await this.notices.tell(updated, 'before');
    return updated;
  }

  /**
   * `DELETE /jobs/{id}`: the row goes (its run history stays); the job stops at once, as no
   * attempt of a job that is gone sends anything. Its workflow ends and its in-flight runs are
   * cancelled (decisions.md → Run transitions) right after the answer.
   */
  async delete(workspaceId: string, id: string, actor: string, options: WriteOptions & ChangeNote = {}): Promise<void> {
    const { dataSource, jobs, runs, gateway } = this.deps;
    await dataSource.transaction(async (manager) => {
      const job = await this.lockJob(workspaceId, id, manager);
      await jobs.delete(workspaceId, job.id, manager);
      await this.auditJobWrite(manager, options, workspaceId, {
        actor,
        action: 'job.delete',
        target: job.id,
        details: { name: job.name, ...noteDetails(options) },
      });
    });
    this.notices.followUps.run(
      `stopping the workflows of deleted job ${id}`,
      async () => {
        const inFlight = await runs.listInFlightForJob(workspaceId, id);
        await Promise.all([gateway.deleteJob(id), ...inFlight.map((run) => gateway.cancelRun(run.id))]);
      },
      { key: id },
    );
  }

  /** `POST /jobs/{id}/trigger`: a manual run now, from `active` or `paused`; the schedule is unaffected. */
  async trigger(...args: Parameters<ManualRuns['trigger']>): Promise<{ runId: string }> {
    return this.manualRuns.trigger(...args);
  }

  /** `POST /runs/{id}/cancel`: a `running` or `deferred` run ends `cancelled`, its workflow first. */
  async cancelRun(workspaceId: string, runId: string, actor: string): Promise<RunEntity> {
    return this.manualRuns.cancelRun(workspaceId, runId, actor);
  }

  /** `POST /runs/{id}/retry`: the one manual retry of a failed run's occurrence. */
  async retryRun(...args: Parameters<ManualRuns['retryRun']>): Promise<ManualRetry> {
    return this.manualRuns.retryRun(...args);
  }

  /** A write's audit entry, in its transaction, unless the caller writes its own (`audit: false`: apply). */
  private async auditJobWrite(
    manager: EntityManager,
    options: WriteOptions,
    workspaceId: string,
    entry: AuditEntryInput,
  ): Promise<void> {
    if (options.audit !== false) {
      await this.deps.audit.insert(workspaceId, entry, manager);
    }
  }

  private async lockJob(workspaceId: string, id: string, manager: EntityManager): Promise<JobEntity> {
    const job = await this.deps.jobs.getForUpdate(workspaceId, id, manager);
    if (!job) {
      throw new NotFoundError('Job');
    }
    return job;
  }

  /** Closes a run once and folds its outcome into the job (`RunClosing`). */
  async closeRun(input: CloseRunInput): Promise<void> {
    return this.closing.closeRun(input);
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
   * Jobs whose schedule reads data outside their row (a workspace calendar) changed: their revision
   * rises in `manager`'s transaction, and the returned `notify`, called after the commit, makes
   * each workflow plan again at once rather than at its next wake.
   */
  async scheduleDataChanged(workspaceId: string, jobIds: string[], manager: EntityManager): Promise<() => void> {
    const changed = await this.deps.jobs.raiseRevisions(workspaceId, jobIds, manager);
    return () => {
      for (const job of changed) {
        this.notices.tell(job, 'after');
      }
    };
  }
}

/** Rows per insert statement of `createMany` (a job row binds about 30 parameters; PostgreSQL allows 65,535). */
const INSERT_CHUNK = 500;

/** A job as `create` makes it: `active` at version and revision 1, a signing secret for a webhook. */
function newJobEntity(workspaceId: string, item: NewJob, now: Date): WrittenJob {
  const { settings } = item;
  // The caller's own secret (validated by the API) or a new one.
  const signingSecret = settings.sinkKind === 'webhook' ? (item.signingSecret ?? generateSigningSecret()) : undefined;
  const job = Object.assign(new JobEntity(), {
    ...settings,
    id: newId('job', now.getTime()),
    workspaceId,
    key: item.identity?.key ?? null,
    managedBy: item.identity?.managedBy ?? null,
    state: 'active',
    disabledReason: null,
    consecutiveFailures: 0,
    version: 1,
    revision: 1,
    signingSecrets: signingSecret ? [{ secret: signingSecret, expires_at: null }] : [],
  });
  return { job, signingSecret };
}

/** The key a unique violation names (`Key (workspace_id, key)=(ws_…, nightly) already exists.`). */
function takenKey(err: unknown): string | null {
  const detail =
    (err as { detail?: unknown }).detail ?? (err as { driverError?: { detail?: unknown } }).driverError?.detail;
  const match = typeof detail === 'string' ? /\(workspace_id, key\)=\([^,]*, (.*)\) already exists/.exec(detail) : null;
  return match ? match[1] : null;
}

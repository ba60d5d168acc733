import { Injectable } from '@nestjs/common';
import { ConflictError, LimitExceededError, NotFoundError, type PlanLimits, ValidationFailedError } from '@svc/common';
import { AuditRepository, JobEntity, JobsRepository, Transactions, type Tx } from '@svc/persistence';
import { JobLifecycle, nextFireTimes } from '@svc/orchestration';
import type { AuthContext } from '../auth/auth.decorators';
import type { ApplyJobsDto, DeclaredJobDto } from './dto/job-body.dto';
import { declarationChanges, declaredColumns } from './job-declaration';
import { type DeclaredSettings, JobSettingsFactory } from './job-settings.factory';
import { KeyedMutex } from './keyed-mutex';
import { SinkTemplateChecker } from './sink-templates.checker';
import { pendingFieldErrors } from '../common/validation';

/** The answer of `POST /jobs/apply` (job-response.schema.ts → ApplyPlan). */
export interface ApplyPlan {
  managed_by: string | null;
  dry_run: boolean;
  created: string[];
  updated: Array<{ key: string; changes: string[] }>;
  unchanged: string[];
  deleted: string[];
  kept: Array<{ key: string; reason: 'paused' | 'disabled' }>;
  ids: Record<string, string>;
}

/**
 * Updates of one apply carried out side by side: each is its own short transaction and then waits
 * for its workflow's signal; four lanes keep the pool (10) free for other requests.
 */
const UPDATE_LANES = 4;

/** Creates of one apply per transaction: a failure leaves the chunks before it committed. */
const CREATE_CHUNK = 1_000;

/** `work` over `items`, `lanes` at a time; after a failure no new item starts, and the first error is thrown once all lanes stopped. */
async function inLanes<T>(items: T[], lanes: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | null = null;
  await Promise.all(
    Array.from({ length: Math.min(lanes, items.length) }, async () => {
      while (failure === null && next < items.length) {
        try {
          await work(items[next++]);
        } catch (error) {
          failure ??= { error };
        }
      }
    }),
  );
  if (failure !== null) {
    throw (failure as { error: unknown }).error;
  }
}

/** One job of the set with what it needs to be carried out. */
interface PlannedJob {
  key: string;
  declared: DeclaredSettings;
  stored: JobEntity | null;
  changes: string[];
}

/**
 * `POST /api/v1/jobs/apply` (docs/api.md → Apply; docs/architecture.md → Jobs as code).
 *
 * 1. The whole set is validated before anything is read or written: every job as a create is
 *    (`fields` keyed `jobs[3].schedule.expr`), keys unique within the set, `prune` only with
 *    `managed_by`.
 * 2. Under the workspace's apply lock (in-process queue, then a transaction-scoped PostgreSQL
 *    advisory lock held until the apply has finished), ONE query reads the set's stored
 *    jobs and the owner's; the plan is the comparison in memory. Ownership (`409` naming the keys
 *    unless `adopt`) and the templates of the jobs that change are checked before any write.
 * 3. Unless `dry_run`: deletes and updates, each in its own transaction, then the creates,
 *    `CREATE_CHUNK` per transaction, through `JobLifecycle` (workflows started and signalled as
 *    POST and PATCH do), then one audit entry `jobs.apply`. Nothing to do: nothing is written,
 *    not even the audit entry.
 */
@Injectable()
export class JobsApplyService {
  private readonly queue = new KeyedMutex();

  constructor(
    private readonly transactions: Transactions,
    private readonly jobs: JobsRepository,
    private readonly audit: AuditRepository,
    private readonly lifecycle: JobLifecycle,
    private readonly settingsFactory: JobSettingsFactory,
    private readonly templates: SinkTemplateChecker,
  ) {}

  async apply(auth: AuthContext, dto: ApplyJobsDto): Promise<ApplyPlan> {
    const workspaceId = auth.workspaceId;
    const managedBy = dto.managed_by ?? null;
    const now = new Date();
    const plan = await this.lifecycle.planOf(workspaceId);
    const declared = await this.validateSet(workspaceId, dto, managedBy, now, plan);
    return this.queue.run(workspaceId, () =>
      this.transactions.run(async (lock) => {
        await this.jobs.lockApply(workspaceId, lock);
        const stored = await this.jobs.listForApply(
          workspaceId,
          dto.jobs.map((job) => job.key),
          managedBy,
          lock,
        );
        const planned = this.plan(dto, declared, stored, managedBy);
        await this.checkJobCap(workspaceId, planned, plan, lock);
        await this.checkTemplates(workspaceId, planned, lock);
        const result = this.answer(dto, managedBy, planned);
        if (!dto.dry_run) {
          await this.carryOut(auth, result, planned, { managedBy, plan, now, prune: dto.prune === true });
        }
        return result;
      }),
    );
  }

  /** Step 1: every job validated as a create; every problem of the set in one `400`. */
  private async validateSet(
    workspaceId: string,
    dto: ApplyJobsDto,
    managedBy: string | null,
    now: Date,
    plan: PlanLimits,
  ): Promise<DeclaredSettings[]> {
    // The body's own errors (the pipe hands them on) join those of every job's stages.
    const pending = pendingFieldErrors(dto);
    const fields: Record<string, string> = Object.fromEntries(
      Object.entries(pending).filter(([path]) => !/^jobs\[\d+\]\./.test(path)),
    );
    if (!Array.isArray(dto.jobs) || fields.jobs !== undefined) {
      throw new ValidationFailedError({ ...fields, jobs: fields.jobs ?? 'must be an array' }); // nothing to go through
    }
    if (dto.prune === true && managedBy === null && fields.managed_by === undefined) {
      fields.prune = 'needs managed_by: a prune deletes only the jobs of one owner';
    }
    const firstIndex = new Map<string, number>();
    dto.jobs.forEach((job, i) => {
      if (!isObject(job) || typeof job.key !== 'string') {
        return;
      }
      const first = firstIndex.get(job.key);
      if (first !== undefined) {
        fields[`jobs[${i}].key`] = `duplicate of jobs[${first}].key ("${job.key}"): keys are unique within a set`;
      } else {
        firstIndex.set(job.key, i);
      }
    });
    const declared: DeclaredSettings[] = [];
    const scheduleErrors: unknown[] = []; // every job's, in the envelope's `errors`
    for (const [i, job] of dto.jobs.entries()) {
      if (!isObject(job)) {
        // Refused whatever the pipe said of it (an array item passes the nested check unread).
        fields[`jobs[${i}]`] ??= 'must be an object: a job as POST /jobs takes it, with its key';
        continue;
      }
      const prefix = `jobs[${i}].`;
      const own = Object.fromEntries(
        Object.entries(pending).flatMap(([path, message]) =>
          path.startsWith(prefix) ? [[path.slice(prefix.length), message]] : [],
        ),
      );
      try {
        declared.push(await this.settingsFactory.fromDeclaration(job, now, plan, workspaceId, own));
      } catch (err) {
        if (err instanceof ValidationFailedError) {
          for (const [path, message] of Object.entries(err.body.fields ?? {})) {
            fields[`jobs[${i}].${path}`] = message;
          }
          scheduleErrors.push(...(err.body.errors ?? []));
        } else if (err instanceof LimitExceededError) {
          throw new LimitExceededError(err.body.limit!, err.body.value!, `jobs[${i}] ("${job.key}"): ${err.message}`);
        } else {
          throw err;
        }
      }
    }
    if (Object.keys(fields).length > 0) {
      throw new ValidationFailedError(
        fields,
        'The set was refused; nothing was applied',
        scheduleErrors.length > 0 ? scheduleErrors : undefined,
      );
    }
    return declared;
  }

  /** Step 2: the set against what is stored; `409` naming every key another owner holds (unless `adopt`). */
  private plan(
    dto: ApplyJobsDto,
    declared: DeclaredSettings[],
    stored: JobEntity[],
    managedBy: string | null,
  ): { jobs: PlannedJob[]; deleted: JobEntity[] } {
    const byKey = new Map(stored.filter((job) => job.key !== null).map((job) => [job.key!, job]));
    const owned: string[] = [];
    const jobs = dto.jobs.map((job: DeclaredJobDto, i): PlannedJob => {
      const current = byKey.get(job.key) ?? null;
      if (current && (current.managedBy ?? null) !== managedBy && !dto.adopt) {
        owned.push(`"${job.key}" (${current.managedBy === null ? 'not managed' : `managed by ${current.managedBy}`})`);
      }
      const changes = current ? declarationChanges(current, declared[i].settings, managedBy) : [];
      return { key: job.key, declared: declared[i], stored: current, changes };
    });
    if (owned.length > 0) {
      throw new ConflictError(
        `Jobs of the set belong to another owner: ${owned.join(', ')}; apply with adopt: true to take them over`,
      );
    }
    const named = new Set(dto.jobs.map((job) => job.key));
    const deleted =
      dto.prune && managedBy !== null
        ? stored.filter((job) => job.managedBy === managedBy && job.key !== null && !named.has(job.key))
        : [];
    return { jobs, deleted };
  }

  /**
   * The plan's job cap for the set as a whole (`403 limit_exceeded`) before anything is written;
   * each create checks it again under the workspace's create lock (`JobLifecycle.create`).
   */
  private async checkJobCap(
    workspaceId: string,
    planned: { jobs: PlannedJob[]; deleted: JobEntity[] },
    plan: PlanLimits,
    manager: Tx,
  ): Promise<void> {
    const creates = planned.jobs.filter((job) => !job.stored).length;
    const cap = plan.max_jobs_per_workspace;
    if (cap <= 0 || creates === 0) {
      return;
    }
    const after = (await this.jobs.countInWorkspace(workspaceId, manager)) - planned.deleted.length + creates;
    if (after > cap) {
      throw new LimitExceededError(
        'max_jobs_per_workspace',
        cap,
        `This workspace's plan allows at most ${cap} jobs; the set would make ${after}`,
      );
    }
  }

  /** `{{secret.NAME}}` templates of the jobs that are written, before anything is (they are checked again in each write). */
  private async checkTemplates(workspaceId: string, planned: { jobs: PlannedJob[] }, manager: Tx): Promise<void> {
    const fields: Record<string, string> = {};
    for (const [i, job] of planned.jobs.entries()) {
      if (job.stored && !job.changes.some((path) => path.startsWith('sink.'))) {
        continue;
      }
      const { sinkKind, sinkConfig } = job.declared.settings;
      try {
        await this.templates.check(workspaceId, sinkKind, sinkConfig, manager);
      } catch (err) {
        if (!(err instanceof ValidationFailedError)) {
          throw err;
        }
        for (const [path, message] of Object.entries(err.body.fields ?? {})) {
          fields[`jobs[${i}].${path}`] = message;
        }
      }
    }
    if (Object.keys(fields).length > 0) {
      throw new ValidationFailedError(fields, 'The set was refused; nothing was applied');
    }
  }

  private answer(
    dto: ApplyJobsDto,
    managedBy: string | null,
    planned: { jobs: PlannedJob[]; deleted: JobEntity[] },
  ): ApplyPlan {
    const result: ApplyPlan = {
      managed_by: managedBy,
      dry_run: dto.dry_run === true,
      created: [],
      updated: [],
      unchanged: [],
      deleted: planned.deleted.map((job) => job.key!),
      kept: [],
      ids: {},
    };
    for (const job of planned.jobs) {
      if (!job.stored) {
        result.created.push(job.key);
        continue;
      }
      result.ids[job.key] = job.stored.id;
      if (job.changes.length > 0) {
        result.updated.push({ key: job.key, changes: job.changes });
      } else {
        result.unchanged.push(job.key);
      }
      // What an operator set by hand stays: the plan says so.
      if (job.stored.state === 'paused' || job.stored.state === 'disabled') {
        result.kept.push({ key: job.key, reason: job.stored.state });
      }
    }
    for (const job of planned.deleted) {
      result.ids[job.key!] = job.id;
    }
    return result;
  }

  /** Step 3: one transaction per job, then the one audit entry (also when a write failed half-way). */
  private async carryOut(
    auth: AuthContext,
    result: ApplyPlan,
    planned: { jobs: PlannedJob[]; deleted: JobEntity[] },
    options: { managedBy: string | null; plan: PlanLimits; now: Date; prune: boolean },
  ): Promise<void> {
    const { workspaceId, actor } = auth;
    const { managedBy, plan, now } = options;
    const done = { created: [] as string[], updated: [] as string[], deleted: [] as string[] };
    let failure: unknown = null;
    try {
      for (const job of planned.deleted) {
        await this.lifecycle.delete(workspaceId, job.id, actor, { audit: false }).catch((err: unknown) => {
          if (!(err instanceof NotFoundError)) {
            throw err; // a job deleted meanwhile is what the prune wanted
          }
        });
        done.deleted.push(job.key!);
      }
      // Updates wait for their workflow's first signal (as PATCH does): a few at a time.
      const updates = planned.jobs.filter((job) => job.stored && job.changes.length > 0);
      await inLanes(updates, UPDATE_LANES, async (job) => {
        if (await this.update(auth, job, managedBy, now)) {
          done.updated.push(job.key);
        }
      });
      // Creates a chunk per transaction: a set of thousands commits in a few statements.
      const creates = planned.jobs.filter((job) => !job.stored);
      for (let i = 0; i < creates.length; i += CREATE_CHUNK) {
        const chunk = creates.slice(i, i + CREATE_CHUNK);
        const written = await this.lifecycle.createMany(
          workspaceId,
          actor,
          chunk.map((job) => ({
            settings: job.declared.settings,
            identity: { key: job.key, managedBy },
            signingSecret: job.declared.ownSigningSecret,
          })),
          {
            plan,
            now,
            check: ({ settings }, manager) =>
              this.templates.check(workspaceId, settings.sinkKind, settings.sinkConfig, manager),
            audit: false,
          },
        );
        chunk.forEach((job, n) => {
          result.ids[job.key] = written[n].job.id;
          done.created.push(job.key);
        });
      }
    } catch (err) {
      failure = err;
      throw err;
    } finally {
      if (done.created.length + done.updated.length + done.deleted.length > 0) {
        await this.audit.insert(workspaceId, {
          actor,
          action: 'jobs.apply',
          target: managedBy ?? 'jobs',
          details: {
            managed_by: managedBy,
            prune: options.prune,
            counts: {
              created: done.created.length,
              updated: done.updated.length,
              unchanged: result.unchanged.length,
              deleted: done.deleted.length,
              kept: result.kept.length,
            },
            ...done,
            ...(failure ? { completed: false } : {}),
          },
        });
      }
    }
  }

  /** An update on the locked row, compared again there (a PATCH may have come in between). */
  private async update(auth: AuthContext, job: PlannedJob, managedBy: string | null, now: Date): Promise<boolean> {
    const fields: string[] = [];
    const { changed } = await this.lifecycle.update(
      auth.workspaceId,
      job.stored!.id,
      auth.actor,
      {
        fields,
        apply: (row) => {
          const changes = declarationChanges(row, job.declared.settings, managedBy);
          if (changes.length === 0) {
            return Promise.resolve('unchanged' as const);
          }
          Object.assign(row, declaredColumns(row, job.declared.settings), { managedBy });
          fields.push(...changes);
          return Promise.resolve();
        },
        hasNextOccurrence: (row) => nextOccurrenceAfter(row, now),
      },
      { audit: false },
    );
    return changed;
  }
}

function nextOccurrenceAfter(job: JobEntity, now: Date): boolean {
  return nextFireTimes(job, now, 1).length > 0;
}

function isObject(value: unknown): value is Record<string, unknown> & DeclaredJobDto {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

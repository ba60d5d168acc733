import { Injectable } from '@nestjs/common';
import { ConflictError, NotFoundError, PreconditionFailedError, type PlanLimits } from '@svc/common';
import { JobEntity, JobsRepository } from '@svc/persistence';
import { JobLifecycle, nextFireTimes } from '@svc/orchestration';
import type { AuthContext } from '../auth/auth.decorators';
import type { CreateJobDto } from './dto/job-body.dto';
import { declarationChanges, declaredColumns } from './job-declaration';
import { JobSettingsFactory } from './job-settings.factory';
import { JobResponse, toJobResponse } from './jobs.mapper';
import { JobsService } from './jobs.service';
import { SinkTemplateChecker } from './sink-templates.checker';
import { pendingFieldErrors } from '../common/validation';

/** `If-Match` / `If-None-Match` of a PUT by key, parsed. */
export interface KeyPreconditions {
  /** `If-Match: "<version>"`: the stored job must be at this version; `'*'`: must exist. */
  ifMatch?: number | '*';
  /** `If-None-Match: *`: create only. */
  ifNoneMatch?: '*';
}

/** The answer of a PUT by key: the job, and whether this request created it (201) or not (200). */
export interface Upserted {
  created: boolean;
  job: JobResponse;
}

/**
 * `PUT|GET|DELETE /api/v1/jobs/by-key/{key}`. A PUT is a full declaration: what it
 * leaves out is at the create's default (`JobSettingsFactory`), not the stored value. It creates
 * through `JobLifecycle.create` (the unique index on (workspace, key) settles two creates racing)
 * and replaces through `JobLifecycle.update` on the locked row, where the comparison is made: an
 * identical declaration writes nothing (no version, no audit, no signal). The state an operator
 * set (paused, disabled), the signing secret and `managed_by` are never changed by a PUT.
 */
@Injectable()
export class JobsByKeyService {
  constructor(
    private readonly jobs: JobsRepository,
    private readonly lifecycle: JobLifecycle,
    private readonly settingsFactory: JobSettingsFactory,
    private readonly templates: SinkTemplateChecker,
    private readonly jobsService: JobsService,
  ) {}

  async upsert(auth: AuthContext, key: string, dto: CreateJobDto, conditions: KeyPreconditions): Promise<Upserted> {
    const pending = { ...pendingFieldErrors(dto) };
    if (dto.key !== undefined && dto.key !== key) {
      pending.key ??= 'must be the key of the path (a key never changes)';
    }
    const now = new Date();
    const plan = await this.lifecycle.planOf(auth.workspaceId);
    const declared = await this.settingsFactory.fromDeclaration(dto, now, plan, auth.workspaceId, pending);
    const existing = await this.jobs.getByKey(auth.workspaceId, key);
    if (!existing) {
      if (conditions.ifMatch !== undefined) {
        throw new PreconditionFailedError(`No job has the key "${key}" (If-Match)`);
      }
      try {
        return { created: true, job: await this.create(auth, key, declared, plan, now) };
      } catch (err) {
        // Another request created the key in between (the unique index said so): this PUT
        // becomes the update of that job, unless it was create-only.
        if (!(err instanceof ConflictError) || conditions.ifNoneMatch === '*') {
          throw err instanceof ConflictError ? new PreconditionFailedError(`A job has the key "${key}"`) : err;
        }
      }
    } else if (conditions.ifNoneMatch === '*') {
      throw new PreconditionFailedError(`A job has the key "${key}" (If-None-Match: *)`);
    }
    const current = existing ?? (await this.jobs.getByKey(auth.workspaceId, key));
    if (!current) {
      throw new ConflictError(`The job with the key "${key}" was deleted meanwhile; retry`);
    }
    return { created: false, job: await this.replace(auth, current.id, declared, conditions, now) };
  }

  async get(auth: AuthContext, key: string): Promise<JobResponse> {
    return this.jobsService.get(auth, await this.idOf(auth, key));
  }

  async remove(auth: AuthContext, key: string): Promise<void> {
    await this.lifecycle.delete(auth.workspaceId, await this.idOf(auth, key), auth.actor);
  }

  private async create(
    auth: AuthContext,
    key: string,
    declared: Awaited<ReturnType<JobSettingsFactory['fromDeclaration']>>,
    plan: PlanLimits,
    now: Date,
  ): Promise<JobResponse> {
    const { settings, compiled, ownSigningSecret } = declared;
    const { job, signingSecret } = await this.lifecycle.create(auth.workspaceId, auth.actor, settings, {
      plan,
      now,
      check: (manager) => this.templates.check(auth.workspaceId, settings.sinkKind, settings.sinkConfig, manager),
      identity: { key, managedBy: null },
      signingSecret: ownSigningSecret,
    });
    // A secret the caller chose is not echoed.
    return toJobResponse(job, {
      nextRunAt: nextRunOf(job, now, compiled),
      signingSecret: ownSigningSecret === undefined ? signingSecret : undefined,
    });
  }

  private async replace(
    auth: AuthContext,
    id: string,
    declared: Awaited<ReturnType<JobSettingsFactory['fromDeclaration']>>,
    conditions: KeyPreconditions,
    now: Date,
  ): Promise<JobResponse> {
    const fields: string[] = []; // filled on the locked row: the audit entry's `fields`
    let scheduleChanged = false;
    const { job, signingSecret } = await this.lifecycle.update(auth.workspaceId, id, auth.actor, {
      fields,
      apply: async (job, manager) => {
        if (typeof conditions.ifMatch === 'number' && job.version !== conditions.ifMatch) {
          throw new PreconditionFailedError(
            `The job is at version ${job.version}, not ${conditions.ifMatch} (If-Match); read it again`,
          );
        }
        const changes = declarationChanges(job, declared.settings);
        if (changes.length === 0) {
          return 'unchanged';
        }
        const columns = declaredColumns(job, declared.settings);
        if (changes.some((path) => path.startsWith('sink.'))) {
          await this.templates.check(auth.workspaceId, columns.sinkKind, columns.sinkConfig, manager);
        }
        scheduleChanged = changes.some((path) => path.startsWith('schedule.'));
        Object.assign(job, columns);
        fields.push(...changes);
      },
      hasNextOccurrence: (job) =>
        nextFireTimes(job, now, 1, scheduleChanged ? declared.compiled : undefined).length > 0,
    });
    return toJobResponse(job, {
      nextRunAt: nextRunOf(job, now, scheduleChanged ? declared.compiled : undefined),
      signingSecret,
    });
  }

  private async idOf(auth: AuthContext, key: string): Promise<string> {
    const job = await this.jobs.getByKey(auth.workspaceId, key);
    if (!job) {
      throw new NotFoundError('Job');
    }
    return job.id;
  }
}

function nextRunOf(job: JobEntity, now: Date, compiled?: Parameters<typeof nextFireTimes>[3]): Date | null {
  return job.state === 'active' ? (nextFireTimes(job, now, 1, compiled)[0] ?? null) : null;
}

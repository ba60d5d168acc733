import { Brackets, DataSource, EntityManager } from 'typeorm';
import { JobEntity, type JobState, type StoredOccurrenceSkip, type StoredSigningSecret } from '../entities/job.entity';
import { entityFromRow, returnedRows } from './query-result';

export interface JobListFilter {
  state?: JobState;
  tag?: string;
  q?: string;
  /** Exact key. */
  key?: string;
  /** Exact owner. */
  managed_by?: string;
  /** Keyset: rows strictly older than this id (ids sort by creation time). */
  beforeId?: string;
  limit: number;
}

/** Which jobs a bulk action is about: every given field must hold (AND). */
export interface JobMatchFilter {
  ids?: string[];
  /** The job carries every one of these tags. */
  tags?: string[];
  keyPrefix?: string;
  managedBy?: string;
  state?: JobState;
  /**
   * A webhook job whose URL contains this text (case-insensitive): a pre-filter; the exact host
   * rule is the caller's (`matchesSinkHost`, libs/orchestration).
   */
  urlContains?: string;
}

/** What a bulk action needs of a matched job. */
export type MatchedJob = Pick<JobEntity, 'id' | 'name' | 'state' | 'sinkKind' | 'sinkConfig'>;

/** The partial unique index on (workspace_id, key) (migration 1795400004200-JobKeys). */
export const JOB_KEY_CONSTRAINT = 'uq_jobs_workspace_key';

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Named queries over jobs; the workspace id is always the first argument (style.md rule 5). */
export class JobsRepository {
  constructor(private readonly dataSource: DataSource) {}

  private repo(manager?: EntityManager) {
    return (manager ?? this.dataSource.manager).getRepository(JobEntity);
  }

  async getById(workspaceId: string, id: string, manager?: EntityManager): Promise<JobEntity | null> {
    return this.repo(manager).findOne({ where: { workspaceId, id } });
  }

  /** Locks the row for a read-modify-write inside a transaction. */
  async getForUpdate(workspaceId: string, id: string, manager: EntityManager): Promise<JobEntity | null> {
    return manager
      .getRepository(JobEntity)
      .createQueryBuilder('job')
      .setLock('pessimistic_write')
      .where('job.workspaceId = :workspaceId AND job.id = :id', { workspaceId, id })
      .getOne();
  }

  /** The job of the workspace with this key, if any. */
  async getByKey(workspaceId: string, key: string, manager?: EntityManager): Promise<JobEntity | null> {
    return this.repo(manager).findOne({ where: { workspaceId, key } });
  }

  /**
   * What an apply compares its set with, in one query: the jobs of the workspace named by
   * `keys`, and every job `managedBy` owns (what a prune may delete).
   */
  async listForApply(
    workspaceId: string,
    keys: string[],
    managedBy: string | null,
    manager?: EntityManager,
  ): Promise<JobEntity[]> {
    return this.repo(manager)
      .createQueryBuilder('job')
      .where('job.workspaceId = :workspaceId', { workspaceId })
      .andWhere(
        new Brackets((b) => {
          b.where('job.key = ANY(:keys)', { keys });
          if (managedBy !== null) {
            b.orWhere('job.managedBy = :managedBy', { managedBy });
          }
        }),
      )
      .orderBy('job.id')
      .getMany();
  }

  /**
   * Serializes the applies of one workspace across every API process
   * (docs/architecture.md → Jobs as code) until `manager`'s transaction ends. Two-key form: its own
   * key space, apart from `lockWorkspaceCreates`'s.
   */
  async lockApply(workspaceId: string, manager: EntityManager): Promise<void> {
    await manager.query(`SELECT pg_advisory_xact_lock(hashtext('jobs.apply'), hashtext($1))`, [workspaceId]);
  }

  async list(workspaceId: string, filter: JobListFilter): Promise<JobEntity[]> {
    const query = this.repo().createQueryBuilder('job').where('job.workspaceId = :workspaceId', { workspaceId });
    if (filter.state) {
      query.andWhere('job.state = :state', { state: filter.state });
    }
    if (filter.tag) {
      query.andWhere('job.tags @> ARRAY[:tag]::text[]', { tag: filter.tag });
    }
    if (filter.q) {
      const pattern = `%${escapeLike(filter.q)}%`;
      query.andWhere(
        // The key too: the dashboard's one search box finds `reports.nightly`.
        new Brackets((b) =>
          b
            .where('job.name ILIKE :pattern', { pattern })
            .orWhere('job.description ILIKE :pattern')
            .orWhere('job.key ILIKE :pattern'),
        ),
      );
    }
    if (filter.key) {
      query.andWhere('job.key = :key', { key: filter.key });
    }
    if (filter.managed_by) {
      query.andWhere('job.managedBy = :managedBy', { managedBy: filter.managed_by });
    }
    if (filter.beforeId) {
      query.andWhere('job.id < :beforeId', { beforeId: filter.beforeId });
    }
    return query.orderBy('job.id', 'DESC').take(filter.limit).getMany();
  }

  /** The jobs of the workspace `filter` matches, oldest first, at most `limit`. */
  async listMatching(workspaceId: string, filter: JobMatchFilter, limit: number): Promise<MatchedJob[]> {
    const query = this.repo()
      .createQueryBuilder('job')
      .select(['job.id', 'job.name', 'job.state', 'job.sinkKind', 'job.sinkConfig'])
      .where('job.workspaceId = :workspaceId', { workspaceId });
    if (filter.ids) {
      query.andWhere('job.id = ANY(:ids)', { ids: filter.ids });
    }
    if (filter.tags && filter.tags.length > 0) {
      query.andWhere('job.tags @> :tags::text[]', { tags: filter.tags });
    }
    if (filter.keyPrefix !== undefined) {
      query.andWhere('job.key LIKE :keyPrefix', { keyPrefix: `${escapeLike(filter.keyPrefix)}%` });
    }
    if (filter.managedBy !== undefined) {
      query.andWhere('job.managedBy = :managedBy', { managedBy: filter.managedBy });
    }
    if (filter.state) {
      query.andWhere('job.state = :state', { state: filter.state });
    }
    if (filter.urlContains !== undefined) {
      query
        .andWhere("job.sinkKind = 'webhook'")
        .andWhere("job.sink_config->>'url' ILIKE :urlPattern", { urlPattern: `%${escapeLike(filter.urlContains)}%` });
    }
    return query.orderBy('job.id', 'ASC').take(limit).getMany();
  }

  /** Every job of the deployment, in every workspace (the worker's parking gate). */
  async countAll(): Promise<number> {
    return this.repo().count();
  }

  async countInWorkspace(workspaceId: string, manager?: EntityManager): Promise<number> {
    return this.repo(manager).count({ where: { workspaceId } });
  }

  /**
   * Serializes job creation in one workspace until `manager`'s transaction ends, so two concurrent
   * creates cannot both pass the plan's job cap.
   */
  async lockWorkspaceCreates(workspaceId: string, manager: EntityManager): Promise<void> {
    await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [workspaceId]);
  }

  /** One statement for all of `jobs`; RETURNING fills what the database defaults on each entity. */
  async insert(jobs: JobEntity | JobEntity[], manager: EntityManager): Promise<void> {
    await manager.getRepository(JobEntity).insert(jobs);
  }

  async save(job: JobEntity, manager: EntityManager): Promise<JobEntity> {
    return manager.getRepository(JobEntity).save(job);
  }

  async delete(workspaceId: string, id: string, manager: EntityManager): Promise<boolean> {
    const result = await manager.getRepository(JobEntity).delete({ workspaceId, id });
    return (result.affected ?? 0) > 0;
  }

  /** Every job that should have a running workflow (reconciler); not workspace-scoped by design. */
  /**
   * One page (by id) of the revisions of every job that should have a running workflow (active,
   * paused or disabled): just what the reconciler compares, so a job in sync costs no entity.
   */
  async listWorkflowRevisions(afterId: string | null, limit: number): Promise<Array<{ id: string; revision: number }>> {
    return this.dataSource.query(
      `SELECT id, revision FROM jobs
        WHERE state IN ('active', 'paused', 'disabled') AND ($1::text IS NULL OR id > $1)
        ORDER BY id LIMIT $2`,
      [afterId, limit],
    );
  }

  /** Jobs by id across workspaces (for the reconciler, which holds trusted ids). */
  async findMany(workspaceId: string, ids: string[]): Promise<JobEntity[]> {
    if (ids.length === 0) {
      return [];
    }
    return this.repo()
      .createQueryBuilder('job')
      .where('job.workspaceId = :workspaceId AND job.id IN (:...ids)', { workspaceId, ids })
      .getMany();
  }

  async findManyUnscoped(ids: string[]): Promise<JobEntity[]> {
    if (ids.length === 0) {
      return [];
    }
    return this.repo().createQueryBuilder('job').where('job.id IN (:...ids)', { ids }).getMany();
  }

  /** Which of `ids` are jobs that should have a running workflow (active, paused or disabled). */
  async findIdsWithWorkflows(ids: string[]): Promise<string[]> {
    if (ids.length === 0) {
      return [];
    }
    const rows: Array<{ id: string }> = await this.dataSource.query(
      `SELECT id FROM jobs WHERE id = ANY($1) AND state IN ('active', 'paused', 'disabled')`,
      [ids],
    );
    return rows.map((row) => row.id);
  }

  /** Looks a job up by id alone; for worker activities that already hold a trusted id. */
  async findByIdUnscoped(id: string, manager?: EntityManager): Promise<JobEntity | null> {
    return this.repo(manager).findOne({ where: { id } });
  }

  /** The same, with the signing secrets in the same read (delivery must not see a half-deleted job). */
  async findWithSecretsUnscoped(id: string): Promise<JobEntity | null> {
    return this.repo().createQueryBuilder('job').addSelect('job.signingSecrets').where('job.id = :id', { id }).getOne();
  }

  /** Several jobs with their signing secrets in one query (a burst's attempts at their instant). */
  async findManyWithSecretsUnscoped(ids: string[]): Promise<JobEntity[]> {
    if (ids.length === 0) {
      return [];
    }
    return this.repo()
      .createQueryBuilder('job')
      .addSelect('job.signingSecrets')
      .where('job.id IN (:...ids)', { ids })
      .getMany();
  }

  /** A job of the workspace with its signing secrets (sink tests sign like deliveries). */
  async getWithSigningSecrets(workspaceId: string, id: string): Promise<JobEntity | null> {
    return this.repo()
      .createQueryBuilder('job')
      .addSelect('job.signingSecrets')
      .where('job.workspaceId = :workspaceId AND job.id = :id', { workspaceId, id })
      .getOne();
  }

  /** The same, locked until `manager`'s transaction ends (signing-secret rotation). */
  async getWithSigningSecretsForUpdate(
    workspaceId: string,
    id: string,
    manager: EntityManager,
  ): Promise<JobEntity | null> {
    return manager
      .getRepository(JobEntity)
      .createQueryBuilder('job')
      .addSelect('job.signingSecrets')
      .setLock('pessimistic_write')
      .where('job.workspaceId = :workspaceId AND job.id = :id', { workspaceId, id })
      .getOne();
  }

  /** Replaces the job's signing secrets (and moves `updated_at`); nothing else changes. */
  async setSigningSecrets(
    workspaceId: string,
    id: string,
    secrets: StoredSigningSecret[],
    manager: EntityManager,
  ): Promise<void> {
    await manager.query(
      `UPDATE jobs SET signing_secrets = $3::jsonb, updated_at = now() WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, id, JSON.stringify(secrets)],
    );
  }

  /**
   * Raises the revision of the workspace's jobs `ids` by one (their schedule reads data that changed
   * outside their row: a calendar) and returns them as they now are.
   */
  async raiseRevisions(workspaceId: string, ids: string[], manager: EntityManager): Promise<JobEntity[]> {
    if (ids.length === 0) {
      return [];
    }
    const rows = returnedRows<Record<string, unknown>>(
      await manager.query(
        `UPDATE jobs SET revision = revision + 1 WHERE workspace_id = $1 AND id = ANY($2::text[]) RETURNING *`,
        [workspaceId, ids],
      ),
    );
    return rows.map((row) => entityFromRow(manager, JobEntity, row));
  }

  /**
   * Marks the occurrence at `at` (ISO, `toISOString()`) skipped with `skip`, or unmarks it (`null`),
   * in one statement on the row (no version, revision or `updated_at` change: the schedule is the
   * same). Marking also drops the marks of instants before `pruneBefore`, long since claimed. True
   * when the job exists and, for an unmark, the occurrence was marked.
   */
  async setOccurrenceSkip(
    workspaceId: string,
    id: string,
    at: string,
    skip: StoredOccurrenceSkip | null,
    pruneBefore: Date,
    manager?: EntityManager,
  ): Promise<boolean> {
    const m = manager ?? this.dataSource.manager;
    const rows =
      skip === null
        ? await m.query(
            `UPDATE jobs SET occurrence_skips = occurrence_skips - $3::text
              WHERE workspace_id = $1 AND id = $2 AND jsonb_exists(occurrence_skips, $3::text) RETURNING id`,
            [workspaceId, id, at],
          )
        : await m.query(
            `UPDATE jobs SET occurrence_skips = COALESCE(
                (SELECT jsonb_object_agg(key, value) FROM jsonb_each(occurrence_skips)
                  WHERE key::timestamptz >= $4), '{}'::jsonb) || jsonb_build_object($3::text, $5::jsonb)
              WHERE workspace_id = $1 AND id = $2 RETURNING id`,
            [workspaceId, id, at, pruneBefore, JSON.stringify(skip)],
          );
    return returnedRows(rows).length > 0;
  }

  /**
   * Moves the job from `from` to `to` and from `revision` to `nextRevision` (the revision rule is
   * JobLifecycle's `nextRevision`; a state change never touches `version`), when it is still in
   * `from` at `revision`. Returns the updated row, or null when the condition no longer holds.
   */
  async transitionState(
    id: string,
    change: {
      from: JobState;
      to: JobState;
      revision: number;
      nextRevision: number;
      disabledReason?: string | null;
      resetFailures?: boolean;
      /** Why and until when a pause holds; any move out of `paused` clears both. */
      pausedNote?: string | null;
      resumeAt?: Date | null;
    },
    manager: EntityManager,
  ): Promise<JobEntity | null> {
    const result: unknown = await manager.query(
      `UPDATE jobs SET state = $3, revision = $5, updated_at = now(),
              disabled_reason = CASE WHEN $6 THEN $7 ELSE disabled_reason END,
              consecutive_failures = CASE WHEN $8 THEN 0 ELSE consecutive_failures END,
              paused_note = CASE WHEN $3 = 'paused' THEN $9 END,
              resume_at = CASE WHEN $3 = 'paused' THEN $10::timestamptz END
        WHERE id = $1 AND state = $2 AND revision = $4
        RETURNING id`,
      [
        id,
        change.from,
        change.to,
        change.revision,
        change.nextRevision,
        change.disabledReason !== undefined,
        change.disabledReason ?? null,
        change.resetFailures ?? false,
        change.pausedNote ?? null,
        change.resumeAt ?? null,
      ],
    );
    return returnedRows(result).length > 0 ? this.findByIdUnscoped(id, manager) : null;
  }
}

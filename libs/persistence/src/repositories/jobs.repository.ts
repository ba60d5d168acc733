import { Brackets, DataSource, EntityManager } from 'typeorm';
import { JobEntity, type JobState } from '../entities/job.entity';

export interface JobListFilter {
  state?: JobState;
  tag?: string;
  q?: string;
  /** Keyset: rows strictly older than this id (ids sort by creation time). */
  beforeId?: string;
  limit: number;
}

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
        new Brackets((b) => b.where('job.name ILIKE :pattern', { pattern }).orWhere('job.description ILIKE :pattern')),
      );
    }
    if (filter.beforeId) {
      query.andWhere('job.id < :beforeId', { beforeId: filter.beforeId });
    }
    return query.orderBy('job.id', 'DESC').take(filter.limit).getMany();
  }

  async countInWorkspace(workspaceId: string, manager?: EntityManager): Promise<number> {
    return this.repo(manager).count({ where: { workspaceId } });
  }

  async insert(job: JobEntity, manager: EntityManager): Promise<void> {
    await manager.getRepository(JobEntity).insert(job);
  }

  async save(job: JobEntity, manager: EntityManager): Promise<JobEntity> {
    return manager.getRepository(JobEntity).save(job);
  }

  async delete(workspaceId: string, id: string, manager: EntityManager): Promise<boolean> {
    const result = await manager.getRepository(JobEntity).delete({ workspaceId, id });
    return (result.affected ?? 0) > 0;
  }

  /** Every job that should have a running workflow (reconciler); not workspace-scoped by design. */
  async listAllWithWorkflows(afterId: string | null, limit: number): Promise<JobEntity[]> {
    const query = this.repo()
      .createQueryBuilder('job')
      .where('job.state IN (:...states)', { states: ['active', 'paused', 'disabled'] });
    if (afterId) {
      query.andWhere('job.id > :afterId', { afterId });
    }
    return query.orderBy('job.id', 'ASC').take(limit).getMany();
  }

  /** Looks a job up by id alone; for worker activities that already hold a trusted id. */
  async findByIdUnscoped(id: string, manager?: EntityManager): Promise<JobEntity | null> {
    return this.repo(manager).findOne({ where: { id } });
  }

  /** The same, with the signing secrets in the same read (delivery must not see a half-deleted job). */
  async findWithSecretsUnscoped(id: string): Promise<JobEntity | null> {
    return this.repo().createQueryBuilder('job').addSelect('job.signingSecrets').where('job.id = :id', { id }).getOne();
  }
}

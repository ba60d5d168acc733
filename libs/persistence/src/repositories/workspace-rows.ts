import type { DataSource, EntityManager, EntityTarget, FindOptionsWhere, ObjectLiteral } from 'typeorm';

/**
 * The named queries a workspace's resource with time-ordered ids has in common (alert channels and
 * rules, backfills, operations): a newest-first page, a row by id (in its workspace, or for the
 * worker in any), and that row locked for a change. `Row` is what callers
 * see of the entity (no secret columns, no relations).
 */
export abstract class WorkspaceRowsRepository<E extends ObjectLiteral & { workspaceId: string; id: string }, Row> {
  protected constructor(
    protected readonly dataSource: DataSource,
    private readonly entity: EntityTarget<E>,
    private readonly alias: string,
  ) {}

  protected repo(manager?: EntityManager) {
    return (manager ?? this.dataSource.manager).getRepository(this.entity);
  }

  /** One page, newest first (ids sort by creation time), strictly before `beforeId` when given. */
  async listPage(workspaceId: string, page: { beforeId?: string; limit: number }): Promise<Row[]> {
    const a = this.alias;
    const query = this.repo().createQueryBuilder(a).where(`${a}.workspaceId = :workspaceId`, { workspaceId });
    if (page.beforeId !== undefined) {
      query.andWhere(`${a}.id < :beforeId`, { beforeId: page.beforeId });
    }
    return (await query.orderBy(`${a}.id`, 'DESC').take(page.limit).getMany()) as unknown as Row[];
  }

  findById(workspaceId: string, id: string, manager?: EntityManager): Promise<Row | null> {
    return this.repo(manager).findOne({ where: { workspaceId, id } as FindOptionsWhere<E> }) as Promise<Row | null>;
  }

  /** Any workspace's row by id, for the worker, which holds a trusted id. */
  findByIdUnscoped(id: string): Promise<Row | null> {
    return this.repo().findOne({ where: { id } as FindOptionsWhere<E> }) as Promise<Row | null>;
  }

  /** The row locked until the transaction ends (PATCH, DELETE, resend). */
  getForUpdate(workspaceId: string, id: string, manager: EntityManager): Promise<Row | null> {
    return this.repo(manager).findOne({
      where: { workspaceId, id } as FindOptionsWhere<E>,
      lock: { mode: 'pessimistic_write' },
    }) as Promise<Row | null>;
  }
}

import { newId } from '@svc/workflow-contract/ids';
import { DataSource, EntityManager } from 'typeorm';
import { WorkspaceEntity } from '../entities/workspace.entity';

export interface CreateWorkspaceInput {
  name: string;
  slug: string;
  plan: string;
}

/**
 * Named queries on workspaces. The workspace is the tenant itself, so these methods are keyed
 * by id or slug rather than scoped by a workspace id.
 */
export class WorkspacesRepository {
  constructor(private readonly dataSource: DataSource) {}

  findById(id: string, manager: EntityManager = this.dataSource.manager): Promise<WorkspaceEntity | null> {
    return manager.findOneBy(WorkspaceEntity, { id });
  }

  findBySlug(slug: string, manager: EntityManager = this.dataSource.manager): Promise<WorkspaceEntity | null> {
    return manager.findOneBy(WorkspaceEntity, { slug });
  }

  /** Like `findById`, locking the row (`FOR UPDATE`) until the surrounding transaction ends. */
  findByIdForUpdate(id: string, manager: EntityManager): Promise<WorkspaceEntity | null> {
    return manager.findOne(WorkspaceEntity, { where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  /**
   * Changes a workspace's name and/or slug and returns the row. A slug another workspace has
   * raises the unique violation `uq_workspaces_slug` (callers map it to their error).
   */
  async updateProfile(
    id: string,
    changes: { name?: string; slug?: string; temporalWorkflowTaskQueues?: string[] | null },
    manager: EntityManager = this.dataSource.manager,
  ): Promise<WorkspaceEntity> {
    if (Object.values(changes).some((value) => value !== undefined)) {
      await manager.update(WorkspaceEntity, { id }, changes);
    }
    return manager.findOneByOrFail(WorkspaceEntity, { id });
  }

  /** Like `findBySlug`, locking the row (`FOR UPDATE`) until the surrounding transaction ends. */
  findBySlugForUpdate(slug: string, manager: EntityManager): Promise<WorkspaceEntity | null> {
    return manager.findOne(WorkspaceEntity, { where: { slug }, lock: { mode: 'pessimistic_write' } });
  }

  /** Inserts a workspace; a duplicate slug raises the unique violation `uq_workspaces_slug`. */
  async create(
    input: CreateWorkspaceInput,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<WorkspaceEntity> {
    const row = manager.create(WorkspaceEntity, { id: newId('workspace'), suspendedAt: null, ...input });
    await manager.insert(WorkspaceEntity, row);
    return await manager.findOneByOrFail(WorkspaceEntity, { id: row.id });
  }

  /**
   * Inserts the workspace unless one with that slug exists; returns the row either way and
   * whether it was created. Safe under concurrent callers (ON CONFLICT DO NOTHING).
   */
  async findOrCreateBySlug(
    input: CreateWorkspaceInput,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<{ workspace: WorkspaceEntity; created: boolean }> {
    const id = newId('workspace');
    const result = await manager
      .createQueryBuilder()
      .insert()
      .into(WorkspaceEntity)
      .values({ id, ...input, suspendedAt: null })
      .orIgnore()
      .returning(['id'])
      .execute();
    const created = result.raw.length > 0;
    const workspace = await manager.findOneByOrFail(WorkspaceEntity, { slug: input.slug });
    return { workspace, created };
  }

  /**
   * Sets or clears `suspended_at` (keeps the original time when already suspended). Returns the
   * updated workspace, or null when no workspace has that slug.
   */
  async setSuspended(
    slug: string,
    suspended: boolean,
    at: Date = new Date(),
    manager: EntityManager = this.dataSource.manager,
  ): Promise<WorkspaceEntity | null> {
    const qb = manager.createQueryBuilder().update(WorkspaceEntity).where('slug = :slug', { slug });
    if (suspended) {
      qb.set({ suspendedAt: () => 'COALESCE(suspended_at, :at)' }).setParameter('at', at);
    } else {
      qb.set({ suspendedAt: null });
    }
    await qb.execute();
    return manager.findOneBy(WorkspaceEntity, { slug });
  }
}

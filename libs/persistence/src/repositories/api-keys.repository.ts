import { newId } from '@svc/workflow-contract/ids';
import { DataSource, EntityManager, IsNull, LessThan } from 'typeorm';
import { ApiKeyEntity } from '../entities/api-key.entity';
import { WorkspaceEntity } from '../entities/workspace.entity';

export interface CreateApiKeyInput {
  name: string;
  /** `sjs_XXXXXXXX` */
  prefix: string;
  /** Hex SHA-256 of the full key (`hashApiKey` in @svc/common). */
  keyHash: string;
  scopes: string[];
}

export interface ActiveApiKey {
  key: ApiKeyEntity;
  workspace: WorkspaceEntity;
}

/** `touchLastUsed` writes at most once per this interval per key. */
export const LAST_USED_RESOLUTION_MS = 60_000;

/** Named queries on API keys. Returned entities never carry `keyHash` (`select: false`). */
export class ApiKeysRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * The authentication lookup: the unrevoked key with this hash, with its workspace (including
   * `suspendedAt`). Not workspace-scoped, because the key is what identifies the workspace.
   * Equality on a unique index of a SHA-256 digest: no timing oracle on the secret itself.
   */
  async findActiveByHash(keyHash: string): Promise<ActiveApiKey | null> {
    const key = await this.dataSource.manager
      .createQueryBuilder(ApiKeyEntity, 'key')
      .innerJoinAndSelect('key.workspace', 'workspace')
      .where('key.key_hash = :keyHash', { keyHash })
      .andWhere('key.revoked_at IS NULL')
      .getOne();
    if (!key?.workspace) {
      return null;
    }
    const { workspace, ...rest } = key;
    return { key: Object.assign(new ApiKeyEntity(), rest), workspace };
  }

  async create(
    workspaceId: string,
    input: CreateApiKeyInput,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<ApiKeyEntity> {
    const id = newId('apiKey');
    await manager.insert(ApiKeyEntity, {
      id,
      workspaceId,
      name: input.name,
      prefix: input.prefix,
      keyHash: input.keyHash,
      scopes: input.scopes,
      lastUsedAt: null,
      revokedAt: null,
    });
    return manager.findOneByOrFail(ApiKeyEntity, { workspaceId, id });
  }

  findById(workspaceId: string, id: string): Promise<ApiKeyEntity | null> {
    return this.dataSource.manager.findOneBy(ApiKeyEntity, { workspaceId, id });
  }

  /** Like `findById`, locking the row (`FOR UPDATE`) until the surrounding transaction ends. */
  findByIdForUpdate(workspaceId: string, id: string, manager: EntityManager): Promise<ApiKeyEntity | null> {
    return manager.findOne(ApiKeyEntity, { where: { workspaceId, id }, lock: { mode: 'pessimistic_write' } });
  }

  /**
   * One page of the workspace's keys, revoked ones included, newest first (`id` descending, on
   * `idx_api_keys_workspace_id`), starting strictly before `beforeId` when given.
   */
  listPage(workspaceId: string, page: { beforeId?: string; limit: number }): Promise<ApiKeyEntity[]> {
    return this.dataSource.manager.find(ApiKeyEntity, {
      where: { workspaceId, ...(page.beforeId ? { id: LessThan(page.beforeId) } : {}) },
      order: { id: 'DESC' },
      take: page.limit,
    });
  }

  /** Every key of the workspace, revoked ones included, oldest first. */
  list(workspaceId: string): Promise<ApiKeyEntity[]> {
    return this.dataSource.manager.find(ApiKeyEntity, { where: { workspaceId }, order: { id: 'ASC' } });
  }

  /**
   * Sets `revoked_at` (idempotent: an already revoked key keeps its time). Returns the key, or
   * null when the workspace has no key with that id.
   */
  async revoke(
    workspaceId: string,
    id: string,
    at: Date = new Date(),
    manager: EntityManager = this.dataSource.manager,
  ): Promise<ApiKeyEntity | null> {
    await manager.update(ApiKeyEntity, { workspaceId, id, revokedAt: IsNull() }, { revokedAt: at });
    return manager.findOneBy(ApiKeyEntity, { workspaceId, id });
  }

  /**
   * Records use of a key. Throttled in SQL: the row is written only when the stored time is
   * older than `LAST_USED_RESOLUTION_MS`, so a busy key costs an index lookup, not a write.
   * Keyed by id alone because it follows `findActiveByHash`.
   */
  async touchLastUsed(id: string, at: Date = new Date()): Promise<void> {
    await this.dataSource.manager
      .createQueryBuilder()
      .update(ApiKeyEntity)
      .set({ lastUsedAt: at })
      .where('id = :id', { id })
      .andWhere('(last_used_at IS NULL OR last_used_at < :threshold)', {
        threshold: new Date(at.getTime() - LAST_USED_RESOLUTION_MS),
      })
      .execute();
  }
}

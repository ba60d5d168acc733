import { newId } from '@svc/workflow-contract/ids';
import { API_KEY_LITERAL, hashApiKey } from '@svc/common/api-keys';
import type { ApiKeyEntity, ApiKeysRepository } from '@svc/persistence';
import { authFor, InMemoryDatabase, KIT_WORKSPACE, OTHER_WORKSPACE, serviceOverKit } from '../../../../test/kit';
import { ApiKeysService } from './api-keys.service';

/** ApiKeysService over the in-memory kit: what a create stores and audits, revoke's rules. */

/** `ApiKeysRepository` over a kit table (rolled back with the transaction). */
function keysOver(db: InMemoryDatabase) {
  const table = () => db.table<ApiKeyEntity>('api_keys');
  let next = 0;
  return {
    create: async (workspaceId: string, input: { name: string; prefix: string; keyHash: string; scopes: string[] }) => {
      const key = {
        id: newId('apiKey', Date.parse('2026-03-01T00:00:00Z') + ++next),
        workspaceId,
        ...input,
        createdAt: new Date('2026-03-01T00:00:00Z'),
        lastUsedAt: null,
        revokedAt: null,
      } as ApiKeyEntity;
      table().set(key.id, key);
      return { ...key };
    },
    findByIdForUpdate: async (workspaceId: string, id: string) => {
      const key = table().get(id);
      return key && key.workspaceId === workspaceId ? { ...key } : null;
    },
    revoke: async (workspaceId: string, id: string, at: Date) => {
      const key = table().get(id);
      if (key && key.workspaceId === workspaceId && key.revokedAt === null) {
        key.revokedAt = at;
      }
      return key ?? null;
    },
    listPage: async (workspaceId: string, page: { beforeId?: string; limit: number }) =>
      [...table().values()]
        .filter((key) => key.workspaceId === workspaceId && (page.beforeId === undefined || key.id < page.beforeId))
        .sort((a, b) => b.id.localeCompare(a.id))
        .slice(0, page.limit),
  };
}

describe('ApiKeysService', () => {
  const auth = authFor();
  const kit = serviceOverKit((db) => {
    const { transactions, audit } = db.repositories;
    return new ApiKeysService(transactions, keysOver(db) as unknown as ApiKeysRepository, audit);
  });

  const stored = () => [...kit.db.table<ApiKeyEntity>('api_keys').values()];

  describe('create', () => {
    it('should answer the full key once, store only its hash and prefix, and audit the create', async () => {
      const created = await kit.service.create(auth, { name: 'ci', scopes: ['jobs:read'] });
      expect(created.key.startsWith(API_KEY_LITERAL)).toBe(true);
      expect(created.key.startsWith(created.prefix)).toBe(true);
      expect(stored()).toEqual([
        expect.objectContaining({ workspaceId: KIT_WORKSPACE, name: 'ci', keyHash: hashApiKey(created.key) }),
      ]);
      expect(JSON.stringify(stored())).not.toContain(created.key);
      expect(kit.db.audited()).toEqual([
        {
          actor: auth.actor,
          action: 'api_key.create',
          target: created.id,
          details: { name: 'ci', prefix: created.prefix, scopes: ['jobs:read'] },
        },
      ]);
    });

    it('should give a key without scopes every scope', async () => {
      const created = await kit.service.create(auth, { name: 'all' });
      expect(created.scopes).toEqual(['*']);
    });
  });

  describe('revoke', () => {
    it('should revoke the key and audit it with its name and prefix', async () => {
      const created = await kit.service.create(auth, { name: 'ci' });
      await kit.service.revoke(auth, created.id);
      expect(stored()[0].revokedAt).toEqual(expect.any(Date));
      expect(kit.db.audited().map((entry) => entry.action)).toEqual(['api_key.create', 'api_key.revoke']);
      expect(kit.db.audited()[1]).toEqual({
        actor: auth.actor,
        action: 'api_key.revoke',
        target: created.id,
        details: { name: 'ci', prefix: created.prefix },
      });
    });

    it('should be idempotent: a revoked key keeps its time and is not audited again', async () => {
      const created = await kit.service.create(auth, { name: 'ci' });
      await kit.service.revoke(auth, created.id);
      const at = stored()[0].revokedAt;
      await kit.service.revoke(auth, created.id);
      expect(stored()[0].revokedAt).toBe(at);
      expect(kit.db.audited()).toHaveLength(2);
    });

    it("should not find another workspace's key (404 not_found) and leave it unrevoked", async () => {
      const created = await kit.service.create(authFor(OTHER_WORKSPACE), { name: 'theirs' });
      await expect(kit.service.revoke(auth, created.id)).rejects.toMatchObject({
        status: 404,
        body: { code: 'not_found', message: 'API key not found' },
      });
      expect(stored()[0].revokedAt).toBeNull();
      expect(kit.db.audited(KIT_WORKSPACE)).toEqual([]);
    });
  });

  describe('list', () => {
    it("should page the workspace's keys newest first, without another workspace's, and never the hash", async () => {
      const a = await kit.service.create(auth, { name: 'a' });
      await kit.service.create(authFor(OTHER_WORKSPACE), { name: 'theirs' });
      const b = await kit.service.create(auth, { name: 'b' });
      const first = await kit.service.list(auth, { limit: 1 });
      expect(first.data.map((key) => key.id)).toEqual([b.id]);
      expect(first.next_cursor).not.toBeNull();
      const second = await kit.service.list(auth, { limit: 1, cursor: first.next_cursor! });
      expect(second).toEqual({ data: [expect.objectContaining({ id: a.id, name: 'a' })], next_cursor: null });
      expect(JSON.stringify(second)).not.toMatch(/hash|"key"/i);
    });
  });
});

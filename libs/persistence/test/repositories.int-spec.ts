import { ApiKeyEntity } from '../src/entities';
import { ApiKeysRepository, AuditRepository, WorkspacesRepository } from '../src/repositories';
import { useScratchDatabase } from './scratch-database';

describe('repositories', () => {
  const scratch = useScratchDatabase('repo', { poolSize: 2 });
  let workspaces: WorkspacesRepository;
  let keys: ApiKeysRepository;

  beforeAll(async () => {
    workspaces = new WorkspacesRepository(scratch.ds);
    keys = new ApiKeysRepository(scratch.ds);
  });

  describe('ApiKeysRepository', () => {
    it('should never return key_hash, find by hash until revoked, and scope by workspace', async () => {
      const a = await workspaces.create({ name: 'A', slug: 'a', plan: 'free' });
      const b = await workspaces.create({ name: 'B', slug: 'b', plan: 'free' });
      const key = await keys.create(a.id, { name: 'k', prefix: 'sjs_AAAAAAAA', keyHash: 'h1', scopes: ['jobs:read'] });
      expect(key.keyHash).toBeUndefined();
      expect((await keys.list(a.id)).map((k) => k.id)).toEqual([key.id]);
      expect(await keys.list(b.id)).toEqual([]);
      expect(await keys.findById(b.id, key.id)).toBeNull();
      expect(await keys.revoke(b.id, key.id)).toBeNull();

      const found = await keys.findActiveByHash('h1');
      expect(found?.key.id).toBe(key.id);
      expect(found?.key.keyHash).toBeUndefined();
      expect(found?.workspace.id).toBe(a.id);

      const at = new Date('2030-01-01T00:00:00Z');
      expect((await keys.revoke(a.id, key.id, at))?.revokedAt).toEqual(at);
      expect((await keys.revoke(a.id, key.id, new Date()))?.revokedAt).toEqual(at);
      expect(await keys.findActiveByHash('h1')).toBeNull();
    });

    it('should write last_used_at at most once a minute', async () => {
      const ws = await workspaces.create({ name: 'C', slug: 'c', plan: 'free' });
      const key = await keys.create(ws.id, { name: 'k', prefix: 'sjs_CCCCCCCC', keyHash: 'h2', scopes: ['*'] });
      const t0 = new Date('2030-01-01T00:00:00Z');
      await keys.touchLastUsed(key.id, t0);
      await keys.touchLastUsed(key.id, new Date(t0.getTime() + 30_000));
      expect((await scratch.ds.manager.findOneByOrFail(ApiKeyEntity, { id: key.id })).lastUsedAt).toEqual(t0);
      const t1 = new Date(t0.getTime() + 61_000);
      await keys.touchLastUsed(key.id, t1);
      expect((await scratch.ds.manager.findOneByOrFail(ApiKeyEntity, { id: key.id })).lastUsedAt).toEqual(t1);
    });
  });

  describe('AuditRepository', () => {
    it('should write inside the caller transaction and roll back with it', async () => {
      const ws = await workspaces.create({ name: 'D', slug: 'd', plan: 'free' });
      const audit = new AuditRepository(scratch.ds);
      await expect(
        scratch.ds.transaction(async (m) => {
          await audit.insert(ws.id, { actor: 'system', action: 'workspace.update', target: ws.id }, m);
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      const entry = await audit.insert(ws.id, { actor: 'system', action: 'workspace.update', target: ws.id });
      expect(entry).toMatchObject({ workspaceId: ws.id, details: {} });
      const [stored] = await scratch.ds.query(`SELECT created_at FROM audit_log WHERE id = $1`, [entry.id]);
      expect(entry.createdAt).toEqual(stored.created_at);
      expect(
        await scratch.ds.query(`SELECT count(*)::int AS n FROM audit_log WHERE workspace_id = $1`, [ws.id]),
      ).toEqual([{ n: 1 }]);
    });
  });

  describe('WorkspacesRepository', () => {
    it('should return null when suspending an unknown slug and keep the first suspension time', async () => {
      expect(await workspaces.setSuspended('missing', true)).toBeNull();
      await workspaces.create({ name: 'E', slug: 'e', plan: 'free' });
      const t0 = new Date('2030-01-01T00:00:00Z');
      expect((await workspaces.setSuspended('e', true, t0))?.suspendedAt).toEqual(t0);
      expect((await workspaces.setSuspended('e', true, new Date()))?.suspendedAt).toEqual(t0);
      expect((await workspaces.setSuspended('e', false))?.suspendedAt).toBeNull();
    });
  });
});

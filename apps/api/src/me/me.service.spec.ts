import type { ApiKeyEntity, ApiKeysRepository } from '@svc/persistence';
import { authFor, KIT_WORKSPACE, serviceOverKit } from '../../../../test/kit';
import { MeService, roleOfKey } from './me.service';

/**
 * MeService over the in-memory kit: a key sees its one workspace with the role it amounts to
 * (`*` = owner, scoped = member); a session sees the user's memberships and its CSRF token; a
 * caller gone since the guard's lookup is 401.
 */
describe('MeService', () => {
  let keys: Map<string, ApiKeyEntity>;
  const kit = serviceOverKit((db) => {
    db.addWorkspace(KIT_WORKSPACE, { name: 'Acme', slug: 'acme' });
    keys = new Map();
    const keysRepo = {
      findById: async (workspaceId: string, id: string) => {
        const key = keys.get(id);
        return key && key.workspaceId === workspaceId ? key : null;
      },
    };
    return new MeService(keysRepo as unknown as ApiKeysRepository, db.repositories.workspaces, db.repositories.users);
  });

  const addKey = (id: string, scopes: string[], workspaceId = KIT_WORKSPACE) =>
    keys.set(id, { id, workspaceId, name: 'ci', prefix: 'sjs_abcd', scopes } as ApiKeyEntity);

  it('should show a full-access key its workspace as owner, and never the key itself', async () => {
    addKey('key_1', ['*']);
    const me = await kit.service.me(authFor(KIT_WORKSPACE, 'key:key_1'));
    expect(me).toEqual({
      user: null,
      key: { id: 'key_1', name: 'ci', prefix: 'sjs_abcd', scopes: ['*'] },
      workspaces: [{ id: KIT_WORKSPACE, name: 'Acme', slug: 'acme', plan: expect.any(String), role: 'owner' }],
    });
  });

  it('should show a scoped key as member', async () => {
    addKey('key_2', ['jobs:read']);
    const me = await kit.service.me(authFor(KIT_WORKSPACE, 'key:key_2'));
    expect(me.workspaces[0].role).toBe('member');
    expect(roleOfKey(['jobs:read', '*'])).toBe('owner');
  });

  it('should answer 401 for a key deleted since the guard looked it up, or one of another workspace', async () => {
    await expect(kit.service.me(authFor(KIT_WORKSPACE, 'key:key_gone'))).rejects.toMatchObject({ status: 401 });
    addKey('key_3', ['*'], 'ws_other');
    await expect(kit.service.me(authFor(KIT_WORKSPACE, 'key:key_3'))).rejects.toMatchObject({
      status: 401,
      body: { code: 'unauthorized' },
    });
  });

  it("should show a session user's memberships and the session's CSRF token", async () => {
    const { user } = await kit.db.users.findOrCreateByEmail('ada@example.com', 'Ada');
    await kit.db.users.addMembership(KIT_WORKSPACE, user.id, 'admin');
    const me = await kit.service.me({ ...authFor(), keyId: null, userId: user.id, csrfToken: 'csrf-1' });
    expect(me).toEqual({
      user: { id: user.id, email: 'ada@example.com', name: 'Ada' },
      key: null,
      workspaces: [expect.objectContaining({ id: KIT_WORKSPACE, role: 'admin' })],
      csrf_token: 'csrf-1',
    });
  });

  it('should answer 401 for a session whose user is gone', async () => {
    await expect(
      kit.service.me({ ...authFor(), keyId: null, userId: 'user_gone', csrfToken: 'x' }),
    ).rejects.toMatchObject({
      status: 401,
    });
  });
});

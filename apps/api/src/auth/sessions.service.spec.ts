import { InMemoryDatabase, kitConfig } from '../../../../test/kit';
import { csrfTokenFor, hashSessionToken } from './session-cookie';
import { SessionsService } from './sessions.service';

/**
 * SessionsService over the in-memory kit: sign-in creates the user once and gives a first-time
 * user a workspace (their own, or the configured team workspace with its role), stores only the
 * token's hash; authenticate resolves a session and its active workspace into an AuthContext
 * (401 unknown/expired, 403 not a member); sign-out needs the CSRF token of a live session.
 */
describe('SessionsService', () => {
  let db: InMemoryDatabase;

  const serviceWith = (auth: Record<string, unknown> = {}) => {
    const { transactions, users, sessions, workspaces } = db.repositories;
    return new SessionsService(kitConfig({ auth }), transactions, users, sessions, workspaces);
  };

  beforeEach(() => {
    db = new InMemoryDatabase();
  });

  describe('signIn', () => {
    it('should create the user with a workspace of their own as owner, and store only the token hash', async () => {
      const signedIn = await serviceWith().signIn({ email: ' Ada@Example.com ', name: 'Ada' }, 'github');
      expect(signedIn.user).toMatchObject({ email: 'ada@example.com', name: 'Ada' });
      expect(signedIn.memberships).toEqual([
        {
          role: 'owner',
          workspace: expect.objectContaining({
            name: "Ada's workspace",
            slug: expect.stringMatching(/^ada-[0-9a-f]{6}$/),
          }),
        },
      ]);
      expect(signedIn.csrfToken).toBe(csrfTokenFor(signedIn.token));
      const stored = [...db.table<{ tokenHash: string; provider: string }>('sessions').values()];
      expect(stored).toEqual([
        expect.objectContaining({ tokenHash: hashSessionToken(signedIn.token), provider: 'github' }),
      ]);
      expect(JSON.stringify(db.tables)).not.toContain(signedIn.token);
    });

    it('should find the same user again on the next sign-in and give no second workspace', async () => {
      const service = serviceWith();
      const first = await service.signIn({ email: 'ada@example.com' }, 'dev');
      const second = await service.signIn({ email: 'ADA@example.com' }, 'dev');
      expect(second.user.id).toBe(first.user.id);
      expect(second.memberships).toHaveLength(1);
      expect(second.token).not.toBe(first.token);
    });

    it('should let a first-time user join the configured team workspace with the configured role', async () => {
      const service = serviceWith({ join_workspace: 'acme', join_role: 'admin' });
      const ada = await service.signIn({ email: 'ada@example.com' }, 'oidc');
      const bob = await service.signIn({ email: 'bob@example.com' }, 'oidc');
      expect(ada.memberships).toEqual([{ role: 'admin', workspace: expect.objectContaining({ slug: 'acme' }) }]);
      expect(bob.memberships[0].workspace.id).toBe(ada.memberships[0].workspace.id);
    });
  });

  describe('authenticate', () => {
    it("should resolve the token into the first workspace's AuthContext with the role's scopes", async () => {
      const service = serviceWith();
      const { token, user, memberships } = await service.signIn({ email: 'ada@example.com' }, 'dev');
      await expect(service.authenticate(token, undefined)).resolves.toEqual({
        workspaceId: memberships[0].workspace.id,
        keyId: null,
        userId: user.id,
        scopes: ['*'],
        suspended: false,
        actor: `user:${user.id}`,
        csrfToken: csrfTokenFor(token),
      });
    });

    it('should select the workspace named by Svc-Workspace (id or slug), and refuse one the user is not in (403)', async () => {
      const service = serviceWith();
      const { token, user } = await service.signIn({ email: 'ada@example.com' }, 'dev');
      const team = db.addWorkspace('ws_team', { slug: 'team' });
      await db.users.addMembership(team.id, user.id, 'member');
      await expect(service.authenticate(token, 'team')).resolves.toMatchObject({
        workspaceId: 'ws_team',
        scopes: ['jobs:write', 'runs:read'],
      });
      await expect(service.authenticate(token, 'ws_team')).resolves.toMatchObject({ workspaceId: 'ws_team' });
      db.addWorkspace('ws_stranger', { slug: 'stranger' });
      await expect(service.authenticate(token, 'stranger')).rejects.toMatchObject({
        status: 403,
        body: { code: 'forbidden' },
      });
    });

    it('should mark the context of a suspended workspace', async () => {
      const service = serviceWith();
      const { token, memberships } = await service.signIn({ email: 'ada@example.com' }, 'dev');
      db.table<{ suspendedAt: Date | null }>('workspaces').get(memberships[0].workspace.id)!.suspendedAt = new Date();
      await expect(service.authenticate(token, undefined)).resolves.toMatchObject({ suspended: true });
    });

    it('should refuse an unknown or expired session (401)', async () => {
      const service = serviceWith({ session_ttl: '1ms' });
      const { token } = await service.signIn({ email: 'ada@example.com' }, 'dev');
      await new Promise((resolve) => setTimeout(resolve, 5));
      await expect(service.authenticate(token, undefined)).rejects.toMatchObject({ status: 401 });
      await expect(service.authenticate('made-up', undefined)).rejects.toMatchObject({
        status: 401,
        body: { code: 'unauthorized' },
      });
    });
  });

  describe('signOut', () => {
    it('should end a live session only with its CSRF token (403 without), and ignore an unknown one', async () => {
      const service = serviceWith();
      const { token } = await service.signIn({ email: 'ada@example.com' }, 'dev');
      await expect(service.signOut(token, 'wrong')).rejects.toMatchObject({ status: 403 });
      await expect(service.authenticate(token, undefined)).resolves.toBeDefined();
      await service.signOut(token, csrfTokenFor(token));
      await expect(service.authenticate(token, undefined)).rejects.toMatchObject({ status: 401 });
      await expect(service.signOut('made-up', undefined)).resolves.toBeUndefined();
    });
  });

  it('should never put a session of one user in the context of another', async () => {
    const service = serviceWith();
    const ada = await service.signIn({ email: 'ada@example.com' }, 'dev');
    const bob = await service.signIn({ email: 'bob@example.com' }, 'dev');
    await expect(service.authenticate(ada.token, bob.memberships[0].workspace.id)).rejects.toMatchObject({
      status: 403,
    });
  });
});

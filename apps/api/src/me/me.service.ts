import { Injectable } from '@nestjs/common';
import { UnauthorizedError } from '@svc/common';
import { ApiKeysRepository, type MembershipRole, UsersRepository, WorkspacesRepository } from '@svc/persistence';
import type { AuthContext } from '../auth/auth.decorators';
import { type MeResponse, toMeResponse } from '../auth/me.mapper';

/**
 * Who the caller is. An API key belongs to one workspace and sees only it (spec → Authentication
 * 1), so `workspaces` holds that one, with the role the key amounts to: `owner` for a full-access
 * (`*`) key, which may do everything the API offers including keys and workspace settings,
 * `member` for a scoped key. A dashboard session sees the user's memberships.
 */
@Injectable()
export class MeService {
  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly workspaces: WorkspacesRepository,
    private readonly users: UsersRepository,
  ) {}

  async me(auth: AuthContext): Promise<MeResponse> {
    if (auth.userId) {
      return this.sessionMe(auth.userId, auth.csrfToken!);
    }
    const [key, workspace] = await Promise.all([
      this.keys.findById(auth.workspaceId, auth.keyId!),
      this.workspaces.findById(auth.workspaceId),
    ]);
    if (!key || !workspace) {
      // Deleted between the guard's lookup and now.
      throw new UnauthorizedError('Invalid or revoked API key');
    }
    return toMeResponse({ user: null, key, workspaces: [{ workspace, role: roleOfKey(key.scopes) }] });
  }

  /** A signed-in user: every workspace they are a member of, and the session's CSRF token. */
  private async sessionMe(userId: string, csrfToken: string): Promise<MeResponse> {
    const [user, memberships] = await Promise.all([this.users.findById(userId), this.users.listMemberships(userId)]);
    if (!user) {
      throw new UnauthorizedError('Invalid or expired session; sign in again');
    }
    return { ...toMeResponse({ user, key: null, workspaces: memberships }), csrf_token: csrfToken };
  }
}

export function roleOfKey(scopes: readonly string[]): MembershipRole {
  return scopes.includes('*') ? 'owner' : 'member';
}

import { Injectable } from '@nestjs/common';
import { UnauthorizedError } from '@svc/common';
import { ApiKeysRepository, type MembershipRole, WorkspacesRepository } from '@svc/persistence';
import type { AuthContext } from '../common/auth/auth.decorators';
import { type MeResponse, toMeResponse } from './me.mapper';

/**
 * Who the caller is. An API key belongs to one workspace and sees only it (spec → Authentication
 * 1), so `workspaces` holds that one, with the role the key amounts to: `owner` for a full-access
 * (`*`) key, which may do everything the API offers including keys and workspace settings,
 * `member` for a scoped key.
 */
@Injectable()
export class MeService {
  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly workspaces: WorkspacesRepository,
  ) {}

  async me(auth: AuthContext): Promise<MeResponse> {
    const [key, workspace] = await Promise.all([
      this.keys.findById(auth.workspaceId, auth.keyId),
      this.workspaces.findById(auth.workspaceId),
    ]);
    if (!key || !workspace) {
      // Deleted between the guard's lookup and now.
      throw new UnauthorizedError('Invalid or revoked API key');
    }
    return toMeResponse({ user: null, key, workspaces: [{ workspace, role: roleOfKey(key.scopes) }] });
  }
}

export function roleOfKey(scopes: readonly string[]): MembershipRole {
  return scopes.includes('*') ? 'owner' : 'member';
}

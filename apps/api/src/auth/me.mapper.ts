import type { ApiKeyEntity, MembershipRole, UserEntity, WorkspaceEntity } from '@svc/persistence';

export interface MeWorkspace {
  workspace: WorkspaceEntity;
  role: MembershipRole;
}

/**
 * `GET /api/v1/me` in decisions.md's shape: `{user, key, workspaces, csrf_token?}`. `csrf_token`
 * appears only for cookie sessions (added by MeService and the sign-in responses).
 */
export function toMeResponse(input: { user: UserEntity | null; key: ApiKeyEntity | null; workspaces: MeWorkspace[] }) {
  return {
    user: input.user ? { id: input.user.id, email: input.user.email, name: input.user.name } : null,
    key: input.key
      ? { id: input.key.id, name: input.key.name, prefix: input.key.prefix, scopes: input.key.scopes }
      : null,
    workspaces: input.workspaces.map(({ workspace, role }) => ({
      id: workspace.id,
      name: workspace.name,
      slug: workspace.slug,
      plan: workspace.plan,
      role,
    })),
  };
}

export type MeResponse = ReturnType<typeof toMeResponse> & { csrf_token?: string };

import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { ANY_KEY, type Scope } from './scopes';

/** What a request is authenticated as (an API key or a dashboard session); set by ApiKeyGuard. */
export interface AuthContext {
  workspaceId: string;
  /** The API key; null for a session. */
  keyId: string | null;
  /** The signed-in user; null for an API key. */
  userId: string | null;
  /** A key's scopes, or those of the session user's membership role (scopesOfRole). */
  scopes: string[];
  suspended: boolean;
  /** `key:<id>` or `user:<id>` for audit entries. */
  actor: string;
  /** Sessions only: the value `X-CSRF-Token` must carry on mutations (`GET /me` hands it out). */
  csrfToken?: string;
}

export const PUBLIC_ROUTE = 'svc:public';
export const REQUIRED_SCOPES = 'svc:scopes';

/** No authentication (health, features, schedule endpoints). */
export const Public = () => SetMetadata(PUBLIC_ROUTE, true);

/**
 * Scopes that allow the route (any one suffices; `*` always does; `jobs:write` implies
 * `jobs:read`). Every authenticated route must declare `@Scopes(…)` or `@AnyKey()`: the guard
 * refuses a route that declares neither (fail closed), and `route-table.spec.ts` fails the build
 * before such a route ships. Routes only full-access keys may call declare `@Scopes('*')`.
 */
export const Scopes = (...scopes: [Scope, ...Scope[]]) => SetMetadata(REQUIRED_SCOPES, scopes);

export const READ_ONLY_ROUTE = 'svc:read-only';

/**
 * A POST that changes nothing (the codec server's `/codec/encode` and `/decode`): a session needs
 * no `X-CSRF-Token` for it (a cross-site page can send it but, without a CORS grant, not read the
 * answer; the Temporal Web UI cannot send the token) and a suspended workspace may call it.
 */
export const ReadOnly = () => SetMetadata(READ_ONLY_ROUTE, true);

/** Any valid key of the workspace, whatever its scopes (decisions.md → Scopes). */
export const AnyKey = () => SetMetadata(REQUIRED_SCOPES, ANY_KEY);

/** The authenticated workspace context of the request. */
export const Auth = createParamDecorator((_: unknown, ctx: ExecutionContext): AuthContext => {
  return ctx.switchToHttp().getRequest<{ auth: AuthContext }>().auth;
});

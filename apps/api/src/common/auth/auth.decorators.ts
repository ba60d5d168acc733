import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';

export type Scope = '*' | 'jobs:read' | 'jobs:write' | 'runs:read';

/** What a request is authenticated as; set by ApiKeyGuard. */
export interface AuthContext {
  workspaceId: string;
  keyId: string;
  scopes: string[];
  suspended: boolean;
  /** `key:<id>` for audit entries. */
  actor: string;
}

export const PUBLIC_ROUTE = 'svc:public';
export const REQUIRED_SCOPES = 'svc:scopes';

/** No authentication (health, features, schedule endpoints). */
export const Public = () => SetMetadata(PUBLIC_ROUTE, true);

/**
 * Scopes that allow the route (any one suffices; `*` always does). Routes without the
 * decorator need `*` (decisions.md → Scopes).
 */
export const Scopes = (...scopes: Scope[]) => SetMetadata(REQUIRED_SCOPES, scopes);

/** The authenticated workspace context of the request. */
export const Auth = createParamDecorator((_: unknown, ctx: ExecutionContext): AuthContext => {
  return ctx.switchToHttp().getRequest<{ auth: AuthContext }>().auth;
});

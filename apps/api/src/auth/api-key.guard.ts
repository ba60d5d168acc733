import { CanActivate, ExecutionContext, Injectable, Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ForbiddenError, UnauthorizedError, UnavailableError, WorkspaceSuspendedError } from '@svc/common';
import { hashApiKey } from '@svc/common/api-keys';
import { addLogFields } from '@svc/common/logging';
import { ApiKeysRepository, LAST_USED_RESOLUTION_MS, Transactions } from '@svc/persistence';
import type { FastifyRequest } from 'fastify';
import { type AuthContext, PUBLIC_ROUTE, READ_ONLY_ROUTE, REQUIRED_SCOPES } from './auth.decorators';
import { rememberCallerCredential } from '../common/idempotency/caller-seal';
import { presentedCredential } from './credentials';
import { hasScope, type Scope, type ScopeRequirement } from './scopes';
import { requireCsrfToken } from './session-cookie';
import { SessionsService } from './sessions.service';

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * `Authorization: Bearer <key>`, else the dashboard's `svc_session` cookie → workspace context,
 * then the route's scope requirement and the workspace's suspension.
 *
 * - Keys are looked up by SHA-256 hash on every request, with no cache, so a revoked key stops
 *   working on the very next request (spec → Authentication 6). Sessions likewise (sign-out and
 *   expiry take effect at once); a session's scopes are its membership role's (scopesOfRole).
 * - A route must declare `@Scopes(…)` or `@AnyKey()`; one that declares neither is refused for
 *   every key (fail closed), and `route-table.spec.ts` catches it before it ships.
 * - The rate limit and its headers are applied earlier, in `ApiRateLimitHook`, so that every
 *   response of an authenticated route carries them (401s included).
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  private readonly logger = new Logger(ApiKeyGuard.name);

  constructor(
    private readonly reflector: Reflector,
    private readonly transactions: Transactions,
    private readonly apiKeys: ApiKeysRepository,
    private readonly sessions: SessionsService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) {
      return true;
    }
    const request = context.switchToHttp().getRequest<FastifyRequest & { auth?: AuthContext }>();
    const credential = presentedCredential(request.headers);
    if (!credential) {
      throw new UnauthorizedError('Missing credentials: send Authorization: Bearer <key>, or sign in');
    }
    if (!this.transactions.connected) {
      throw new UnavailableError('Database unavailable; retry');
    }
    // A `@ReadOnly()` POST (the codec server) changes nothing: no CSRF token, allowed when suspended.
    const mutating =
      MUTATING.has(request.method) && !this.reflector.getAllAndOverride<boolean>(READ_ONLY_ROUTE, targets);
    const auth =
      credential.kind === 'key'
        ? await this.authenticateKey(credential.token)
        : await this.authenticateSession(request, credential.token, mutating);
    request.auth = auth;
    rememberCallerCredential(request, credential.token); // seals one-time secrets in idempotent replays
    addLogFields({ workspace_id: auth.workspaceId }); // on this request's later lines (docs/operations.md → Logs)

    const required = this.reflector.getAllAndOverride<ScopeRequirement | undefined>(REQUIRED_SCOPES, targets);
    if (required === undefined) {
      this.logger.error(`${request.method} ${request.routeOptions.url} declares no scope; refused`);
      throw new ForbiddenError('This route declares no scope; no key may call it');
    }
    if (!hasScope(auth.scopes, required)) {
      throw new ForbiddenError(
        auth.keyId
          ? `This key lacks the scope ${(required as Scope[]).join(' or ')}`
          : 'Your role in this workspace does not allow this request',
      );
    }
    if (auth.suspended && mutating) {
      throw new WorkspaceSuspendedError();
    }
    return true;
  }

  private async authenticateKey(token: string): Promise<AuthContext> {
    const active = await this.apiKeys.findActiveByHash(hashApiKey(token));
    if (!active) {
      throw new UnauthorizedError('Invalid or revoked API key');
    }
    const { key, workspace } = active;
    this.touch(key.id, key.lastUsedAt);
    return {
      workspaceId: key.workspaceId,
      keyId: key.id,
      userId: null,
      scopes: key.scopes,
      suspended: workspace.suspendedAt !== null,
      actor: `key:${key.id}`,
    };
  }

  /**
   * Cookie sessions (spec → Authentication 4): the workspace comes from `Svc-Workspace`, and a
   * request that changes data must carry the session's `X-CSRF-Token` (403 without it): a
   * cross-site page can make the browser send the cookie, but cannot read the token.
   */
  private async authenticateSession(
    request: FastifyRequest,
    sessionToken: string,
    mutating: boolean,
  ): Promise<AuthContext> {
    const workspace = request.headers['svc-workspace'];
    const auth = await this.sessions.authenticate(sessionToken, typeof workspace === 'string' ? workspace : undefined);
    if (mutating) {
      requireCsrfToken(request.headers['x-csrf-token'], auth.csrfToken!);
    }
    return auth;
  }

  /**
   * `last_used_at` is informational: written off the request path, and only when the stored time
   * is older than the repository's resolution (which re-checks in SQL across API processes).
   */
  private touch(keyId: string, lastUsedAt: Date | null): void {
    const now = new Date();
    if (lastUsedAt && now.getTime() - lastUsedAt.getTime() < LAST_USED_RESOLUTION_MS) {
      return;
    }
    void this.apiKeys.touchLastUsed(keyId, now).catch(() => undefined);
  }
}

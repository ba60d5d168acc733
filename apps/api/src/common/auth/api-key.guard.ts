import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  type AppConfig,
  ForbiddenError,
  RateLimitedError,
  UnauthorizedError,
  UnavailableError,
  WorkspaceSuspendedError,
} from '@svc/common';
import { hashApiKey } from '@svc/common/api-keys';
import { ApiKeyEntity, WorkspaceEntity } from '@svc/persistence';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DataSource } from 'typeorm';
import { APP_CONFIG } from '../../config/config.module';
import { FixedWindowRateLimiter, writeRateLimitHeaders } from '../rate-limiter';
import { AuthContext, PUBLIC_ROUTE, REQUIRED_SCOPES, Scope } from './auth.decorators';

/** `jobs:write` implies `jobs:read` (decisions.md → Scopes). */
const IMPLIED: Record<string, string[]> = { 'jobs:write': ['jobs:read'] };
const TOUCH_EVERY_MS = 60_000;
const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * `Authorization: Bearer <key>` → workspace context. Keys are looked up by SHA-256 hash on every
 * request, so a revoked key stops working at once.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  private readonly lastTouched = new Map<string, number>();
  /** `limits.api_rate_limit_per_minute` per key (spec → Limits); null when 0 (off). */
  private readonly limiter: FixedWindowRateLimiter | null;

  constructor(
    private readonly reflector: Reflector,
    private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    const perMinute = config.limits.api_rate_limit_per_minute;
    this.limiter = perMinute > 0 ? new FixedWindowRateLimiter({ limit: perMinute, windowMs: 60_000 }) : null;
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) {
      return true;
    }
    const request = context.switchToHttp().getRequest<FastifyRequest & { auth?: AuthContext }>();
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match) {
      throw new UnauthorizedError('Missing API key: send Authorization: Bearer <key>');
    }
    if (!this.dataSource.isInitialized) {
      throw new UnavailableError('Database unavailable; retry');
    }

    const row = await this.dataSource
      .getRepository(ApiKeyEntity)
      .createQueryBuilder('key')
      .innerJoinAndMapOne('key.workspace', WorkspaceEntity, 'ws', 'ws.id = key.workspaceId')
      .where('key.keyHash = :hash', { hash: hashApiKey(match[1]) })
      .andWhere('key.revokedAt IS NULL')
      .getOne();
    if (!row) {
      throw new UnauthorizedError('Invalid or revoked API key');
    }
    const workspace = (row as ApiKeyEntity & { workspace: WorkspaceEntity }).workspace;

    const auth: AuthContext = {
      workspaceId: row.workspaceId,
      keyId: row.id,
      scopes: row.scopes,
      suspended: workspace.suspendedAt !== null,
      actor: `key:${row.id}`,
    };
    request.auth = auth;
    this.touch(row.id);
    this.applyRateLimit(row.id, context.switchToHttp().getResponse<FastifyReply>());

    const required = this.reflector.getAllAndOverride<Scope[] | undefined>(REQUIRED_SCOPES, targets) ?? ['*'];
    if (!hasScope(auth.scopes, required)) {
      throw new ForbiddenError(`This key lacks the scope ${required.join(' or ')}`);
    }
    if (auth.suspended && MUTATING.has(request.method)) {
      throw new WorkspaceSuspendedError();
    }
    return true;
  }

  private applyRateLimit(keyId: string, reply: FastifyReply): void {
    if (!this.limiter) {
      return;
    }
    const decision = this.limiter.hit(`key:${keyId}`);
    writeRateLimitHeaders(reply, decision);
    if (!decision.allowed) {
      throw new RateLimitedError();
    }
  }

  /** last_used_at is informational: write it at most once a minute per key, off the hot path. */
  private touch(keyId: string): void {
    const now = Date.now();
    if ((this.lastTouched.get(keyId) ?? 0) + TOUCH_EVERY_MS > now) {
      return;
    }
    this.lastTouched.set(keyId, now);
    void this.dataSource
      .getRepository(ApiKeyEntity)
      .update({ id: keyId }, { lastUsedAt: new Date(now) })
      .catch(() => undefined);
  }
}

export function hasScope(granted: string[], required: Scope[]): boolean {
  if (granted.includes('*')) {
    return true;
  }
  const effective = new Set(granted.flatMap((s) => [s, ...(IMPLIED[s] ?? [])]));
  return required.some((scope) => scope !== '*' && effective.has(scope));
}

import { Controller, Delete, Get, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { DomainError, UnauthorizedError } from '@svc/common';
import { hashApiKey } from '@svc/common/api-keys';
import type { ActiveApiKey, ApiKeysRepository, Transactions } from '@svc/persistence';
import { ApiKeyGuard } from './api-key.guard';
import { AnyKey, type AuthContext, Public, Scopes } from './auth.decorators';
import { hasScope } from './scopes';
import type { SessionsService } from './sessions.service';

@Controller('things')
class ThingsController {
  @Get()
  @Scopes('jobs:read')
  read() {}

  @Delete(':id')
  @Scopes('jobs:write')
  remove() {}

  @Get('me')
  @AnyKey()
  me() {}

  @Get('admin')
  @Scopes('*')
  admin() {}

  @Get('forgotten')
  forgotten() {}

  @Get('open')
  @Public()
  open() {}
}

const KEY = 'sjs_test';

function guardWith(active: { scopes: string[]; suspended?: boolean } | null) {
  const touched: string[] = [];
  const repository = {
    findActiveByHash: jest.fn(async (hash: string): Promise<ActiveApiKey | null> => {
      if (!active || hash !== hashApiKey(KEY)) {
        return null;
      }
      return {
        key: { id: 'key_1', workspaceId: 'ws_1', scopes: active.scopes, lastUsedAt: null },
        workspace: { id: 'ws_1', suspendedAt: active.suspended ? new Date() : null },
      } as unknown as ActiveApiKey;
    }),
    touchLastUsed: jest.fn(async (id: string) => {
      touched.push(id);
    }),
  };
  const guard = new ApiKeyGuard(
    new Reflector(),
    { connected: true } as Transactions,
    repository as unknown as ApiKeysRepository,
    {} as SessionsService,
  );
  return { guard, repository, touched };
}

/** The execution context of `request` to `handler` of ThingsController. */
function contextOf(handler: keyof ThingsController, request: object): ExecutionContext {
  return {
    getHandler: () => ThingsController.prototype[handler],
    getClass: () => ThingsController,
    switchToHttp: () => ({ getRequest: () => request }),
  } as unknown as ExecutionContext;
}

function call(guard: ApiKeyGuard, handler: keyof ThingsController, method = 'GET', authorization = `Bearer ${KEY}`) {
  const request: { method: string; headers: Record<string, string>; routeOptions: object; auth?: AuthContext } = {
    method,
    headers: authorization ? { authorization } : {},
    routeOptions: { url: `/things/${handler}` },
  };
  return guard.canActivate(contextOf(handler, request)).then(
    (allowed) => ({ allowed, code: null as string | null, request }),
    (err: unknown) => {
      if (err instanceof DomainError) {
        return { allowed: false, code: err.body.code as string | null, request };
      }
      throw err;
    },
  );
}

describe('ApiKeyGuard', () => {
  it('should let public routes through without a key', async () => {
    const { guard, repository } = guardWith(null);
    expect((await call(guard, 'open', 'GET', '')).allowed).toBe(true);
    expect(repository.findActiveByHash).not.toHaveBeenCalled();
  });

  it('should answer unauthorized without a bearer key and for unknown or revoked keys', async () => {
    expect((await call(guardWith({ scopes: ['*'] }).guard, 'read', 'GET', '')).code).toBe('unauthorized');
    expect((await call(guardWith({ scopes: ['*'] }).guard, 'read', 'GET', 'Basic abc')).code).toBe('unauthorized');
    expect((await call(guardWith(null).guard, 'read')).code).toBe('unauthorized');
  });

  it('should look the key up on every request (no cache window) and set the auth context', async () => {
    const { guard, repository } = guardWith({ scopes: ['jobs:read'] });
    const first = await call(guard, 'read');
    await call(guard, 'read');
    expect(repository.findActiveByHash).toHaveBeenCalledTimes(2);
    expect(first.request.auth).toEqual({
      workspaceId: 'ws_1',
      keyId: 'key_1',
      userId: null,
      scopes: ['jobs:read'],
      suspended: false,
      actor: 'key:key_1',
    });
    expect(repository.touchLastUsed).toHaveBeenCalledWith('key_1', expect.any(Date));
  });

  it('should refuse a route that declares no scope, even to a full-access key (fail closed)', async () => {
    expect((await call(guardWith({ scopes: ['*'] }).guard, 'forgotten')).code).toBe('forbidden');
  });

  it('should apply the scope matrix', async () => {
    const cases: Array<[string[], keyof ThingsController, boolean]> = [
      [['*'], 'admin', true],
      [['jobs:write'], 'admin', false],
      [['jobs:read'], 'read', true],
      [['jobs:write'], 'read', true],
      [['runs:read'], 'read', false],
      [['jobs:read'], 'remove', false],
      [['runs:read'], 'me', true],
    ];
    for (const [scopes, handler, allowed] of cases) {
      const result = await call(guardWith({ scopes }).guard, handler, handler === 'remove' ? 'DELETE' : 'GET');
      expect({ scopes, handler, allowed: result.allowed, code: result.code }).toEqual({
        scopes,
        handler,
        allowed,
        code: allowed ? null : 'forbidden',
      });
    }
  });

  it('should refuse mutations of a suspended workspace and allow its reads', async () => {
    const { guard } = guardWith({ scopes: ['*'], suspended: true });
    expect((await call(guard, 'remove', 'DELETE')).code).toBe('workspace_suspended');
    expect((await call(guard, 'read')).allowed).toBe(true);
  });
});

describe('ApiKeyGuard with a session cookie', () => {
  function sessionGuard(scopes: string[]) {
    const sessions = {
      authenticate: jest.fn(async (token: string, workspace: string | undefined): Promise<AuthContext> => {
        if (token !== 'good-token') {
          throw new UnauthorizedError('Invalid or expired session; sign in again');
        }
        return {
          workspaceId: workspace ?? 'ws_first',
          keyId: null,
          userId: 'usr_1',
          scopes,
          suspended: false,
          actor: 'user:usr_1',
          csrfToken: 'csrf-1',
        };
      }),
    };
    const guard = new ApiKeyGuard(
      new Reflector(),
      { connected: true } as Transactions,
      { findActiveByHash: jest.fn(), touchLastUsed: jest.fn() } as unknown as ApiKeysRepository,
      sessions as unknown as SessionsService,
    );
    return { guard, sessions };
  }

  function callWithCookie(guard: ApiKeyGuard, handler: keyof ThingsController, method: string, headers: object) {
    const request = { method, headers, routeOptions: { url: `/things/${handler}` } } as { auth?: AuthContext };
    return guard.canActivate(contextOf(handler, request)).then(
      () => ({ code: null as string | null, auth: request.auth }),
      (err: DomainError) => ({ code: err.body.code as string | null, auth: request.auth }),
    );
  }

  it('should authenticate the cookie with the Svc-Workspace header and allow reads without a CSRF token', async () => {
    const { guard, sessions } = sessionGuard(['jobs:write', 'runs:read']);
    const read = await callWithCookie(guard, 'read', 'GET', {
      cookie: 'svc_session=good-token',
      'svc-workspace': 'ws_2',
    });
    expect(read).toEqual({ code: null, auth: expect.objectContaining({ workspaceId: 'ws_2', actor: 'user:usr_1' }) });
    expect(sessions.authenticate).toHaveBeenCalledWith('good-token', 'ws_2');
  });

  it('should refuse cookie mutations without the right X-CSRF-Token (403) and accept them with it', async () => {
    const { guard } = sessionGuard(['*']);
    const cookie = 'svc_session=good-token';
    expect((await callWithCookie(guard, 'remove', 'DELETE', { cookie })).code).toBe('forbidden');
    expect((await callWithCookie(guard, 'remove', 'DELETE', { cookie, 'x-csrf-token': 'csrf-2' })).code).toBe(
      'forbidden',
    );
    expect((await callWithCookie(guard, 'remove', 'DELETE', { cookie, 'x-csrf-token': 'csrf-1' })).code).toBeNull();
  });

  it('should apply the role scopes, answer 401 for an unknown session, and prefer a bearer key', async () => {
    const { guard, sessions } = sessionGuard(['jobs:write', 'runs:read']);
    expect((await callWithCookie(guard, 'admin', 'GET', { cookie: 'svc_session=good-token' })).code).toBe('forbidden');
    expect((await callWithCookie(guard, 'read', 'GET', { cookie: 'svc_session=stale' })).code).toBe('unauthorized');
    expect((await callWithCookie(guard, 'read', 'GET', {})).code).toBe('unauthorized');
    sessions.authenticate.mockClear();
    await callWithCookie(guard, 'read', 'GET', { cookie: 'svc_session=good-token', authorization: 'Bearer sjs_x' });
    expect(sessions.authenticate).not.toHaveBeenCalled();
  });
});

describe('hasScope', () => {
  it('should treat * as everything, jobs:write as implying jobs:read, and any_key as any key', () => {
    expect(hasScope(['*'], ['*'])).toBe(true);
    expect(hasScope(['jobs:write'], ['*'])).toBe(false);
    expect(hasScope(['jobs:write'], ['jobs:read'])).toBe(true);
    expect(hasScope(['jobs:read'], ['jobs:write'])).toBe(false);
    expect(hasScope(['runs:read', 'jobs:read'], ['runs:read'])).toBe(true);
    expect(hasScope([], 'any_key')).toBe(true);
    expect(hasScope([], ['jobs:read'])).toBe(false);
  });
});

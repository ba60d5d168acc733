import type { CallHandler, ExecutionContext } from '@nestjs/common';
import { defer, lastValueFrom } from 'rxjs';
import { authFor, InMemoryDatabase, OTHER_WORKSPACE } from '../../../../../test/kit';
import { AlertChannelsController } from '../../alerts/alert-channels.controller';
import { AlertRulesController } from '../../alerts/alert-rules.controller';
import { ApiKeysController } from '../../api-keys/api-keys.controller';
import type { AuthContext } from '../../auth/auth.decorators';
import { rememberCallerCredential } from './caller-seal';
import { JobsController } from '../../jobs/jobs.controller';
import { Idempotent, idempotentOptions, type IdempotentOptions } from './idempotent.decorator';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { IdempotencyService } from './idempotency.service';

interface Call {
  /** `@Idempotent()` options of the route; undefined: a route without it. */
  options?: IdempotentOptions;
  route?: string;
  params?: Record<string, string>;
  key?: string;
  body?: unknown;
  auth?: AuthContext;
  credential?: string;
  status?: number;
}

/**
 * IdempotencyInterceptor over the kit's idempotency records, around a handler that creates a
 * `thing` (with a one-time `secret`) each time it runs: which routes it touches, the scope of a
 * record (workspace, route with its ids, key), replay and conflict, the body fingerprint, secrets
 * sealed to their caller, and the routes that carry `@Idempotent()`.
 */
describe('IdempotencyInterceptor', () => {
  let db: InMemoryDatabase;
  let interceptor: IdempotencyInterceptor;
  let created: number;
  let fail: Error | null;
  let gate: Promise<void> | null;

  beforeEach(() => {
    db = new InMemoryDatabase();
    interceptor = new IdempotencyInterceptor(new IdempotencyService(db.repositories.idempotency));
    created = 0;
    fail = null;
    gate = null;
  });

  /** One request through the interceptor to the handler. */
  function call(request: Call = {}): Promise<unknown> {
    const { options = {}, route = '/api/v1/things', params = {}, key, body, credential = 'sk_caller' } = request;
    const handler = (): void => undefined;
    if (request.options !== undefined || !('options' in request)) {
      Idempotent(options)({}, 'handler', { value: handler });
    }
    const req = {
      method: 'POST',
      url: route,
      routeOptions: { url: route },
      params,
      body,
      auth: request.auth ?? authFor(),
      headers: key === undefined ? {} : { 'idempotency-key': key },
    };
    rememberCallerCredential(req, credential); // as ApiKeyGuard does
    const http = {
      getRequest: () => req,
      getResponse: () => ({ statusCode: request.status ?? 201 }),
    };
    const context = { getHandler: () => handler, switchToHttp: () => http } as unknown as ExecutionContext;
    const next: CallHandler = {
      handle: () =>
        defer(async () => {
          await gate;
          if (fail) {
            throw fail;
          }
          created += 1;
          return { id: `thing_${created}`, secret: `whsec_${created}` };
        }),
    };
    return lastValueFrom(interceptor.intercept(context, next));
  }

  const records = () => [...db.idempotencyRecords.values()];

  describe('which requests it touches', () => {
    it('should pass a request without Idempotency-Key straight to the handler', async () => {
      await call();
      await call();
      expect(created).toBe(2);
      expect(records()).toEqual([]);
    });

    it('should ignore Idempotency-Key on a route without @Idempotent()', async () => {
      await call({ options: undefined, key: 'k-1' });
      await call({ options: undefined, key: 'k-1' });
      expect(created).toBe(2);
      expect(records()).toEqual([]);
    });

    it('should refuse a malformed key with 400 naming the header, before the handler runs', async () => {
      await expect(call({ key: 'with space' })).rejects.toMatchObject({
        status: 400,
        body: { code: 'validation_failed', fields: { 'Idempotency-Key': expect.any(String) } },
      });
      expect(created).toBe(0);
    });
  });

  describe('replay and conflict', () => {
    it('should replay the first answer for the same key and body, and record its status per workspace and route', async () => {
      const first = await call({ key: 'k-1', body: { name: 'a', tags: ['x'] } });
      await expect(call({ key: 'k-1', body: { tags: ['x'], name: 'a' } })).resolves.toEqual(first);
      expect(created).toBe(1);
      expect(records()).toEqual([
        expect.objectContaining({
          workspaceId: authFor().workspaceId,
          scope: 'POST /api/v1/things',
          key: 'k-1',
          statusCode: 201,
          responseBody: first,
        }),
      ]);
    });

    it('should answer 409 idempotency_conflict for the same key with another body, creating nothing', async () => {
      await call({ key: 'k-1', body: { name: 'a' } });
      await expect(call({ key: 'k-1', body: { name: 'b' } })).rejects.toMatchObject({
        status: 409,
        body: { code: 'idempotency_conflict' },
      });
      expect(created).toBe(1);
    });

    it('should keep keys apart per workspace, per route and per id in the path', async () => {
      const trigger = '/api/v1/things/:id/trigger';
      await call({ key: 'k-1' });
      await call({ key: 'k-1', auth: authFor(OTHER_WORKSPACE) });
      await call({ key: 'k-1', route: '/api/v1/others' });
      await call({ key: 'k-1', route: trigger, params: { id: 'thing_a' } });
      await call({ key: 'k-1', route: trigger, params: { id: 'thing_a' } });
      await call({ key: 'k-1', route: trigger, params: { id: 'thing_b' } });
      expect(created).toBe(5);
      expect(records().map((r) => r.scope)).toEqual(
        expect.arrayContaining(['POST /api/v1/things/thing_a/trigger', 'POST /api/v1/things/thing_b/trigger']),
      );
    });

    it('should release the key when the handler fails (a refused body too), so a retry runs again', async () => {
      fail = Object.assign(new Error('refused'), { status: 400 });
      await expect(call({ key: 'k-1', body: { name: '' } })).rejects.toThrow('refused');
      expect(records()).toEqual([]);
      fail = null;
      await expect(call({ key: 'k-1', body: { name: 'fixed' } })).resolves.toMatchObject({ id: 'thing_1' });
    });

    it('should let concurrent duplicates create once and answer both alike', async () => {
      let open!: () => void;
      gate = new Promise<void>((resolve) => (open = resolve));
      const first = call({ key: 'race' });
      await new Promise((resolve) => setImmediate(resolve));
      const second = call({ key: 'race' });
      open();
      const [a, b] = await Promise.all([first, second]);
      expect(b).toEqual(a);
      expect(created).toBe(1);
    });

    it('should compare what the fingerprint keeps of the body, a missing body being {}', async () => {
      const options: IdempotentOptions = { fingerprint: ({ overrides }) => (overrides ? { overrides } : {}) };
      await call({ options, key: 'k-1' });
      await call({ options, key: 'k-1', body: {} });
      await call({ options, key: 'k-1', body: { overrides: null } });
      expect(created).toBe(1);
      await expect(call({ options, key: 'k-1', body: { overrides: { body: 'x' } } })).rejects.toMatchObject({
        body: { code: 'idempotency_conflict' },
      });
    });
  });

  describe('one-time secrets (sealed)', () => {
    const options: IdempotentOptions = { sealed: 'secret' };

    it('should replay the secret to the caller who created it, never storing it in the clear', async () => {
      const first = (await call({ options, key: 'k-1' })) as { secret: string };
      await expect(call({ options, key: 'k-1' })).resolves.toEqual(first);
      expect(created).toBe(1);
      expect(JSON.stringify(records())).not.toContain(first.secret);
      expect(records()[0].responseBody).toEqual({ id: 'thing_1', secret: expect.stringMatching(/^sealed\.v1\./) });
    });

    it('should refuse the replay to another credential of the workspace with 409 conflict, revealing nothing', async () => {
      await call({ options, key: 'k-1' });
      await expect(call({ options, key: 'k-1', credential: 'sk_other' })).rejects.toMatchObject({
        status: 409,
        body: { code: 'conflict' },
      });
      expect(created).toBe(1);
    });
  });

  describe('the routes', () => {
    it('should mark the create routes, sealing the secret each answers once', () => {
      expect(idempotentOptions(JobsController.prototype.create)).toEqual({ sealed: 'signing_secret' });
      expect(idempotentOptions(ApiKeysController.prototype.create)).toEqual({ sealed: 'key' });
      expect(idempotentOptions(AlertChannelsController.prototype.create)).toEqual({ sealed: 'signing_secret' });
      expect(idempotentOptions(AlertRulesController.prototype.create)).toEqual({});
      expect(idempotentOptions(JobsController.prototype.trigger)).toEqual({ fingerprint: expect.any(Function) });
      expect(idempotentOptions(JobsController.prototype.update)).toBeUndefined();
    });

    it('should take a trigger without overrides as one request, and anything else in its body as another', () => {
      const fingerprint = idempotentOptions(JobsController.prototype.trigger)!.fingerprint!;
      expect(fingerprint({})).toEqual(fingerprint({ overrides: null }));
      expect(fingerprint({ overrides: { headers: { a: 'b' } } })).toEqual({ overrides: { headers: { a: 'b' } } });
      // A body the schema refuses (Schemathesis' unknown property) is not the earlier valid one:
      // a reused key answers 409, never a replay of the 202.
      expect(fingerprint({ overrides: {}, extra: 42 })).not.toEqual(fingerprint({ overrides: {} }));
      expect(fingerprint({ extra: 42 })).not.toEqual(fingerprint({}));
    });
  });
});

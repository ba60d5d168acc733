import { setWorkspaceSuspended } from '../../apps/cli/src/commands/workspace';
import { apiClient, useStack } from '../utils/stack';

/** `GET /api/v1/me` and `/api/v1/workspaces/{ws}` (issue #8; decisions.md → GET /me, Scopes). */
describe('identity and workspaces', () => {
  const e2e = useStack({ worker: false });

  async function keyWith(scopes: string[], client = e2e.api) {
    const created = await client('POST', '/api/v1/api-keys', { name: `scoped ${scopes.join(' ')}`, scopes });
    expect(created.status).toBe(201);
    return { ...created.body, client: apiClient(e2e.stack.baseUrl, created.body.key) };
  }

  describe('GET /api/v1/me', () => {
    it('should describe an API key caller: no user, the key, and its one workspace as owner', async () => {
      const me = await e2e.api('GET', '/api/v1/me');
      expect(me.status).toBe(200);
      expect(me.body).toEqual({
        user: null,
        key: {
          id: expect.stringMatching(/^key_/),
          name: 'bootstrap',
          prefix: e2e.stack.apiKey.slice(0, 12),
          scopes: ['*'],
        },
        workspaces: [
          { id: e2e.stack.workspaceId, name: 'acme', slug: 'acme', plan: expect.any(String), role: 'owner' },
        ],
      });
      expect(JSON.stringify(me.body)).not.toContain(e2e.stack.apiKey);
      expect(me.body).not.toHaveProperty('csrf_token');
    });

    it('should answer any valid key, whatever its scopes, with role member for a scoped key', async () => {
      for (const scopes of [['runs:read'], ['jobs:read'], ['jobs:write']]) {
        const key = await keyWith(scopes);
        const me = await key.client('GET', '/api/v1/me');
        expect(me.status).toBe(200);
        expect(me.body.key).toEqual({ id: key.id, name: key.name, prefix: key.prefix, scopes });
        expect(me.body.workspaces).toEqual([expect.objectContaining({ id: e2e.stack.workspaceId, role: 'member' })]);
      }
    });

    it('should answer 401 without a key', async () => {
      const response = await apiClient(e2e.stack.baseUrl)('GET', '/api/v1/me');
      expect(response.status).toBe(401);
      expect(response.body.error.code).toBe('unauthorized');
    });
  });

  describe('GET /api/v1/workspaces/{ws}', () => {
    it('should return the own workspace to any valid key', async () => {
      const expected = {
        id: e2e.stack.workspaceId,
        name: expect.any(String),
        slug: expect.any(String),
        plan: expect.any(String),
        temporal_workflow_task_queues: null,
        created_at: expect.stringMatching(/Z$/),
      };
      const own = await e2e.api('GET', `/api/v1/workspaces/${e2e.stack.workspaceId}`);
      expect(own.status).toBe(200);
      expect(own.body).toEqual(expected);
      const reader = await keyWith(['runs:read']);
      expect((await reader.client('GET', `/api/v1/workspaces/${e2e.stack.workspaceId}`)).body).toEqual(expected);
    });

    it('should answer 404 for another workspace, an unknown id and a malformed id', async () => {
      const other = await e2e.stack.newWorkspaceKey('neighbour');
      for (const id of [other.workspaceId, 'ws_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'neighbour', 'acme', 'x']) {
        const response = await e2e.api('GET', `/api/v1/workspaces/${id}`);
        expect({ id, status: response.status, code: response.body.error?.code }).toEqual({
          id,
          status: 404,
          code: 'not_found',
        });
        expect(JSON.stringify(response.body)).not.toContain('neighbour');
      }
    });
  });

  describe('PATCH /api/v1/workspaces/{ws}', () => {
    it('should rename and re-slug the workspace, with one workspace.update audit entry', async () => {
      const mine = await e2e.stack.newWorkspaceKey('renamer');
      const client = apiClient(e2e.stack.baseUrl, mine.apiKey);
      const updated = await client('PATCH', `/api/v1/workspaces/${mine.workspaceId}`, {
        name: 'Renamer Inc.',
        slug: 'renamer-inc',
      });
      expect(updated.status).toBe(200);
      expect(updated.body).toEqual({
        id: mine.workspaceId,
        name: 'Renamer Inc.',
        slug: 'renamer-inc',
        plan: expect.any(String),
        temporal_workflow_task_queues: null,
        created_at: expect.any(String),
      });
      expect((await client('GET', `/api/v1/workspaces/${mine.workspaceId}`)).body).toEqual(updated.body);
      expect((await client('GET', '/api/v1/me')).body.workspaces[0]).toMatchObject({ slug: 'renamer-inc' });

      // A partial update and a no-op.
      expect((await client('PATCH', `/api/v1/workspaces/${mine.workspaceId}`, { name: 'R' })).body).toMatchObject({
        name: 'R',
        slug: 'renamer-inc',
      });
      expect((await client('PATCH', `/api/v1/workspaces/${mine.workspaceId}`, {})).status).toBe(200);
      expect((await client('PATCH', `/api/v1/workspaces/${mine.workspaceId}`, { name: 'R' })).status).toBe(200);

      const audit = await e2e.stack.dataSource.query(
        `SELECT actor, action, target, details FROM audit_log WHERE workspace_id = $1 AND action = 'workspace.update' ORDER BY id`,
        [mine.workspaceId],
      );
      expect(audit).toEqual([
        {
          actor: expect.stringMatching(/^key:key_/),
          action: 'workspace.update',
          target: mine.workspaceId,
          details: {
            changes: { name: { from: 'renamer', to: 'Renamer Inc.' }, slug: { from: 'renamer', to: 'renamer-inc' } },
          },
        },
        {
          actor: expect.stringMatching(/^key:key_/),
          action: 'workspace.update',
          target: mine.workspaceId,
          details: { changes: { name: { from: 'Renamer Inc.', to: 'R' } } },
        },
      ]);
    });

    it('should answer 400 validation_failed with fields for bad names and slugs, and change nothing', async () => {
      await e2e.stack.newWorkspaceKey('taken-slug');
      const before = (await e2e.api('GET', `/api/v1/workspaces/${e2e.stack.workspaceId}`)).body;
      const cases: Array<[unknown, string[]]> = [
        [{ slug: 'taken-slug' }, ['slug']],
        [{ slug: 'Upper' }, ['slug']],
        [{ slug: '-dash' }, ['slug']],
        [{ slug: 'dash-' }, ['slug']],
        [{ slug: 'has space' }, ['slug']],
        [{ slug: '' }, ['slug']],
        [{ slug: 'a'.repeat(64) }, ['slug']],
        [{ slug: null }, ['slug']],
        [{ slug: 7 }, ['slug']],
        [{ name: '' }, ['name']],
        [{ name: '  ' }, ['name']],
        [{ name: null }, ['name']],
        [{ name: 'x'.repeat(101) }, ['name']],
        [{ name: 'nul\u0000' }, ['name']],
        [{ name: 'ok', plan: 'enterprise' }, ['plan']],
        [{ name: 'ok', slug: 'taken-slug' }, ['slug']],
      ];
      for (const [body, fields] of cases) {
        const response = await e2e.api('PATCH', `/api/v1/workspaces/${e2e.stack.workspaceId}`, body);
        expect({ body, status: response.status, code: response.body.error?.code }).toEqual({
          body,
          status: 400,
          code: 'validation_failed',
        });
        expect(Object.keys(response.body.error.fields)).toEqual(fields);
      }
      expect((await e2e.api('PATCH', `/api/v1/workspaces/${e2e.stack.workspaceId}`, '{"slug": ')).status).toBe(400);
      for (const body of ['[]', '"acme"', 'null', '7']) {
        const response = await e2e.api('PATCH', `/api/v1/workspaces/${e2e.stack.workspaceId}`, body);
        expect({ body, status: response.status, fields: response.body.error?.fields }).toEqual({
          body,
          status: 400,
          fields: { body: 'must be a JSON object' },
        });
      }
      expect((await e2e.api('GET', `/api/v1/workspaces/${e2e.stack.workspaceId}`)).body).toEqual(before);
      const [audit] = await e2e.stack.dataSource.query(
        `SELECT count(*)::int AS n FROM audit_log WHERE workspace_id = $1 AND action = 'workspace.update'`,
        [e2e.stack.workspaceId],
      );
      expect(audit.n).toBe(0);
    });

    it('should give a slug to exactly one of two workspaces claiming it at once', async () => {
      const a = await e2e.stack.newWorkspaceKey('racer-a');
      const b = await e2e.stack.newWorkspaceKey('racer-b');
      const responses = await Promise.all(
        [a, b].map((ws) =>
          apiClient(e2e.stack.baseUrl, ws.apiKey)('PATCH', `/api/v1/workspaces/${ws.workspaceId}`, {
            slug: 'the-prize',
          }),
        ),
      );
      expect(responses.map((r) => r.status).sort()).toEqual([200, 400]);
      expect(responses.find((r) => r.status === 400)!.body.error.fields).toEqual({
        slug: 'is already taken by another workspace',
      });
    });

    it('should need a full-access key and answer 404 for another workspace', async () => {
      for (const scopes of [['jobs:write'], ['jobs:read', 'runs:read']]) {
        const key = await keyWith(scopes);
        const response = await key.client('PATCH', `/api/v1/workspaces/${e2e.stack.workspaceId}`, { name: 'nope' });
        expect(response.status).toBe(403);
        expect(response.body.error.code).toBe('forbidden');
      }
      const other = await e2e.stack.newWorkspaceKey('untouchable');
      const response = await e2e.api('PATCH', `/api/v1/workspaces/${other.workspaceId}`, { name: 'stolen' });
      expect(response.status).toBe(404);
      const theirs = await apiClient(e2e.stack.baseUrl, other.apiKey)('GET', `/api/v1/workspaces/${other.workspaceId}`);
      expect(theirs.body.name).toBe('untouchable');
    });

    it('should refuse mutations of a suspended workspace with 403 workspace_suspended and allow reads', async () => {
      const sleepy = await e2e.stack.newWorkspaceKey('sleepy-ws');
      const client = apiClient(e2e.stack.baseUrl, sleepy.apiKey);
      const spare = (await client('POST', '/api/v1/api-keys', { name: 'spare' })).body;
      await setWorkspaceSuspended(e2e.stack.dataSource, 'sleepy-ws', true);
      try {
        for (const [method, path, body] of [
          ['PATCH', `/api/v1/workspaces/${sleepy.workspaceId}`, { name: 'awake' }],
          ['POST', '/api/v1/api-keys', { name: 'more' }],
          ['DELETE', `/api/v1/api-keys/${spare.id}`, undefined],
        ] as const) {
          const response = await client(method, path, body);
          expect({ method, path, status: response.status, code: response.body.error?.code }).toEqual({
            method,
            path,
            status: 403,
            code: 'workspace_suspended',
          });
        }
        expect((await client('GET', `/api/v1/workspaces/${sleepy.workspaceId}`)).status).toBe(200);
        expect((await client('GET', '/api/v1/api-keys')).status).toBe(200);
        expect((await client('GET', '/api/v1/me')).status).toBe(200);
      } finally {
        await setWorkspaceSuspended(e2e.stack.dataSource, 'sleepy-ws', false);
      }
      expect((await client('PATCH', `/api/v1/workspaces/${sleepy.workspaceId}`, { name: 'awake' })).status).toBe(200);
    });
  });
});

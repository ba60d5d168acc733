import { hashApiKey } from '@svc/common/api-keys';
import { apiClient, useStack } from '../utils/stack';

const KEY_SHAPE = /^sjs_[0-9A-Za-z]{40}$/;

/** `/api/v1/api-keys` (issue #8; spec → API key, Authentication; decisions.md → API key format). */
describe('API keys', () => {
  const e2e = useStack({ worker: false });

  async function countKeys(): Promise<number> {
    const [row] = await e2e.stack.dataSource.query('SELECT count(*)::int AS n FROM api_keys');
    return row.n;
  }

  async function everythingStored(): Promise<string> {
    const tables = ['api_keys', 'audit_log', 'idempotency_records'];
    const dumps = await Promise.all(tables.map((t) => e2e.stack.dataSource.query(`SELECT * FROM ${t}`)));
    return JSON.stringify(dumps);
  }

  describe('POST /api/v1/api-keys', () => {
    it('should return the full key once, with default scope * and the prefix as its first 12 characters', async () => {
      const created = await e2e.api('POST', '/api/v1/api-keys', { name: 'ci deploys' });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.stringMatching(/^key_[0-9A-Z]{26}$/),
        name: 'ci deploys',
        prefix: created.body.key.slice(0, 12),
        scopes: ['*'],
        created_at: expect.any(String),
        last_used_at: null,
        revoked_at: null,
        key: expect.stringMatching(KEY_SHAPE),
      });
      expect(created.body.prefix).toMatch(/^sjs_[0-9A-Za-z]{8}$/);

      const me = await apiClient(e2e.stack.baseUrl, created.body.key)('GET', '/api/v1/me');
      expect(me.status).toBe(200);
      expect(me.body.key.id).toBe(created.body.id);

      // Only the SHA-256 is stored, and no table holds the key itself.
      const [row] = await e2e.stack.dataSource.query('SELECT key_hash FROM api_keys WHERE id = $1', [created.body.id]);
      expect(row.key_hash).toBe(hashApiKey(created.body.key));
      expect(await everythingStored()).not.toContain(created.body.key);

      const audit = await e2e.stack.dataSource.query(
        `SELECT actor, action, target, details FROM audit_log WHERE target = $1`,
        [created.body.id],
      );
      expect(audit).toEqual([
        {
          actor: expect.stringMatching(/^key:key_/),
          action: 'api_key.create',
          target: created.body.id,
          details: { name: 'ci deploys', prefix: created.body.prefix, scopes: ['*'] },
        },
      ]);
      expect(JSON.stringify(audit)).not.toContain(row.key_hash);
    });

    it('should create a scoped key that can do only what its scopes allow', async () => {
      const created = await e2e.api('POST', '/api/v1/api-keys', { name: 'reader', scopes: ['jobs:read', 'runs:read'] });
      expect(created.status).toBe(201);
      expect(created.body.scopes).toEqual(['jobs:read', 'runs:read']);
      const reader = apiClient(e2e.stack.baseUrl, created.body.key);
      expect((await reader('GET', '/api/v1/jobs')).status).toBe(200);
      expect((await reader('GET', '/api/v1/runs')).status).toBe(200);
      const denied = await reader('POST', '/api/v1/api-keys', { name: 'escalate' });
      expect(denied.status).toBe(403);
      expect(denied.body.error.code).toBe('forbidden');
      expect((await reader('GET', '/api/v1/api-keys')).status).toBe(403);
    });

    it('should answer 400 validation_failed naming each bad field, and create nothing', async () => {
      const before = await countKeys();
      const cases: Array<[unknown, string[]]> = [
        [{}, ['name']],
        [{ name: '' }, ['name']],
        [{ name: '   ' }, ['name']],
        [{ name: 'x'.repeat(101) }, ['name']],
        [{ name: 42 }, ['name']],
        [{ name: 'nul\u0000byte' }, ['name']],
        [{ name: 'k', scopes: [] }, ['scopes']],
        [{ name: 'k', scopes: ['admin'] }, ['scopes']],
        [{ name: 'k', scopes: ['jobs:read', 'jobs:read'] }, ['scopes']],
        [{ name: 'k', scopes: 'jobs:read' }, ['scopes']],
        [{ name: 'k', scopes: null }, ['scopes']],
        [{ name: 'k', scopes: [7] }, ['scopes']],
        [{ name: 'k', key: 'sjs_mine' }, ['key']],
        [{ name: 'k', expires_at: '2030-01-01T00:00:00Z' }, ['expires_at']],
      ];
      for (const [body, fields] of cases) {
        const response = await e2e.api('POST', '/api/v1/api-keys', body);
        expect({ body, status: response.status, code: response.body.error?.code }).toEqual({
          body,
          status: 400,
          code: 'validation_failed',
        });
        expect(Object.keys(response.body.error.fields)).toEqual(fields);
      }
      expect((await e2e.api('POST', '/api/v1/api-keys', '{"name": ')).status).toBe(400);
      expect((await e2e.api('POST', '/api/v1/api-keys', '[]')).status).toBe(400);
      expect(await countKeys()).toBe(before);
    });
  });

  describe('GET /api/v1/api-keys', () => {
    it('should list by prefix, newest first, never the key or its hash, with cursor paging', async () => {
      const other = await e2e.stack.newWorkspaceKey('paging-keys');
      const client = apiClient(e2e.stack.baseUrl, other.apiKey);
      const made: Array<{ id: string; key: string }> = [];
      for (let i = 0; i < 3; i++) {
        made.push((await client('POST', '/api/v1/api-keys', { name: `key ${i}` })).body);
      }
      const first = await client('GET', '/api/v1/api-keys?limit=2');
      expect(first.status).toBe(200);
      expect(first.body.data.map((k: { name: string }) => k.name)).toEqual(['key 2', 'key 1']);
      expect(Object.keys(first.body.data[0]).sort()).toEqual(
        ['created_at', 'id', 'last_used_at', 'name', 'prefix', 'revoked_at', 'scopes'].sort(),
      );
      const second = await client('GET', `/api/v1/api-keys?limit=2&cursor=${first.body.next_cursor}`);
      expect(second.body.data.map((k: { name: string }) => k.name)).toEqual(['key 0', 'bootstrap']);
      expect(second.body.next_cursor).toBeNull();

      const everything = JSON.stringify((await client('GET', '/api/v1/api-keys?limit=200')).body);
      for (const { key } of made) {
        expect(everything).not.toContain(key);
        expect(everything).not.toContain(hashApiKey(key));
      }
      expect(everything).not.toContain(other.apiKey);

      // Tenant isolation: the first workspace never sees these keys.
      const mine = JSON.stringify((await e2e.api('GET', '/api/v1/api-keys?limit=200')).body);
      for (const { id } of made) {
        expect(mine).not.toContain(id);
      }
    });

    it('should answer 400 for a bad cursor or limit', async () => {
      const nulCursor = Buffer.from(JSON.stringify({ id: 'key_\u0000' })).toString('base64url');
      for (const query of [
        'cursor=garbage',
        `cursor=${nulCursor}`,
        'limit=0',
        'limit=201',
        'limit=abc',
        'surprise=1',
      ]) {
        const response = await e2e.api('GET', `/api/v1/api-keys?${query}`);
        expect({ query, status: response.status }).toEqual({ query, status: 400 });
        expect(response.body.error.code).toBe('validation_failed');
      }
    });

    it('should record last_used_at once a key is used', async () => {
      const created = await e2e.api('POST', '/api/v1/api-keys', { name: 'used' });
      await apiClient(e2e.stack.baseUrl, created.body.key)('GET', '/api/v1/me');
      const deadline = Date.now() + 5_000;
      let lastUsed: string | null = null;
      while (!lastUsed && Date.now() < deadline) {
        const list = await e2e.api('GET', '/api/v1/api-keys?limit=200');
        lastUsed = list.body.data.find((k: { id: string }) => k.id === created.body.id).last_used_at;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(lastUsed).toEqual(expect.any(String));
    });
  });

  describe('DELETE /api/v1/api-keys/{id}', () => {
    it('should revoke at once: the very next request with the key is 401', async () => {
      const created = await e2e.api('POST', '/api/v1/api-keys', { name: 'short-lived' });
      const client = apiClient(e2e.stack.baseUrl, created.body.key);
      expect((await client('GET', '/api/v1/jobs')).status).toBe(200);
      const revoked = await e2e.api('DELETE', `/api/v1/api-keys/${created.body.id}`);
      expect(revoked.status).toBe(204);
      expect(revoked.body).toBeNull();
      const next = await client('GET', '/api/v1/jobs');
      expect(next.status).toBe(401);
      expect(next.body.error.code).toBe('unauthorized');

      const listed = (await e2e.api('GET', '/api/v1/api-keys?limit=200')).body.data.find(
        (k: { id: string }) => k.id === created.body.id,
      );
      expect(listed.revoked_at).toEqual(expect.any(String));
      // Revoking again is a no-op with the same answer and no second audit entry.
      expect((await e2e.api('DELETE', `/api/v1/api-keys/${created.body.id}`)).status).toBe(204);
      const audit = await e2e.stack.dataSource.query(
        `SELECT action, details FROM audit_log WHERE target = $1 ORDER BY id`,
        [created.body.id],
      );
      expect(audit).toEqual([
        { action: 'api_key.create', details: { name: 'short-lived', prefix: created.body.prefix, scopes: ['*'] } },
        { action: 'api_key.revoke', details: { name: 'short-lived', prefix: created.body.prefix } },
      ]);
    });

    it('should let a key revoke itself', async () => {
      const created = await e2e.api('POST', '/api/v1/api-keys', { name: 'self' });
      const client = apiClient(e2e.stack.baseUrl, created.body.key);
      expect((await client('DELETE', `/api/v1/api-keys/${created.body.id}`)).status).toBe(204);
      expect((await client('GET', '/api/v1/me')).status).toBe(401);
    });

    it("should answer 404 for unknown, malformed and other workspaces' keys, and revoke nothing", async () => {
      const other = await e2e.stack.newWorkspaceKey('other-keys');
      const theirs = await apiClient(e2e.stack.baseUrl, other.apiKey)('POST', '/api/v1/api-keys', { name: 'theirs' });
      for (const id of [
        theirs.body.id,
        'key_01ARZ3NDEKTSV4RRFFQ69G5FAV',
        'not-a-key',
        'job_01ARZ3NDEKTSV4RRFFQ69G5FAV',
      ]) {
        const response = await e2e.api('DELETE', `/api/v1/api-keys/${id}`);
        expect({ id, status: response.status }).toEqual({ id, status: 404 });
        expect(response.body.error.code).toBe('not_found');
      }
      expect((await apiClient(e2e.stack.baseUrl, theirs.body.key)('GET', '/api/v1/me')).status).toBe(200);
    });
  });

  describe('Idempotency-Key on POST /api/v1/api-keys', () => {
    it('should replay the same key to its caller and refuse another body', async () => {
      const headers = { 'idempotency-key': 'key-create-1' };
      const first = await e2e.api('POST', '/api/v1/api-keys', { name: 'idem' }, headers);
      expect(first.status).toBe(201);
      const again = await e2e.api('POST', '/api/v1/api-keys', { name: 'idem' }, headers);
      expect(again.status).toBe(201);
      expect(again.body).toEqual(first.body);
      const other = await e2e.api('POST', '/api/v1/api-keys', { name: 'something else' }, headers);
      expect(other.status).toBe(409);
      expect(other.body.error.code).toBe('idempotency_conflict');
      const [row] = await e2e.stack.dataSource.query('SELECT count(*)::int AS n FROM api_keys WHERE name = $1', [
        'idem',
      ]);
      expect(row.n).toBe(1);
      // The replay record never holds a usable key: it is sealed to the creating credential.
      expect(await everythingStored()).not.toContain(first.body.key);
    });

    it('should create one key for concurrent duplicates', async () => {
      const responses = await Promise.all(
        Array.from({ length: 5 }, () =>
          e2e.api('POST', '/api/v1/api-keys', { name: 'racing' }, { 'idempotency-key': 'key-race-1' }),
        ),
      );
      expect(responses.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
      expect(new Set(responses.map((r) => r.body.key)).size).toBe(1);
      const [row] = await e2e.stack.dataSource.query('SELECT count(*)::int AS n FROM api_keys WHERE name = $1', [
        'racing',
      ]);
      expect(row.n).toBe(1);
    });

    it('should not reveal the key to another credential of the workspace replaying the same request', async () => {
      const second = await e2e.api('POST', '/api/v1/api-keys', { name: 'second admin' });
      const first = await e2e.api('POST', '/api/v1/api-keys', { name: 'shared' }, { 'idempotency-key': 'shared-1' });
      const replay = await apiClient(e2e.stack.baseUrl, second.body.key)(
        'POST',
        '/api/v1/api-keys',
        { name: 'shared' },
        { 'idempotency-key': 'shared-1' },
      );
      expect(replay.status).toBe(409);
      expect(replay.body.error.code).toBe('conflict');
      expect(JSON.stringify(replay.body)).not.toContain(first.body.key);
    });

    it('should refuse a malformed Idempotency-Key', async () => {
      const response = await e2e.api('POST', '/api/v1/api-keys', { name: 'x' }, { 'idempotency-key': 'x'.repeat(256) });
      expect(response.status).toBe(400);
      expect(response.body.error.fields['Idempotency-Key']).toBeDefined();
    });
  });
});

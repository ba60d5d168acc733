import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { buildConfig } from '@svc/common';
import { secretsCipherFromConfig } from '@svc/common/secrets-crypto';
import { SecretsRepository } from '@svc/persistence';
import { createApp } from '../../apps/api/src/app';
import { setWorkspaceSuspended } from '../../apps/cli/src/commands/workspace';
import { apiClient, startStack, type Stack } from '../utils/stack';
import { captureProcessOutput } from '../utils/output-capture';

/**
 * `/api/v1/secrets` (issue #8; spec → Secret; decisions.md → Secrets, Templates, Audit actions):
 * PUT creates (201) or replaces (200), names and sizes validated, 100 per workspace, values
 * encrypted at rest and never returned, logged, audited or echoed; jobs may reference only
 * existing secrets, and a referenced secret cannot be deleted (409 naming the jobs).
 */
describe('secrets', () => {
  let stack: Stack;
  let verbose: NestFastifyApplication;
  let api: ReturnType<typeof apiClient>;
  const logged: string[] = [];
  const restores: Array<() => void> = [];

  /** Values the whole file checks for in every table and every log line. */
  const VALUES = ['sv-8c1f0a7e-first-value', 'sv-8c1f0a7e-replaced-value', 'sv-8c1f0a7e-bad-json'];

  beforeAll(async () => {
    // Every write to stdout/stderr (Nest's logger, Fastify, console) is captured for the leak check.
    restores.push(captureProcessOutput(logged));
    stack = await startStack({ worker: false });
    // A second API process on the same database that logs at every level, so a leak would show.
    verbose = await createApp({ config: stack.config, logLevels: ['log', 'error', 'warn', 'debug', 'verbose'] });
    await verbose.listen(0, '127.0.0.1');
    api = apiClient((await verbose.getUrl()).replace('[::1]', '127.0.0.1'), stack.apiKey);
  });

  afterAll(async () => {
    await verbose?.close();
    await stack?.stop();
    restores.forEach((restore) => restore());
  });

  function webhookJob(config: Record<string, unknown>, name = 'uses secrets') {
    return {
      name,
      schedule: { expr: '0 0 0 1 1 ? 2031' },
      sink: { kind: 'webhook', config: { url: 'https://example.com/hook', ...config } },
    };
  }

  describe('PUT /api/v1/secrets/{name}', () => {
    it('should create with 201, replace with 200, and answer name and timestamps only', async () => {
      const created = await api('PUT', '/api/v1/secrets/API_TOKEN', { value: VALUES[0] });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        name: 'API_TOKEN',
        created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        updated_at: created.body.created_at,
      });

      const replaced = await api('PUT', '/api/v1/secrets/API_TOKEN', { value: VALUES[1] });
      expect(replaced.status).toBe(200);
      expect(replaced.body.name).toBe('API_TOKEN');
      expect(replaced.body.created_at).toBe(created.body.created_at);
      expect(Date.parse(replaced.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.body.created_at));
      expect(JSON.stringify([created.body, replaced.body])).not.toContain('sv-8c1f0a7e');
    });

    it('should store AES-256-GCM ciphertext that the send-time resolver decrypts to the latest value', async () => {
      const [row] = await stack.dataSource.query(
        `SELECT value_encrypted FROM secrets WHERE workspace_id = $1 AND name = 'API_TOKEN'`,
        [stack.workspaceId],
      );
      expect(row.value_encrypted[0]).toBe(1); // format version
      expect(row.value_encrypted.length).toBe(1 + 12 + 16 + Buffer.byteLength(VALUES[1]));
      expect(row.value_encrypted.includes(Buffer.from(VALUES[1]))).toBe(false);

      // What the delivery activity calls (decisions.md → Templates: rendered at send time).
      const resolved = await new SecretsRepository(stack.dataSource).resolveForWorkspace(
        stack.workspaceId,
        ['API_TOKEN', 'NOT_STORED'],
        secretsCipherFromConfig(stack.config),
      );
      expect(resolved).toEqual({ API_TOKEN: VALUES[1] });
    });

    it('should accept names by the template rule and values up to 8 KiB', async () => {
      for (const name of ['_', 'a', 'Z9_x', `A${'b'.repeat(63)}`]) {
        expect((await api('PUT', `/api/v1/secrets/${name}`, { value: 'v' })).status).toBe(201);
      }
      const big = 'é'.repeat(4096); // 8192 UTF-8 bytes
      expect((await api('PUT', '/api/v1/secrets/BIG', { value: big })).status).toBe(201);
      expect(
        (await api('PUT', '/api/v1/secrets/MULTI', { value: '-----BEGIN KEY-----\nabc\n-----END KEY-----' })).status,
      ).toBe(201);
    });

    it.each([
      ['a name starting with a digit', '9LIVES', { value: 'v' }, 'name'],
      ['a name with a dash', 'API-TOKEN', { value: 'v' }, 'name'],
      ['a name with a dot', 'secret.X', { value: 'v' }, 'name'],
      ['a name of 65 characters', `A${'b'.repeat(64)}`, { value: 'v' }, 'name'],
      ['a percent-encoded space', 'A%20B', { value: 'v' }, 'name'],
      ['a missing value', 'X', {}, 'value'],
      ['an empty value', 'X', { value: '' }, 'value'],
      ['a value that is not a string', 'X', { value: 42 }, 'value'],
      ['a value over 8 KiB', 'X', { value: 'é'.repeat(4096) + 'x' }, 'value'],
      ['an unknown field', 'X', { value: 'v', extra: 1 }, 'extra'],
    ])('should answer 400 validation_failed naming the field for %s', async (_, name, body, field) => {
      const response = await api('PUT', `/api/v1/secrets/${name}`, body);
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('validation_failed');
      expect(Object.keys(response.body.error.fields)).toContain(field);
    });

    it('should answer 400 for a body that is not a JSON object or not JSON, without echoing it', async () => {
      for (const body of ['[]', '"x"', 'null']) {
        const response = await api('PUT', '/api/v1/secrets/X', body);
        expect(response.status).toBe(400);
        expect(response.body.error.fields).toHaveProperty('body');
      }
      const malformed = await api('PUT', '/api/v1/secrets/X', `{"value": ${VALUES[2]}}`);
      expect(malformed.status).toBe(400);
      expect(malformed.body.error.code).toBe('validation_failed');
      expect(JSON.stringify(malformed.body)).not.toContain(VALUES[2]);
      expect(
        (await api('GET', '/api/v1/secrets?limit=200')).body.data.map((s: { name: string }) => s.name),
      ).not.toContain('X');
    });
  });

  describe('GET /api/v1/secrets', () => {
    it('should list names with timestamps by name, paged with a cursor, never a value', async () => {
      const all = await api('GET', '/api/v1/secrets?limit=200');
      expect(all.status).toBe(200);
      const names: string[] = all.body.data.map((s: { name: string }) => s.name);
      expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
      expect(names).toEqual(expect.arrayContaining(['API_TOKEN', 'BIG', '_', 'a']));
      for (const secret of all.body.data) {
        expect(Object.keys(secret).sort()).toEqual(['created_at', 'name', 'updated_at']);
      }
      expect(all.body.next_cursor).toBeNull();

      const paged: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { status: number; body: { data: Array<{ name: string }>; next_cursor: string | null } } = await api(
          'GET',
          `/api/v1/secrets?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        expect(page.status).toBe(200);
        expect(page.body.data.length).toBeLessThanOrEqual(2);
        paged.push(...page.body.data.map((s) => s.name));
        cursor = page.body.next_cursor;
      } while (cursor);
      expect(paged).toEqual(names);
    });

    it.each([
      ['a cursor that is not ours', 'cursor=not-a-cursor', 'cursor'],
      // A cursor is the last name listed: one no secret could have is refused.
      ['a cursor naming an impossible secret', `cursor=${encodeURIComponent('a b')}`, 'cursor'],
      ['a cursor of another list', 'cursor=1.run_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'cursor'],
      ['limit 0', 'limit=0', 'limit'],
      ['limit 201', 'limit=201', 'limit'],
      ['an unknown parameter', 'sort=name', 'sort'],
    ])('should answer 400 naming the field for %s', async (_, query, field) => {
      const response = await api('GET', `/api/v1/secrets?${query}`);
      expect(response.status).toBe(400);
      expect(response.body.error.fields).toHaveProperty(field);
    });
  });

  describe('jobs referencing secrets', () => {
    it('should create a job whose headers and body reference existing secrets', async () => {
      const created = await api(
        'POST',
        '/api/v1/jobs',
        webhookJob({ headers: { Authorization: 'Bearer {{ secret.API_TOKEN }}' }, body: '{"k":"{{secret.BIG}}"}' }),
      );
      expect(created.status).toBe(201);
      // The job keeps the template, never the value.
      expect(created.body.sink.config.headers.Authorization).toBe('Bearer {{ secret.API_TOKEN }}');
    });

    it('should refuse unknown secrets and variables, naming each field, and create nothing', async () => {
      const response = await api(
        'POST',
        '/api/v1/jobs',
        webhookJob({
          headers: { 'X-Token': '{{secret.MISSING}}', 'X-Run': '{{run.id}}', 'X-Odd': '{{run.idx}}' },
          body: 'token={{secret.ALSO_MISSING}}&also={{ secret.API_TOKEN }}',
        }),
      );
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('validation_failed');
      expect(response.body.error.fields).toEqual({
        'sink.config.headers.X-Token': 'unknown secret "MISSING" at byte 0 (length 18)',
        'sink.config.headers.X-Odd': expect.stringContaining('unknown template variable "{{run.idx}}" at byte 0'),
        'sink.config.body': 'unknown secret "ALSO_MISSING" at byte 6 (length 23)',
      });
      const [count] = await stack.dataSource.query(`SELECT count(*)::int AS n FROM jobs WHERE name = 'uses secrets'`);
      expect(count.n).toBe(1);
    });

    it('should refuse a template in the URL', async () => {
      const response = await api(
        'POST',
        '/api/v1/jobs',
        webhookJob({ url: 'https://example.com/{{secret.API_TOKEN}}' }),
      );
      expect(response.status).toBe(400);
      expect(response.body.error.fields).toEqual({ 'sink.config.url': 'templates are not allowed in the URL' });
    });

    it('should refuse a PATCH that references an unknown secret and leave the job unchanged', async () => {
      const job = (await api('POST', '/api/v1/jobs', webhookJob({ headers: { 'X-Plain': 'x' } }, 'patched'))).body;
      const refused = await api('PATCH', `/api/v1/jobs/${job.id}`, {
        sink: { kind: 'webhook', config: { url: 'https://example.com/hook', headers: { 'X-Key': '{{secret.NOPE}}' } } },
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error.fields).toEqual({
        'sink.config.headers.X-Key': 'unknown secret "NOPE" at byte 0 (length 15)',
      });
      const after = (await api('GET', `/api/v1/jobs/${job.id}`)).body;
      expect(after.version).toBe(job.version);
      expect(after.sink.config.headers).toEqual({ 'X-Plain': 'x' });

      const accepted = await api('PATCH', `/api/v1/jobs/${job.id}`, {
        sink: { kind: 'webhook', config: { url: 'https://example.com/hook', headers: { 'X-Key': '{{secret.a}}' } } },
      });
      expect(accepted.status).toBe(200);
    });

    it('should not see secrets of another workspace', async () => {
      const other = await stack.newWorkspaceKey('secrets-other');
      const otherApi = apiClient(stack.baseUrl, other.apiKey);
      expect((await otherApi('GET', '/api/v1/secrets')).body).toEqual({ data: [], next_cursor: null });
      const job = await otherApi('POST', '/api/v1/jobs', webhookJob({ headers: { A: '{{secret.API_TOKEN}}' } }));
      expect(job.status).toBe(400);
      expect(job.body.error.fields).toEqual({
        'sink.config.headers.A': 'unknown secret "API_TOKEN" at byte 0 (length 20)',
      });
      expect((await otherApi('DELETE', '/api/v1/secrets/API_TOKEN')).status).toBe(404);
      // The same name is its own secret there.
      expect((await otherApi('PUT', '/api/v1/secrets/API_TOKEN', { value: 'other' })).status).toBe(201);
      expect((await api('PUT', '/api/v1/secrets/API_TOKEN', { value: VALUES[1] })).status).toBe(200);
    });
  });

  describe('DELETE /api/v1/secrets/{name}', () => {
    it('should answer 409 conflict naming the jobs that use the secret, then 204 once none does', async () => {
      const early = await api('POST', '/api/v1/jobs', webhookJob({ headers: { A: '{{secret.DOOMED}}' } }));
      expect(early.status).toBe(400); // DOOMED does not exist yet
      expect((await api('PUT', '/api/v1/secrets/DOOMED', { value: 'v' })).status).toBe(201);
      expect((await api('PUT', '/api/v1/secrets/DOOMED_2', { value: 'v' })).status).toBe(201);
      const job = (await api('POST', '/api/v1/jobs', webhookJob({ body: 'x={{ secret.DOOMED }}' }, 'doomed user')))
        .body;
      // A job using only DOOMED_2 does not hold DOOMED.
      const neighbour = await api('POST', '/api/v1/jobs', webhookJob({ body: '{{secret.DOOMED_2}}' }, 'neighbour'));
      expect(neighbour.status).toBe(201);

      const refused = await api('DELETE', '/api/v1/secrets/DOOMED');
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('conflict');
      expect(refused.body.error.message).toContain(job.id);
      expect(refused.body.error.message).toContain('"doomed user"');
      expect(refused.body.error.message).not.toContain(neighbour.body.id);
      expect((await api('GET', '/api/v1/secrets?limit=200')).body.data.map((s: { name: string }) => s.name)).toContain(
        'DOOMED',
      );

      await api('PATCH', `/api/v1/jobs/${job.id}`, {
        sink: { kind: 'webhook', config: { url: 'https://example.com/hook', body: 'no secret' } },
      });
      const deleted = await api('DELETE', '/api/v1/secrets/DOOMED');
      expect(deleted.status).toBe(204);
      expect((await api('DELETE', '/api/v1/secrets/DOOMED')).status).toBe(404);
      // Referencing it again is now a validation error.
      const again = await api('POST', '/api/v1/jobs', webhookJob({ body: '{{secret.DOOMED}}' }));
      expect(again.status).toBe(400);
    });

    it('should stop holding a secret when the job using it is deleted', async () => {
      expect((await api('PUT', '/api/v1/secrets/SHORT_LIVED', { value: 'v' })).status).toBe(201);
      const job = (await api('POST', '/api/v1/jobs', webhookJob({ headers: { A: '{{secret.SHORT_LIVED}}' } }))).body;
      expect((await api('DELETE', '/api/v1/secrets/SHORT_LIVED')).status).toBe(409);
      expect((await api('DELETE', `/api/v1/jobs/${job.id}`)).status).toBe(204);
      expect((await api('DELETE', '/api/v1/secrets/SHORT_LIVED')).status).toBe(204);
    });

    it('should answer 404 for a name that cannot exist', async () => {
      for (const name of ['bad-name', '1X', 'NEVER_STORED']) {
        const response = await api('DELETE', `/api/v1/secrets/${name}`);
        expect(response.status).toBe(404);
        expect(response.body.error.code).toBe('not_found');
      }
    });
  });

  describe('limits and suspension', () => {
    it('should allow 100 secrets per workspace, then 403 limit_exceeded; replacing still works', async () => {
      const ws = await stack.newWorkspaceKey('secrets-cap');
      const capped = apiClient(stack.baseUrl, ws.apiKey);
      const statuses = await Promise.all(
        Array.from({ length: 100 }, (_, i) => capped('PUT', `/api/v1/secrets/S${i}`, { value: `v${i}` })),
      );
      expect(statuses.every((r) => r.status === 201)).toBe(true);
      const over = await capped('PUT', '/api/v1/secrets/ONE_TOO_MANY', { value: 'v' });
      expect(over.status).toBe(403);
      expect(over.body.error).toMatchObject({ code: 'limit_exceeded', limit: 'max_secrets_per_workspace', value: 100 });
      expect((await capped('PUT', '/api/v1/secrets/S0', { value: 'new' })).status).toBe(200);
      const [count] = await stack.dataSource.query(`SELECT count(*)::int AS n FROM secrets WHERE workspace_id = $1`, [
        ws.workspaceId,
      ]);
      expect(count.n).toBe(100);
    });

    it('should hold the cap under concurrent creates', async () => {
      const ws = await stack.newWorkspaceKey('secrets-race');
      const racing = apiClient(stack.baseUrl, ws.apiKey);
      await Promise.all(Array.from({ length: 98 }, (_, i) => racing('PUT', `/api/v1/secrets/R${i}`, { value: 'v' })));
      const results = await Promise.all(
        ['X1', 'X2', 'X3', 'X4', 'X5'].map((name) => racing('PUT', `/api/v1/secrets/${name}`, { value: 'v' })),
      );
      expect(results.map((r) => r.status).sort()).toEqual([201, 201, 403, 403, 403]);
    });

    it('should refuse writes on a suspended workspace and still list', async () => {
      const ws = await stack.newWorkspaceKey('secrets-suspended');
      const client = apiClient(stack.baseUrl, ws.apiKey);
      expect((await client('PUT', '/api/v1/secrets/KEPT', { value: 'v' })).status).toBe(201);
      await setWorkspaceSuspended(stack.dataSource, 'secrets-suspended', true);
      for (const [method, body] of [
        ['PUT', { value: 'v2' }],
        ['DELETE', undefined],
      ] as const) {
        const response = await client(method, '/api/v1/secrets/KEPT', body);
        expect(response.status).toBe(403);
        expect(response.body.error.code).toBe('workspace_suspended');
      }
      expect((await client('GET', '/api/v1/secrets')).body.data.map((s: { name: string }) => s.name)).toEqual(['KEPT']);
    });
  });

  describe('audit', () => {
    it('should record secret.update (created or not) and secret.delete by the key, with the name only', async () => {
      const entries = await stack.dataSource.query(
        `SELECT actor, action, target, details FROM audit_log
          WHERE workspace_id = $1 AND target IN ('API_TOKEN', 'DOOMED') ORDER BY created_at, id`,
        [stack.workspaceId],
      );
      const actor = expect.stringMatching(/^key:key_/);
      expect(entries).toEqual([
        { actor, action: 'secret.update', target: 'API_TOKEN', details: { created: true } },
        { actor, action: 'secret.update', target: 'API_TOKEN', details: { created: false } },
        { actor, action: 'secret.update', target: 'API_TOKEN', details: { created: false } },
        { actor, action: 'secret.update', target: 'DOOMED', details: { created: true } },
        { actor, action: 'secret.delete', target: 'DOOMED', details: {} },
      ]);
    });
  });

  describe('no value anywhere', () => {
    it('should never store a value in clear in any table (audit log included)', async () => {
      const tables: Array<{ tablename: string }> = await stack.dataSource.query(
        `SELECT tablename FROM pg_tables WHERE schemaname = 'public'`,
      );
      for (const { tablename } of tables) {
        const rows = await stack.dataSource.query(`SELECT * FROM "${tablename}"`);
        const dump = JSON.stringify(rows) + rows.map((r: Record<string, unknown>) => Object.values(r).join('|')).join();
        for (const value of VALUES) {
          expect({ table: tablename, leaked: dump.includes(value) }).toEqual({ table: tablename, leaked: false });
        }
      }
    });

    it('should never log a value', () => {
      expect(logged.length).toBeGreaterThan(0); // the verbose app did log (routes, start-up)
      const all = logged.join('');
      for (const value of VALUES) {
        expect(all.includes(value)).toBe(false);
      }
    });
  });

  describe('start-up', () => {
    it('should refuse to start without secrets.encryption_key, saying how to set one', async () => {
      const config = buildConfig({}, { DATABASE_URL: stack.config.database.url, PORT: '0' });
      await expect(createApp({ config, logLevels: [] })).rejects.toThrow(
        /secrets\.encryption_key is not set[\s\S]*SECRETS_ENCRYPTION_KEY/,
      );
    });
  });
});

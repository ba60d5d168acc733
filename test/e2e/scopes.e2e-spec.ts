import { AppModule } from '../../apps/api/src/app.module';
import { routesOfModule } from '../../apps/api/src/auth/route-table';
import { type ApiClient, apiClient, useStack } from '../utils/stack';

/**
 * decisions.md → Scopes, route by route. `*` everything; `jobs:read` GET jobs; `jobs:write` job
 * mutations, trigger, test, rotate, run retry (implies `jobs:read`); `runs:read` GET runs; keys,
 * secrets, alert channels and rules, workspace PATCH and the audit log need `*`; any valid key may
 * read /me, /usage, /stats/overview, /stats/jobs/hourly and its own workspace.
 *
 * Adding an authenticated route? Add its row here: the first test fails until every registered
 * route has one. Rows of routes not built yet are listed too and checked once the route exists.
 */
type Need = '*' | 'jobs:read' | 'jobs:write' | 'runs:read' | 'any key';

const MATRIX: Record<string, Need> = {
  'GET /api/v1/me': 'any key',
  'GET /api/v1/dashboard/config': 'any key',
  'GET /api/v1/workspaces/:ws': 'any key',
  'PATCH /api/v1/workspaces/:ws': '*',
  'GET /api/v1/usage': 'any key',
  'GET /api/v1/stats/overview': 'any key',
  'GET /api/v1/stats/jobs/hourly': 'any key',

  'GET /api/v1/jobs': 'jobs:read',
  'GET /api/v1/jobs/:id': 'jobs:read',
  'POST /api/v1/jobs': 'jobs:write',
  'PATCH /api/v1/jobs/:id': 'jobs:write',
  'DELETE /api/v1/jobs/:id': 'jobs:write',
  'POST /api/v1/jobs/:id/pause': 'jobs:write',
  'POST /api/v1/jobs/:id/resume': 'jobs:write',
  'POST /api/v1/jobs/:id/enable': 'jobs:write',
  'POST /api/v1/jobs/:id/trigger': 'jobs:write',
  'POST /api/v1/jobs/:id/test': 'jobs:write',
  'POST /api/v1/jobs/test': 'jobs:write',
  'POST /api/v1/jobs/:id/rotate-signing-secret': 'jobs:write',
  'GET /api/v1/jobs/by-key/:key': 'jobs:read',
  'PUT /api/v1/jobs/by-key/:key': 'jobs:write',
  'DELETE /api/v1/jobs/by-key/:key': 'jobs:write',
  'POST /api/v1/jobs/apply': 'jobs:write',
  'POST /api/v1/jobs/:id/occurrences/:at/skip': 'jobs:write',
  'DELETE /api/v1/jobs/:id/occurrences/:at/skip': 'jobs:write',
  'GET /api/v1/calendars': 'jobs:read',
  'POST /api/v1/calendars': 'jobs:write',
  'GET /api/v1/calendars/:name': 'jobs:read',
  'PUT /api/v1/calendars/:name': 'jobs:write',
  'DELETE /api/v1/calendars/:name': 'jobs:write',
  // Issue 46: destination limits shape how jobs deliver; they read and write like jobs.
  'GET /api/v1/destinations': 'jobs:read',
  'GET /api/v1/destinations/:destination': 'jobs:read',
  'PUT /api/v1/destinations/:destination': 'jobs:write',
  'DELETE /api/v1/destinations/:destination': 'jobs:write',

  'GET /api/v1/runs': 'runs:read',
  'GET /api/v1/runs/:id': 'runs:read',
  'GET /api/v1/jobs/:id/runs': 'runs:read',
  'POST /api/v1/runs/:id/retry': 'jobs:write',
  'POST /api/v1/runs/:id/cancel': 'jobs:write',

  // Issue 46: bulk actions and recover change jobs and open runs; their operations read like jobs.
  'POST /api/v1/jobs/bulk': 'jobs:write',
  'POST /api/v1/runs/recover': 'jobs:write',
  'GET /api/v1/operations/:id': 'jobs:read',
  'POST /api/v1/operations/:id/cancel': 'jobs:write',

  // Issue 45: a backfill opens runs of a job; reading one reads like jobs.
  'POST /api/v1/jobs/:id/backfill': 'jobs:write',
  'GET /api/v1/backfills/:id': 'jobs:read',
  'POST /api/v1/backfills/:id/cancel': 'jobs:write',

  'GET /api/v1/api-keys': '*',
  'POST /api/v1/api-keys': '*',
  'DELETE /api/v1/api-keys/:id': '*',
  'GET /api/v1/secrets': '*',
  'PUT /api/v1/secrets/:name': '*',
  'DELETE /api/v1/secrets/:name': '*',
  'GET /api/v1/audit-log': '*',
  'GET /api/v1/alert-channels': '*',
  'POST /api/v1/alert-channels': '*',
  'GET /api/v1/alert-channels/:id': '*',
  'PATCH /api/v1/alert-channels/:id': '*',
  'DELETE /api/v1/alert-channels/:id': '*',
  'POST /api/v1/alert-channels/:id/verify': '*',
  'POST /api/v1/alert-channels/:id/test': '*',
  'GET /api/v1/alert-rules': '*',
  'POST /api/v1/alert-rules': '*',
  'GET /api/v1/alert-rules/:id': '*',
  'PATCH /api/v1/alert-rules/:id': '*',
  'DELETE /api/v1/alert-rules/:id': '*',

  // The codec server (docs/operations.md → Payload encryption): decoded payloads are job data.
  'POST /codec/encode': 'jobs:read',
  'POST /codec/decode': 'jobs:read',
};

const KEY_SCOPES = ['*', 'jobs:read', 'jobs:write', 'runs:read'] as const;
type KeyScope = (typeof KEY_SCOPES)[number];

function allows(scope: KeyScope, need: Need): boolean {
  return need === 'any key' || scope === '*' || scope === need || (scope === 'jobs:write' && need === 'jobs:read');
}

/** Well-formed ids that name nothing, so allowed calls end in 404/400 and change nothing. */
const MISSING_IDS: Array<[RegExp, string]> = [
  [/^\/api\/v1\/jobs\//, 'job_01ARZ3NDEKTSV4RRFFQ69G5FAV'],
  [/^\/api\/v1\/runs\//, 'run_01ARZ3NDEKTSV4RRFFQ69G5FAV'],
  [/^\/api\/v1\/api-keys\//, 'key_01ARZ3NDEKTSV4RRFFQ69G5FAV'],
  [/^\/api\/v1\/alert-channels\//, 'ch_01ARZ3NDEKTSV4RRFFQ69G5FAV'],
  [/^\/api\/v1\/alert-rules\//, 'rule_01ARZ3NDEKTSV4RRFFQ69G5FAV'],
  [/^\/api\/v1\/operations\//, 'op_01ARZ3NDEKTSV4RRFFQ69G5FAV'],
  [/^\/api\/v1\/backfills\//, 'bf_01ARZ3NDEKTSV4RRFFQ69G5FAV'],
];

function concretePath(template: string, workspaceId: string): string {
  return template.replace(/:(\w+)/g, (_, name: string) => {
    if (name === 'ws') {
      return workspaceId;
    }
    if (name === 'name') {
      return 'SCOPE_MATRIX_MISSING';
    }
    return MISSING_IDS.find(([prefix]) => prefix.test(template))?.[1] ?? 'scope-matrix-missing';
  });
}

describe('scope matrix (decisions.md → Scopes)', () => {
  const registered = routesOfModule(AppModule.forRoot()).filter((route) => !route.public);
  const rows = registered.map((route) => `${route.method} ${route.path}`);
  const e2e = useStack({ worker: false });
  const clients = {} as Record<KeyScope, ApiClient>;

  beforeAll(async () => {
    for (const scope of KEY_SCOPES) {
      const created = await e2e.api('POST', '/api/v1/api-keys', { name: `matrix ${scope}`, scopes: [scope] });
      clients[scope] = apiClient(e2e.stack.baseUrl, created.body.key);
    }
  });

  it('should have a row for every authenticated route', () => {
    expect(rows.filter((row) => !(row in MATRIX))).toEqual([]);
    expect(rows).toEqual(
      expect.arrayContaining(['GET /api/v1/me', 'POST /api/v1/jobs', 'DELETE /api/v1/api-keys/:id']),
    );
  });

  it.each(KEY_SCOPES)('should allow or refuse each route for a key with scope %s', async (scope) => {
    const outcomes: string[] = [];
    for (const row of rows) {
      const [method, template] = row.split(' ');
      const body = ['POST', 'PUT', 'PATCH'].includes(method) ? {} : undefined;
      const response = await clients[scope](method, concretePath(template, e2e.stack.workspaceId), body);
      const allowed = allows(scope, MATRIX[row]);
      const ok = allowed
        ? response.status !== 401 && response.status !== 403 && response.status < 500
        : response.status === 403 && response.body?.error?.code === 'forbidden';
      if (!ok) {
        outcomes.push(`${row}: expected ${allowed ? 'allowed' : '403 forbidden'}, got ${response.status}`);
      }
    }
    expect(outcomes).toEqual([]);
  });

  it('should answer 401 unauthorized on every authenticated route without a valid key', async () => {
    const outcomes: string[] = [];
    for (const client of [apiClient(e2e.stack.baseUrl), apiClient(e2e.stack.baseUrl, 'sjs_notakey')]) {
      for (const row of rows) {
        const [method, template] = row.split(' ');
        const body = ['POST', 'PUT', 'PATCH'].includes(method) ? {} : undefined;
        const response = await client(method, concretePath(template, e2e.stack.workspaceId), body);
        if (response.status !== 401 || response.body?.error?.code !== 'unauthorized') {
          outcomes.push(`${row}: got ${response.status}`);
        }
      }
    }
    expect(outcomes).toEqual([]);
  });

  it('should leave the workspace unchanged (allowed calls only hit missing ids or invalid bodies)', async () => {
    const [jobs] = await e2e.stack.dataSource.query('SELECT count(*)::int AS n FROM jobs');
    expect(jobs.n).toBe(0);
    const [revoked] = await e2e.stack.dataSource.query(
      'SELECT count(*)::int AS n FROM api_keys WHERE revoked_at IS NOT NULL',
    );
    expect(revoked.n).toBe(0);
  });
});

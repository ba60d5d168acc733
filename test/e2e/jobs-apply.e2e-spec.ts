import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  ApiRequestError,
  applyJobs,
  createApiClient,
  type DeclaredJob,
  type JobDeclaration,
  upsertJobByKey,
} from '@svc/api-client';
import { Client, Connection, isGrpcServiceError } from '@temporalio/client';
import Ajv2020 from 'ajv/dist/2020';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';
import { createApp } from '../../apps/api/src/app';
import { waitFor } from '../utils/receiver';
import { apiClient, startStack, type Stack } from '../utils/stack';

/** gRPC's NOT_FOUND, what Temporal answers for a workflow id it has no execution of. */
const GRPC_NOT_FOUND = 5;

/**
 * Issue 42, jobs as code, over the assembled API (two API processes' worth: two apps on one
 * database), a worker and the Temporal dev server: keys, PUT by key with its preconditions,
 * apply with its plan, dry run, prune scope, adopt, kept, every bad input of the issue, and
 * ten applies of one set racing (docs/architecture.md → Jobs as code).
 */
jest.setTimeout(240_000);

type Api = ReturnType<typeof apiClient>;
const URL = 'http://127.0.0.1:9/hook';

function declared(key: string, extra: Record<string, unknown> = {}) {
  return {
    key,
    name: `job ${key}`,
    schedule: { expr: 'every day at 3am' },
    sink: { kind: 'webhook', config: { url: `${URL}/${key}` } },
    ...extra,
  };
}

describe('jobs as code: keys, PUT by key, apply', () => {
  let stack: Stack;
  let second: NestFastifyApplication;
  let secondUrl: string;
  let connection: Connection;
  let temporal: Client;

  beforeAll(async () => {
    // Every optional sink on, as the committed jobs-file schema is generated (scripts/jobs-file-schema.mjs).
    stack = await startStack({
      config: { limits: { api_rate_limit_per_minute: 100_000 }, sinks: { command: { enabled: true } } },
    });
    // A second API process on the same database: applies racing across replicas.
    second = await createApp({ config: stack.config, logLevels: ['error'] });
    await second.listen(0, '127.0.0.1');
    secondUrl = (await second.getUrl()).replace('[::1]', '127.0.0.1');
    connection = await Connection.connect({ address: stack.config.temporal.address });
    temporal = new Client({ connection, namespace: stack.config.temporal.namespace });
  });

  afterAll(async () => {
    await second?.close();
    await connection?.close();
    await stack?.stop();
  });

  /** A fresh workspace per case, so counts are the case's own. */
  async function workspace(slug: string): Promise<{ api: Api; apiOn: (url: string) => Api; workspaceId: string }> {
    const { apiKey, workspaceId } = await stack.newWorkspaceKey(slug);
    return { api: apiClient(stack.baseUrl, apiKey), apiOn: (url) => apiClient(url, apiKey), workspaceId };
  }

  const rows = async (workspaceId: string) => {
    const [jobs] = await stack.dataSource.query(`SELECT count(*)::int AS n FROM jobs WHERE workspace_id = $1`, [
      workspaceId,
    ]);
    const [audit] = await stack.dataSource.query(`SELECT count(*)::int AS n FROM audit_log WHERE workspace_id = $1`, [
      workspaceId,
    ]);
    return { jobs: jobs.n as number, audit: audit.n as number };
  };

  /** Job workflows of the workspace Temporal lists (visibility settles within moments). */
  const workflows = async (workspaceId: string) =>
    (await temporal.workflow.count(`WorkflowType = 'jobWorkflow' AND SvcWorkspaceId = '${workspaceId}'`)).count;

  const byKey = async (workspaceId: string) => {
    const list: Array<{ key: string; version: number; name: string; managed_by: string | null; state: string }> =
      await stack.dataSource.query(
        `SELECT key, version, name, managed_by, state FROM jobs WHERE workspace_id = $1 ORDER BY key`,
        [workspaceId],
      );
    return list;
  };

  it('should show key and managed_by on every job, filter by them, and refuse a key taken or malformed', async () => {
    const { api } = await workspace('keys');
    const plain = await api('POST', '/api/v1/jobs', { ...declared('x'), key: undefined });
    expect(plain.status).toBe(201);
    expect(plain.body).toMatchObject({ key: null, managed_by: null });
    const keyed = await api('POST', '/api/v1/jobs', declared('billing.nightly:v1'));
    expect(keyed.status).toBe(201);
    expect(keyed.body).toMatchObject({ key: 'billing.nightly:v1', managed_by: null });

    const taken = await api('POST', '/api/v1/jobs', declared('billing.nightly:v1'));
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe('conflict');
    expect(taken.body.error.message).toContain('billing.nightly:v1');

    for (const key of ['-starts-with-dash', 'has space', 'x'.repeat(129), '']) {
      const bad = await api('POST', '/api/v1/jobs', declared(key));
      expect(bad.status).toBe(400);
      expect(Object.keys(bad.body.error.fields)).toEqual(['key']);
    }
    const managed = await api('POST', '/api/v1/jobs', { ...declared('m'), managed_by: 'git:x' });
    expect(managed.status).toBe(400);
    expect(managed.body.error.fields).toHaveProperty('managed_by');

    const filtered = await api('GET', '/api/v1/jobs?key=billing.nightly:v1');
    expect(filtered.body.data.map((job: { id: string }) => job.id)).toEqual([keyed.body.id]);
    await api('POST', '/api/v1/jobs/apply', { managed_by: 'app:billing', jobs: [declared('owned')] });
    const owned = await api('GET', '/api/v1/jobs?managed_by=app:billing');
    expect(owned.body.data.map((job: { key: string }) => job.key)).toEqual(['owned']);

    // The key reaches Temporal as SvcJobKey on the job's workflow.
    const described = await waitFor(async () => {
      try {
        return await temporal.workflow.getHandle(keyed.body.id).describe();
      } catch {
        return null;
      }
    });
    expect(described.searchAttributes).toMatchObject({ SvcJobKey: ['billing.nightly:v1'] });
  });

  it('should create by key (201), answer an identical PUT with 200 writing nothing, and replace a changed one', async () => {
    const { api, workspaceId } = await workspace('put');
    const body = { ...declared('reports'), key: undefined, description: 'first' };
    const created = await api('PUT', '/api/v1/jobs/by-key/reports', body);
    expect(created.status).toBe(201);
    expect(created.headers.get('etag')).toBe('"1"');
    expect(created.body).toMatchObject({ key: 'reports', version: 1, description: 'first' });
    expect(created.body.signing_secret).toMatch(/^whsec_/);
    const id = created.body.id as string;
    /**
     * Signals the job's workflow received (the create's signal-with-start is the first). A create
     * answers before its workflow is told (a follow-up), so under load it may not exist yet: 0.
     */
    const signals = async () => {
      const history = await temporal.workflow
        .getHandle(id)
        .fetchHistory()
        .catch((err: unknown) => {
          if (isGrpcServiceError(err) && err.code === GRPC_NOT_FOUND) {
            return { events: [] };
          }
          throw err;
        });
      return (history.events ?? []).filter((event) => event.workflowExecutionSignaledEventAttributes).length;
    };
    await waitFor(async () => (await signals()) === 1);
    const [before] = await stack.dataSource.query(`SELECT revision, updated_at FROM jobs WHERE id = $1`, [id]);
    const counted = await rows(workspaceId);

    const same = await api('PUT', '/api/v1/jobs/by-key/reports', body);
    expect(same.status).toBe(200);
    expect(same.headers.get('etag')).toBe('"1"');
    expect(same.body).toMatchObject({ id, version: 1 });
    expect(same.body.signing_secret).toBeUndefined();
    const [after] = await stack.dataSource.query(`SELECT revision, updated_at FROM jobs WHERE id = $1`, [id]);
    expect(after).toEqual(before);
    expect(await rows(workspaceId)).toEqual(counted);
    expect(await signals()).toBe(1); // no signal reached the workflow

    // A full declaration: `description` left out is back at its default, not kept.
    const changed = await api('PUT', '/api/v1/jobs/by-key/reports', {
      ...body,
      description: undefined,
      schedule: { expr: 'every day at 4am' },
    });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).toBe('"2"');
    expect(changed.body).toMatchObject({ id, version: 2, description: '', schedule: { expr: 'every day at 4am' } });
    expect(changed.body.signing_secret).toBeUndefined();
    const audit = await stack.dataSource.query(
      `SELECT action, details FROM audit_log WHERE workspace_id = $1 AND target = $2 ORDER BY created_at`,
      [workspaceId, id],
    );
    expect(audit.map((entry: { action: string }) => entry.action)).toEqual(['job.create', 'job.update']);
    expect(audit[1].details.fields).toEqual(['description', 'schedule.expr']);
    await waitFor(async () => (await signals()) === 2); // the change was signalled

    const got = await api('GET', '/api/v1/jobs/by-key/reports');
    expect(got.status).toBe(200);
    expect(got.headers.get('etag')).toBe('"2"');
    expect(got.body).toMatchObject({ id, version: 2, next_runs: expect.any(Array) });
  });

  it('should answer 412 on a stale If-Match and on If-None-Match: * for an existing key, and keep a paused job paused', async () => {
    const { api } = await workspace('preconditions');
    const body = { ...declared('p'), key: undefined };
    expect((await api('PUT', '/api/v1/jobs/by-key/p', body, { 'if-match': '"1"' })).status).toBe(412);
    const created = await api('PUT', '/api/v1/jobs/by-key/p', body, { 'if-none-match': '*' });
    expect(created.status).toBe(201);
    const again = await api('PUT', '/api/v1/jobs/by-key/p', body, { 'if-none-match': '*' });
    expect(again.status).toBe(412);
    expect(again.body.error.code).toBe('precondition_failed');

    const v2 = await api('PUT', '/api/v1/jobs/by-key/p', { ...body, name: 'v2' }, { 'if-match': '"1"' });
    expect(v2.status).toBe(200);
    expect(v2.body.version).toBe(2);
    const stale = await api('PUT', '/api/v1/jobs/by-key/p', { ...body, name: 'v3' }, { 'if-match': '"1"' });
    expect(stale.status).toBe(412);
    expect((await api('GET', '/api/v1/jobs/by-key/p')).body).toMatchObject({ name: 'v2', version: 2 });
    expect((await api('PUT', '/api/v1/jobs/by-key/p', body, { 'if-match': 'soon' })).status).toBe(400);

    expect((await api('POST', `/api/v1/jobs/${created.body.id}/pause`)).status).toBe(200);
    const replaced = await api('PUT', '/api/v1/jobs/by-key/p', { ...body, name: 'v4' });
    expect(replaced.body).toMatchObject({ name: 'v4', state: 'paused', version: 3 });

    const badKey = await api('PUT', '/api/v1/jobs/by-key/has%20space', body);
    expect(badKey.status).toBe(400);
    expect(Object.keys(badKey.body.error.fields)).toEqual(['key']);
    const otherKey = await api('PUT', '/api/v1/jobs/by-key/p', { ...body, key: 'q' });
    expect(otherKey.status).toBe(400);

    expect((await api('DELETE', '/api/v1/jobs/by-key/p')).status).toBe(204);
    expect((await api('GET', '/api/v1/jobs/by-key/p')).status).toBe(404);
    expect((await api('DELETE', '/api/v1/jobs/by-key/p')).status).toBe(404);
  });

  it('should end ten applies of one set racing on two API processes in one job per key at version 1, nine plans unchanged', async () => {
    const { apiOn, workspaceId } = await workspace('ten');
    const set = {
      managed_by: 'app:billing',
      jobs: ['a', 'b', 'c', 'd', 'e'].map((key) => declared(key)),
    };
    const plans = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        apiOn(i % 2 === 0 ? stack.baseUrl : secondUrl)('POST', '/api/v1/jobs/apply', set),
      ),
    );
    expect(plans.map((plan) => plan.status)).toEqual(Array(10).fill(200));
    const creators = plans.filter((plan) => plan.body.created.length > 0);
    expect(creators).toHaveLength(1);
    expect(creators[0].body).toMatchObject({ created: ['a', 'b', 'c', 'd', 'e'], updated: [], unchanged: [] });
    const unchanged = plans.filter((plan) => plan.body.unchanged.length === 5 && plan.body.updated.length === 0);
    expect(unchanged).toHaveLength(9);

    const jobs = await byKey(workspaceId);
    expect(jobs.map((job) => [job.key, job.version, job.managed_by])).toEqual(
      ['a', 'b', 'c', 'd', 'e'].map((key) => [key, 1, 'app:billing']),
    );
    await waitFor(async () => (await workflows(workspaceId)) === 5);
    // One audit entry: the apply that wrote; the nine found nothing to do and wrote nothing.
    const audit = await stack.dataSource.query(
      `SELECT action, details FROM audit_log WHERE workspace_id = $1 AND action <> 'api_key.create'`,
      [workspaceId],
    );
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      action: 'jobs.apply',
      details: { managed_by: 'app:billing', counts: { created: 5, updated: 0 }, created: ['a', 'b', 'c', 'd', 'e'] },
    });
    expect(JSON.stringify(audit)).not.toContain('whsec_');
  });

  it('should end two different sets racing in one of them, never a mix', async () => {
    const { apiOn, workspaceId } = await workspace('two-sets');
    const keys = ['k1', 'k2', 'k3', 'k4', 'k5', 'k6'];
    const setOf = (tag: string) => ({
      managed_by: 'git:infra/jobs.yaml',
      jobs: keys.map((key) => declared(key, { name: `${tag} ${key}`, description: tag })),
    });
    for (let round = 0; round < 3; round += 1) {
      const results = await Promise.all([
        apiOn(stack.baseUrl)('POST', '/api/v1/jobs/apply', setOf('A')),
        apiOn(secondUrl)('POST', '/api/v1/jobs/apply', setOf('B')),
      ]);
      expect(results.map((result) => result.status)).toEqual([200, 200]);
      const jobs = await byKey(workspaceId);
      expect(jobs).toHaveLength(keys.length);
      const winners = new Set(jobs.map((job) => job.name.split(' ')[0]));
      expect(winners.size).toBe(1);
    }
    // Two owners taking the same keys over (adopt): one set whole, its owner on every job.
    for (let round = 0; round < 3; round += 1) {
      const results = await Promise.all([
        apiOn(stack.baseUrl)('POST', '/api/v1/jobs/apply', { ...setOf('C'), managed_by: 'owner:c', adopt: true }),
        apiOn(secondUrl)('POST', '/api/v1/jobs/apply', { ...setOf('D'), managed_by: 'owner:d', adopt: true }),
      ]);
      expect(results.map((result) => result.status)).toEqual([200, 200]);
      const jobs = await byKey(workspaceId);
      expect(new Set(jobs.map((job) => `${job.name.split(' ')[0]} ${job.managed_by}`)).size).toBe(1);
    }
  });

  it('should write nothing on a dry run: rows and Temporal executions unchanged', async () => {
    const { api, workspaceId } = await workspace('dry');
    const first = await api('POST', '/api/v1/jobs/apply', { managed_by: 'm', jobs: [declared('one')] });
    expect(first.status).toBe(200);
    await waitFor(async () => (await workflows(workspaceId)) === 1);
    const before = await rows(workspaceId);
    const jobsBefore = await byKey(workspaceId);

    const dry = await api('POST', '/api/v1/jobs/apply', {
      managed_by: 'm',
      prune: true,
      dry_run: true,
      jobs: [declared('two'), declared('three', { name: 'three' })],
    });
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({ dry_run: true, created: ['two', 'three'], deleted: ['one'], unchanged: [] });
    expect(dry.body.ids).toEqual({ one: first.body.ids.one });
    const dryUpdate = await api('POST', '/api/v1/jobs/apply', {
      managed_by: 'm',
      dry_run: true,
      jobs: [declared('one', { timeout: '10s' })],
    });
    expect(dryUpdate.body.updated).toEqual([{ key: 'one', changes: ['timeout'] }]);
    // Visibility is eventually consistent: give a stray start the time it would take to show.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await rows(workspaceId)).toEqual(before);
    expect(await byKey(workspaceId)).toEqual(jobsBefore);
    expect(await workflows(workspaceId)).toBe(1);
  });

  it('should prune only the jobs of the same managed_by, keep paused jobs paused, and adopt only when asked', async () => {
    const { api, workspaceId } = await workspace('prune');
    const byHand = await api('POST', '/api/v1/jobs', declared('by-hand'));
    expect(byHand.status).toBe(201);
    const unkeyed = await api('POST', '/api/v1/jobs', { ...declared('z'), key: undefined });
    expect(unkeyed.status).toBe(201);
    const other = await api('POST', '/api/v1/jobs/apply', { managed_by: 'other', jobs: [declared('other-owned')] });
    expect(other.status).toBe(200);
    const mine = await api('POST', '/api/v1/jobs/apply', {
      managed_by: 'mine',
      jobs: [declared('keep'), declared('drop'), declared('pause-me')],
    });
    expect(mine.body.created).toEqual(['keep', 'drop', 'pause-me']);
    expect((await api('POST', `/api/v1/jobs/${mine.body.ids['pause-me']}/pause`)).status).toBe(200);

    const pruned = await api('POST', '/api/v1/jobs/apply', {
      managed_by: 'mine',
      prune: true,
      jobs: [declared('keep'), declared('pause-me', { description: 'changed' })],
    });
    expect(pruned.status).toBe(200);
    expect(pruned.body).toMatchObject({
      created: [],
      updated: [{ key: 'pause-me', changes: ['description'] }],
      unchanged: ['keep'],
      deleted: ['drop'],
      kept: [{ key: 'pause-me', reason: 'paused' }],
    });
    const jobs = await byKey(workspaceId);
    expect(jobs.map((job) => [job.key, job.managed_by, job.state])).toEqual([
      ['by-hand', null, 'active'],
      ['keep', 'mine', 'active'],
      ['other-owned', 'other', 'active'],
      ['pause-me', 'mine', 'paused'],
      [null, null, 'active'],
    ]);

    // A key made by hand or owned by another: 409 naming it, and nothing of the set written.
    const before = await rows(workspaceId);
    for (const key of ['by-hand', 'other-owned']) {
      const refused = await api('POST', '/api/v1/jobs/apply', {
        managed_by: 'mine',
        jobs: [declared('new-one'), declared(key)],
      });
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('conflict');
      expect(refused.body.error.message).toContain(`"${key}"`);
    }
    expect(await rows(workspaceId)).toEqual(before);

    const adopted = await api('POST', '/api/v1/jobs/apply', {
      managed_by: 'mine',
      adopt: true,
      jobs: [declared('keep'), declared('pause-me', { description: 'changed' }), declared('by-hand')],
    });
    expect(adopted.status).toBe(200);
    expect(adopted.body.updated).toEqual([{ key: 'by-hand', changes: ['managed_by'] }]);
    expect((await api('GET', '/api/v1/jobs/by-key/by-hand')).body).toMatchObject({ managed_by: 'mine', version: 2 });
  });

  it('should refuse every bad input of the issue with the envelope and write nothing', async () => {
    const { api, workspaceId } = await workspace('bad');
    const before = await rows(workspaceId);
    const valid = [declared('j0'), declared('j1'), declared('j2')];
    const cases: Array<[string, Record<string, unknown>, number, string[]]> = [
      [
        'a key that breaks the pattern',
        { managed_by: 'm', jobs: [...valid, declared('bad key')] },
        400,
        ['jobs[3].key'],
      ],
      ['a duplicate key in the set', { managed_by: 'm', jobs: [...valid, declared('j1')] }, 400, ['jobs[3].key']],
      [
        'a job that fails validation',
        { managed_by: 'm', jobs: [...valid, declared('j3', { schedule: { expr: 'every blue moon' } })] },
        400,
        ['jobs[3].schedule.expr'],
      ],
      [
        'a job whose DTO is wrong',
        { managed_by: 'm', jobs: [...valid, declared('j3', { timeout: 'forever' })] },
        400,
        ['jobs[3].timeout'],
      ],
      ['prune without managed_by', { prune: true, jobs: valid }, 400, ['prune']],
      ['a job that is an array', { managed_by: 'm', jobs: [...valid, [null, null]] }, 400, ['jobs[3]']],
      ['a job that is null', { managed_by: 'm', jobs: [...valid, null] }, 400, ['jobs[3]']],
    ];
    for (const [what, body, status, fields] of cases) {
      const refused = await api('POST', '/api/v1/jobs/apply', body);
      expect([what, refused.status]).toEqual([what, status]);
      expect([what, refused.body.error.code]).toEqual([what, 'validation_failed']);
      expect([what, Object.keys(refused.body.error.fields)]).toEqual([what, fields]);
    }
    expect(await rows(workspaceId)).toEqual(before);

    // A managed_by change of an existing key without adopt.
    expect((await api('POST', '/api/v1/jobs/apply', { managed_by: 'm', jobs: valid })).status).toBe(200);
    const moved = await rows(workspaceId);
    const taken = await api('POST', '/api/v1/jobs/apply', { managed_by: 'n', jobs: [declared('j9'), ...valid] });
    expect(taken.status).toBe(409);
    expect(taken.body.error.message).toContain('"j0" (managed by m)');
    expect(await rows(workspaceId)).toEqual(moved);
  });

  it('should serve the jobs file schema, public and equal to the committed file, that a jobs file passes', async () => {
    const served = await apiClient(stack.baseUrl)('GET', '/api/v1/schemas/jobs-file.json');
    expect(served.status).toBe(200);
    const committed = JSON.parse(readFileSync(resolve(__dirname, '../../schemas/jobs-file.schema.json'), 'utf8'));
    expect(served.body).toEqual(committed);

    const validate = new Ajv2020({ strict: false, allErrors: true, validateFormats: false }).compile(served.body);
    const file = parse(
      [
        'managed_by: git:infra/jobs.yaml',
        'jobs:',
        '  - key: reports.nightly',
        '    name: nightly report',
        '    schedule: { expr: every weekday at 9am, timezone: Europe/Berlin }',
        '    sink: { kind: webhook, config: { url: "http://127.0.0.1:9/r" } }',
        '    retry: { max_attempts: 5 }',
      ].join('\n'),
    );
    expect(validate(file)).toBe(true);
    expect(validate({ jobs: [{ name: 'no key', schedule: { expr: 'hourly' }, sink: file.jobs[0].sink }] })).toBe(false);
    expect(validate({ jobs: [{ ...file.jobs[0], key: 'bad key' }] })).toBe(false);
    expect(validate({ ...file, prune: true })).toBe(false); // a file declares jobs; flags are the command's

    // And the API takes the same file.
    const { api } = await workspace('file');
    const applied = await api('POST', '/api/v1/jobs/apply', { ...file, dry_run: true });
    expect(applied.status).toBe(200);
    expect(applied.body.created).toEqual(['reports.nightly']);
  });

  it('should keep a set in sync through the typed client: upsertJobByKey and applyJobs', async () => {
    const { apiKey } = await stack.newWorkspaceKey('client');
    const client = createApiClient({ baseUrl: stack.baseUrl, headers: { authorization: `Bearer ${apiKey}` } });
    const declaration: JobDeclaration = {
      name: 'invoices',
      schedule: { expr: 'every day at 6am' },
      sink: { kind: 'webhook', config: { url: `${URL}/invoices` } },
    };
    const first = await upsertJobByKey(client, 'billing.invoices', declaration, { createOnly: true });
    expect(first).toMatchObject({ created: true, etag: '"1"', job: { key: 'billing.invoices', version: 1 } });
    const again = await upsertJobByKey(client, 'billing.invoices', declaration, { ifMatch: 1 });
    expect(again).toMatchObject({ created: false, etag: '"1"', job: { id: first.job.id, version: 1 } });
    const refused = await upsertJobByKey(client, 'billing.invoices', declaration, { createOnly: true }).catch(
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(ApiRequestError);
    expect(refused).toMatchObject({ status: 412, body: { error: { code: 'precondition_failed' } } });

    const jobs: DeclaredJob[] = ['billing.cleanup', 'billing.reminders'].map((key) => ({
      ...declaration,
      key,
      name: key,
    }));
    const plan = await applyJobs(client, { managed_by: 'app:billing', prune: true, dry_run: false, jobs });
    expect(plan).toMatchObject({ created: ['billing.cleanup', 'billing.reminders'], deleted: [] });
    const rerun = await applyJobs(client, { managed_by: 'app:billing', prune: true, jobs: jobs.slice(0, 1) });
    expect(rerun).toMatchObject({ unchanged: ['billing.cleanup'], deleted: ['billing.reminders'] });
    // The hand-made key is another owner's: the client throws the envelope.
    const taken = await applyJobs(client, {
      managed_by: 'app:billing',
      jobs: [{ ...declaration, key: 'billing.invoices' }],
    }).catch((err: unknown) => err);
    expect(taken).toMatchObject({ status: 409, body: { error: { code: 'conflict' } } });
  });
});

import { OpenApiContract } from '../utils/openapi-contract';
import { waitFor, WebhookReceiver } from '../utils/receiver';
import { startStack, type Stack } from '../utils/stack';

/**
 * The served OpenAPI document against the real API (issue #8): every operation of the document is
 * called at least once through the assembled stack (API + worker + Temporal + PostgreSQL + a
 * loopback receiver), and every response — successes and errors — must match the document:
 * documented status, required headers (`X-Request-ID`, `RateLimit-*`), content type and body
 * schema, with objects closed to undocumented fields. A route added without being exercised here
 * fails the coverage test; a response that drifts from its schema fails the test that made it.
 */
describe('OpenAPI contract', () => {
  let stack: Stack;
  let receiver: WebhookReceiver;
  let contract: OpenApiContract;
  const violations: string[] = [];

  beforeAll(async () => {
    // Rate limits on (and high), so the RateLimit-* headers are documented and checked.
    stack = await startStack({
      config: {
        limits: { api_rate_limit_per_minute: 100_000, schedule_rate_limit_per_minute: 100_000 },
        auth: { dev_login: true },
      },
    });
    receiver = await WebhookReceiver.start();
    receiver.respondWith((request) =>
      request.url.startsWith('/fail') ? { status: 500, body: 'down' } : { status: 200, body: 'ok' },
    );
    contract = await OpenApiContract.fetch(stack.baseUrl);
  });

  afterAll(async () => {
    await stack?.stop();
    await receiver?.stop();
  });

  afterEach(() => {
    const found = violations.splice(0);
    expect(found).toEqual([]);
  });

  /** One exchange, checked against the document; answers the parsed body. */
  async function call(
    method: string,
    path: string,
    options: { body?: unknown; key?: string | null; headers?: Record<string, string> } = {},
  ): Promise<{ status: number; body: any; headers: Headers }> {
    const key = options.key === undefined ? stack.apiKey : options.key;
    const response = await fetch(`${stack.baseUrl}${path}`, {
      method,
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...options.headers,
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const text = await response.text();
    violations.push(...contract.check(method, path, { status: response.status, headers: response.headers, text }));
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      // YAML, Prometheus text
    }
    return { status: response.status, body, headers: response.headers };
  }

  async function settled(runId: string): Promise<any> {
    let run: any;
    await waitFor(async () => {
      run = (await call('GET', `/api/v1/runs/${runId}`)).body;
      return run.status === 'succeeded' || run.status === 'failed';
    }, 30_000);
    return run;
  }

  function jobBody(path: string, name = `contract ${path}`) {
    return {
      name,
      description: 'checked against the OpenAPI document',
      tags: ['contract'],
      schedule: { expr: '0 0 0 1 1 ? 2031', timezone: 'Europe/Berlin' },
      sink: { kind: 'webhook', config: { url: `${receiver.url}${path}` } },
      retry: { max_attempts: 1 },
    };
  }

  describe('public routes', () => {
    it('should match the document for health, version, features, metrics, the document itself and its page', async () => {
      expect((await call('GET', '/healthz', { key: null })).status).toBe(200);
      expect([200, 503]).toContain((await call('GET', '/readyz', { key: null })).status);
      expect((await call('GET', '/version', { key: null })).status).toBe(200);
      expect((await call('GET', '/metrics', { key: null })).status).toBe(200);
      expect((await call('GET', '/api/v1/features', { key: null })).status).toBe(200);
      expect((await call('GET', '/api/v1/openapi.json', { key: null })).status).toBe(200);
      const yaml = await call('GET', '/api/v1/openapi.yaml', { key: null });
      expect(yaml.status).toBe(200);
      expect(String(yaml.body)).toMatch(/^openapi: 3\.1\.0/);
      // The API reference page (issue #26; its content: test/e2e/api-docs.e2e-spec.ts)
      expect((await call('GET', '/api/v1/docs', { key: null })).status).toBe(200);
    });

    it('should match the document for schedule validation and preview, valid and not', async () => {
      const valid = await call('POST', '/api/v1/schedules/validate', { key: null, body: { expr: 'every day at 9am' } });
      expect(valid.body.valid).toBe(true);
      const invalid = await call('POST', '/api/v1/schedules/validate', {
        key: null,
        body: { expr: 'every blue moon' },
      });
      expect(invalid.body.valid).toBe(false);
      const preview = await call('POST', '/api/v1/schedules/preview', {
        key: null,
        body: { expr: '0 9 * * 1-5', timezone: 'America/New_York', count: 3 },
      });
      expect(preview.body.next).toHaveLength(3);
      expect((await call('POST', '/api/v1/schedules/preview', { key: null, body: { expr: 'nope' } })).status).toBe(400);
      expect((await call('POST', '/api/v1/schedules/preview', { key: null, body: { expr: 1 } })).status).toBe(400);
    });
  });

  describe('jobs and runs', () => {
    let jobId: string;
    let failingJobId: string;

    it('should match the document through a job’s life', async () => {
      const created = await call('POST', '/api/v1/jobs', {
        body: jobBody('/ok'),
        headers: { 'Idempotency-Key': 'k1' },
      });
      expect(created.status).toBe(201);
      expect(created.body.signing_secret).toMatch(/^whsec_/);
      // Regression: the create response (built from the inserted row) lacked last_run_status.
      expect(created.body).toMatchObject({ last_run_status: null, last_run_at: null });
      jobId = created.body.id;
      const replayed = await call('POST', '/api/v1/jobs', {
        body: jobBody('/ok'),
        headers: { 'Idempotency-Key': 'k1' },
      });
      expect(replayed.body.id).toBe(jobId);
      expect((await call('GET', '/api/v1/jobs?limit=1&tag=contract')).body.data).toHaveLength(1);
      const one = await call('GET', `/api/v1/jobs/${jobId}`);
      expect(one.body.next_runs.length).toBeGreaterThan(0);
      expect(one.body.stats_24h).toBeDefined();
      const patched = await call('PATCH', `/api/v1/jobs/${jobId}`, {
        body: { description: 'patched', sla_threshold: '5m', retry: { backoff: 'linear' } },
      });
      expect(patched.body.version).toBe(2);
      expect((await call('POST', `/api/v1/jobs/${jobId}/pause`)).body.state).toBe('paused');
      expect((await call('POST', `/api/v1/jobs/${jobId}/resume`)).body.state).toBe('active');
      expect((await call('POST', `/api/v1/jobs/${jobId}/enable`)).status).toBe(409);
      const rotated = await call('POST', `/api/v1/jobs/${jobId}/rotate-signing-secret`);
      expect(rotated.body.signing_secret).toMatch(/^whsec_/);
    });

    it('should match the document for manual runs, their attempts and the run lists', async () => {
      const triggered = await call('POST', `/api/v1/jobs/${jobId}/trigger`);
      expect(triggered.status).toBe(202);
      const run = await settled(triggered.body.run_id);
      expect(run.status).toBe('succeeded');
      expect(run.attempts).toHaveLength(1);
      expect((await call('GET', `/api/v1/jobs/${jobId}/runs?trigger=manual`)).body.data).toHaveLength(1);
      expect((await call('GET', `/api/v1/runs?job_id=${jobId}&limit=5`)).body.data).toHaveLength(1);
      expect((await call('GET', '/api/v1/runs?status=succeeded')).status).toBe(200);
    });

    it('should match the document for a failed run and its manual retry', async () => {
      failingJobId = (await call('POST', '/api/v1/jobs', { body: jobBody('/fail') })).body.id;
      const triggered = await call('POST', `/api/v1/jobs/${failingJobId}/trigger`);
      const failed = await settled(triggered.body.run_id);
      expect(failed.status).toBe('failed');
      expect(failed.last_error).not.toBeNull();
      const retry = await call('POST', `/api/v1/runs/${failed.id}/retry`);
      expect(retry.status).toBe(202);
      expect(retry.body.trigger).toBe('retry_manual');
      expect(retry.body.retry_of).toBe(failed.id);
      await settled(retry.body.id);
      // One manual retry per occurrence: once it has ended, another is 409 conflict.
      expect((await call('POST', `/api/v1/runs/${triggered.body.run_id}/retry`)).status).toBe(409);
      // A finished run cannot be cancelled (409); an unknown one is 404 (the 200 path: run-cancel.e2e-spec.ts).
      const cancelled = await call('POST', `/api/v1/runs/${failed.id}/cancel`);
      expect(cancelled.status).toBe(409);
      expect(cancelled.body.error.code).toBe('conflict');
      expect((await call('POST', '/api/v1/runs/run_01M8G0000000000000000000AA/cancel')).status).toBe(404);
    });

    it('should match the document for bulk actions, recover and their operations', async () => {
      const job = await call('POST', '/api/v1/jobs', { body: { ...jobBody('/bulk'), tags: ['contract-bulk'] } });
      expect(job.status).toBe(201);
      const dry = await call('POST', '/api/v1/jobs/bulk', {
        body: { action: 'pause', filter: { tags: ['contract-bulk'] }, dry_run: true },
      });
      expect(dry.status).toBe(200);
      const bulk = await call('POST', '/api/v1/jobs/bulk', {
        body: {
          action: 'pause',
          filter: { tags: ['contract-bulk'] },
          note: 'contract window',
          resume_at: new Date(Date.now() + 3_600_000).toISOString(),
        },
      });
      expect(bulk.status).toBe(202);
      const operation = `/api/v1/operations/${bulk.body.id}`;
      await waitFor(async () => (await call('GET', operation)).body.status === 'waiting', 30_000);
      expect((await call('GET', `/api/v1/jobs/${job.body.id}`)).body.paused_note).toBe('contract window');
      expect((await call('POST', `${operation}/cancel`)).status).toBe(200);
      await waitFor(async () => (await call('GET', operation)).body.status === 'cancelled', 30_000);
      expect((await call('POST', `${operation}/cancel`)).status).toBe(409);
      expect((await call('GET', '/api/v1/operations/op_01M8G0000000000000000000AA')).status).toBe(404);
      expect((await call('POST', '/api/v1/jobs/bulk', { body: { action: 'delete', filter: {} } })).status).toBe(400);
      const recoverBody = { filter: { job_ids: [failingJobId] } };
      expect((await call('POST', '/api/v1/runs/recover', { body: { ...recoverBody, dry_run: true } })).status).toBe(
        200,
      );
      const recover = await call('POST', '/api/v1/runs/recover', { body: recoverBody });
      expect(recover.status).toBe(202);
      await waitFor(
        async () => (await call('GET', `/api/v1/operations/${recover.body.id}`)).body.status === 'succeeded',
      );
    });

    it('should match the document for backfills: dry run, accepted, progress, cancel', async () => {
      const job = await call('POST', '/api/v1/jobs', {
        body: { ...jobBody('/backfill'), schedule: { expr: '0 * * * *' } },
      });
      expect(job.status).toBe(201);
      const path = `/api/v1/jobs/${job.body.id}/backfill`;
      const range = { from: '2025-03-01T00:00:00Z', to: '2025-03-01T03:00:00Z' };
      const dry = await call('POST', path, { body: { ...range, dry_run: true } });
      expect(dry.status).toBe(200);
      expect(dry.body.occurrences).toBe(3);
      const accepted = await call('POST', path, { body: { ...range, mode: 'sequential' } });
      expect(accepted.status).toBe(202);
      const backfill = `/api/v1/backfills/${accepted.body.backfill_id}`;
      expect((await call('GET', backfill)).status).toBe(200);
      const cancelled = await call('POST', `${backfill}/cancel`);
      expect([200, 409]).toContain(cancelled.status);
      await waitFor(async () => ['cancelled', 'completed'].includes((await call('GET', backfill)).body.status), 30_000);
      expect((await call('POST', `${backfill}/cancel`)).status).toBe(409);
      expect((await call('GET', '/api/v1/backfills/bf_01M8G0000000000000000000AA')).status).toBe(404);
      expect((await call('POST', path, { body: { from: range.to, to: range.from } })).status).toBe(400);
    });

    it('should match the document for jobs as code: PUT, GET and DELETE by key, apply, the jobs file schema', async () => {
      const created = await call('PUT', '/api/v1/jobs/by-key/contract.by-key', { body: jobBody('/by-key') });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ key: 'contract.by-key', managed_by: null });
      expect((await call('PUT', '/api/v1/jobs/by-key/contract.by-key', { body: jobBody('/by-key') })).status).toBe(200);
      const stale = await call('PUT', '/api/v1/jobs/by-key/contract.by-key', {
        body: jobBody('/by-key'),
        headers: { 'If-Match': '"7"' },
      });
      expect(stale.status).toBe(412);
      expect((await call('GET', '/api/v1/jobs/by-key/contract.by-key')).status).toBe(200);
      expect((await call('DELETE', '/api/v1/jobs/by-key/contract.by-key')).status).toBe(204);
      expect((await call('GET', '/api/v1/jobs/by-key/contract.by-key')).status).toBe(404);
      const plan = await call('POST', '/api/v1/jobs/apply', {
        body: { managed_by: 'contract', dry_run: true, jobs: [{ ...jobBody('/apply'), key: 'contract.apply' }] },
      });
      expect(plan.status).toBe(200);
      expect(plan.body.created).toEqual(['contract.apply']);
      const refused = await call('POST', '/api/v1/jobs/apply', { body: { prune: true, jobs: [] } });
      expect(refused.status).toBe(400);
      expect((await call('GET', '/api/v1/schemas/jobs-file.json', { key: null })).status).toBe(200);
    });

    // Regressions (Schemathesis, after issue 42's merge): each a request the document allowed and
    // the server refused for a reason the document did not give.
    it('should take a key of 128 characters in /jobs/by-key/{key}, as the document allows', async () => {
      const doc = (await call('GET', '/api/v1/openapi.json', { key: null })).body;
      const param = doc.paths['/api/v1/jobs/by-key/{key}'].get.parameters.find((p: any) => p.name === 'key');
      expect(param.schema.maxLength).toBe(128);
      // The router refused any path parameter over 100 characters (Fastify's default) before the route ran.
      const key = `k${'0'.repeat(127)}`;
      expect((await call('GET', `/api/v1/jobs/by-key/${key}`)).status).toBe(404);
      const created = await call('PUT', `/api/v1/jobs/by-key/${key}`, { body: jobBody('/long-key') });
      expect({ status: created.status, key: created.body.key }).toEqual({ status: 201, key });
      expect((await call('GET', `/api/v1/jobs/by-key/${key}`)).body.key).toBe(key);
      expect((await call('DELETE', `/api/v1/jobs/by-key/${key}`)).status).toBe(204);
      // Past the document's maxLength: still 400 in the envelope.
      const tooLong = await call('GET', `/api/v1/jobs/by-key/${key}0`);
      expect({ status: tooLong.status, code: tooLong.body.error.code }).toEqual({
        status: 400,
        code: 'validation_failed',
      });
    });

    it('should state the precondition headers of PUT by key as the server parses them', async () => {
      const doc = (await call('GET', '/api/v1/openapi.json', { key: null })).body;
      const ifMatch = new RegExp(doc.components.parameters.IfMatch.schema.pattern);
      expect(doc.components.parameters.IfNoneMatch.schema.enum).toEqual(['*']);
      // An empty If-Match was "schema-valid" (the header was a bare string) and refused with 400.
      expect(['', 'abc', '"0"'].filter((v) => ifMatch.test(v))).toEqual([]);
      const path = '/api/v1/jobs/by-key/contract.preconditions';
      const empty = await call('PUT', path, { body: jobBody('/pre'), headers: { 'If-Match': '' } });
      expect({ status: empty.status, fields: Object.keys(empty.body.error.fields) }).toEqual({
        status: 400,
        fields: ['If-Match'],
      });
      expect((await call('PUT', path, { body: jobBody('/pre'), headers: { 'If-None-Match': '*' } })).status).toBe(201);
      for (const value of ['*', '"1"', 'W/"1"', '1']) {
        expect(ifMatch.test(value)).toBe(true);
        const res = await call('PUT', path, { body: jobBody('/pre'), headers: { 'If-Match': value } });
        expect({ value, status: res.status }).toEqual({ value, status: 200 });
      }
      // Both conditions at once can never hold: 412, an answer about the state (fuzz.sh allows it here).
      const both = await call('PUT', path, {
        body: jobBody('/pre'),
        headers: { 'If-Match': '*', 'If-None-Match': '*' },
      });
      expect({ status: both.status, code: both.body.error.code }).toEqual({ status: 412, code: 'precondition_failed' });
      expect((await call('DELETE', path)).status).toBe(204);
    });

    it('should declare in x-server-checks what it refuses beyond the schema: signing_secret, prune, the body size', async () => {
      const doc = (await call('GET', '/api/v1/openapi.json', { key: null })).body;
      const checks = (path: string, method: string) => Object.keys(doc.paths[path][method]['x-server-checks']);
      const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
      const unsigned = await call('POST', '/api/v1/jobs', {
        body: {
          ...jobBody('/x'),
          sink: { kind: 'temporal_workflow', config: { workflow_type: 'w', task_queue: 'q' } },
          signing_secret: secret,
        },
      });
      expect({ status: unsigned.status, fields: Object.keys(unsigned.body.error.fields) }).toEqual({
        status: 400,
        fields: ['signing_secret'],
      });
      expect(checks('/api/v1/jobs', 'post')).toContain('signing_secret');
      expect(checks('/api/v1/jobs/by-key/{key}', 'put')).toContain('signing_secret');
      const prune = await call('POST', '/api/v1/jobs/apply', { body: { prune: true, jobs: [] } });
      expect({ status: prune.status, fields: Object.keys(prune.body.error.fields) }).toEqual({
        status: 400,
        fields: ['prune'],
      });
      // 5,000 jobs (the document's maxItems) of about 200 bytes each are over the 1 MiB of every request.
      const jobs = Array.from({ length: 5000 }, (_, i) => ({ ...jobBody('/big'), key: `big.${i}` }));
      expect(jobs.length).toBeLessThanOrEqual(doc.components.schemas.ApplyJobsDto.properties.jobs.maxItems);
      const big = await call('POST', '/api/v1/jobs/apply', { body: { dry_run: true, jobs } });
      expect({ status: big.status, fields: Object.keys(big.body.error.fields) }).toEqual({
        status: 400,
        fields: ['body'],
      });
      expect(checks('/api/v1/jobs/apply', 'post')).toEqual(
        expect.arrayContaining(['prune', 'body', 'jobs[].signing_secret']),
      );
    });

    it('should match the document for sink tests of a saved and an unsaved job', async () => {
      const saved = await call('POST', `/api/v1/jobs/${jobId}/test`);
      expect(saved.status).toBe(200);
      expect(saved.body.outcome).toBe('success');
      const unsaved = await call('POST', '/api/v1/jobs/test', { body: jobBody('/fail') });
      expect(unsaved.status).toBe(200);
      expect(unsaved.body.status_code).toBe(500);
      await waitFor(() => receiver.requests.length >= 2);
    });

    it('should match the document for errors: 400, 401, 403, 404, 409', async () => {
      const invalid = await call('POST', '/api/v1/jobs', { body: { name: '', schedule: { expr: 1 } } });
      expect(invalid.status).toBe(400);
      expect(Object.keys(invalid.body.error.fields).length).toBeGreaterThan(0);
      expect((await call('POST', '/api/v1/jobs', { body: jobBody('/x'), key: null })).status).toBe(401);
      expect((await call('GET', '/api/v1/jobs', { key: 'sjs_not_a_key' })).status).toBe(401);
      expect((await call('GET', '/api/v1/jobs/job_01ARZ3NDEKTSV4RRFFQ69G5FAV')).status).toBe(404);
      expect((await call('GET', '/api/v1/runs/not-a-run')).status).toBe(404);
      expect((await call('GET', '/api/v1/jobs?limit=0')).status).toBe(400);
      expect(
        (await call('POST', '/api/v1/jobs', { body: jobBody('/ok'), headers: { 'Idempotency-Key': 'k1' } })).status,
      ).toBe(201);
      const conflict = await call('POST', '/api/v1/jobs', {
        body: jobBody('/other'),
        headers: { 'Idempotency-Key': 'k1' },
      });
      expect(conflict.status).toBe(409);
      // Regression (Schemathesis): what Node's HTTP parser refuses (over 16 KiB of request line and
      // headers) came back as Fastify's own JSON without X-Request-ID.
      const tooLarge = await call('GET', `/api/v1/jobs?tag=${'a'.repeat(20_000)}`);
      expect(tooLarge.status).toBe(431);
      expect(tooLarge.body.error.code).toBe('validation_failed');
      expect(tooLarge.headers.get('x-request-id')).toBeTruthy();
      const readOnly = await call('POST', '/api/v1/api-keys', { body: { name: 'reader', scopes: ['jobs:read'] } });
      expect((await call('POST', '/api/v1/jobs', { body: jobBody('/x'), key: readOnly.body.key })).status).toBe(403);
    });

    it("should accept the document's own request examples", async () => {
      const schemas = (await call('GET', '/api/v1/openapi.json', { key: null })).body.components.schemas;
      const [create] = schemas.CreateJobDto.examples;
      const created = await call('POST', '/api/v1/jobs', { body: create });
      expect(created.status).toBe(201);
      const [update] = schemas.UpdateJobDto.examples;
      expect((await call('PATCH', `/api/v1/jobs/${created.body.id}`, { body: update })).status).toBe(200);
      for (const [path, name] of [
        ['/api/v1/schedules/validate', 'ValidateScheduleBody'],
        ['/api/v1/schedules/preview', 'PreviewScheduleBody'],
      ]) {
        expect([name, (await call('POST', path, { key: null, body: schemas[name].examples[0] })).status]).toEqual([
          name,
          200,
        ]);
      }
    });

    // Regression (Schemathesis, seed 7): PATCH {"auto_disable_threshold": null, "tags": null} was a 500.
    it('should take null on PATCH as the server default, and refuse it where there is none', async () => {
      const patched = await call('PATCH', `/api/v1/jobs/${jobId}`, {
        body: {
          description: null,
          tags: null,
          retry: null,
          timeout: null,
          sla_threshold: null,
          misfire_policy: null,
          overlap_policy: null,
          auto_disable_threshold: null,
        },
      });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({
        description: '',
        tags: [],
        timeout: '30s',
        sla_threshold: null,
        misfire_policy: 'fire_once',
        overlap_policy: 'allow',
        auto_disable_threshold: null,
        retry: { max_attempts: 3, backoff: 'exponential' },
      });
      for (const field of ['name', 'schedule', 'sink']) {
        const refused = await call('PATCH', `/api/v1/jobs/${jobId}`, { body: { [field]: null } });
        expect([field, refused.status, Object.keys(refused.body.error.fields)]).toEqual([field, 400, [field]]);
      }
    });

    it('should match the document for deleting a job', async () => {
      expect((await call('DELETE', `/api/v1/jobs/${failingJobId}`)).status).toBe(204);
      expect((await call('GET', `/api/v1/jobs/${failingJobId}`)).status).toBe(404);
    });
  });

  describe('workspace resources', () => {
    it('should match the document for identity, workspace, usage and stats', async () => {
      const me = await call('GET', '/api/v1/me');
      expect(me.body.workspaces[0].id).toBe(stack.workspaceId);
      expect((await call('GET', `/api/v1/workspaces/${stack.workspaceId}`)).status).toBe(200);
      expect((await call('PATCH', `/api/v1/workspaces/${stack.workspaceId}`, { body: { name: 'Acme' } })).status).toBe(
        200,
      );
      expect(
        (await call('PATCH', `/api/v1/workspaces/${stack.workspaceId}`, { body: { slug: 'Not A Slug' } })).status,
      ).toBe(400);
      expect((await call('GET', '/api/v1/usage')).body.runs).toBeGreaterThan(0);
      expect((await call('GET', '/api/v1/stats/overview?window=7d')).body.window).toBe('7d');
      expect((await call('GET', '/api/v1/stats/overview')).body.window).toBe('24h');
      const hourly = await call('GET', '/api/v1/stats/jobs/hourly?window=24h');
      expect(hourly.body.data.length).toBeGreaterThan(0);
      expect(hourly.body.data[0].buckets).toHaveLength(24);
      const one = hourly.body.data[0].job_id as string;
      expect((await call('GET', `/api/v1/stats/jobs/hourly?job_id=${one},${one}`)).body.data).toHaveLength(1);
      expect((await call('GET', '/api/v1/stats/jobs/hourly?window=1w')).status).toBe(400);
    });

    it('should match the document for API keys', async () => {
      const created = await call('POST', '/api/v1/api-keys', {
        body: { name: 'ci', scopes: ['runs:read'] },
        headers: { 'Idempotency-Key': 'key-1' },
      });
      expect(created.status).toBe(201);
      expect(created.body.key.startsWith(created.body.prefix)).toBe(true);
      const page = await call('GET', '/api/v1/api-keys?limit=1');
      expect(page.body.next_cursor).not.toBeNull();
      expect((await call('GET', `/api/v1/api-keys?cursor=${page.body.next_cursor}`)).status).toBe(200);
      expect((await call('DELETE', `/api/v1/api-keys/${created.body.id}`)).status).toBe(204);
      expect((await call('GET', '/api/v1/me', { key: created.body.key })).status).toBe(401);
    });

    it('should match the document for calendars and skipped occurrences', async () => {
      const name = 'holidays:contract';
      const ics = 'BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nDTSTART;VALUE=DATE:20310102\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n';
      expect((await call('POST', '/api/v1/calendars', { body: { name, dates: ['2031-01-03'] } })).status).toBe(201);
      expect((await call('POST', '/api/v1/calendars', { body: { name, dates: [] } })).status).toBe(409);
      expect((await call('PUT', `/api/v1/calendars/${name}`, { body: { ical: ics } })).status).toBe(200);
      expect((await call('PUT', '/api/v1/calendars/Not-A-Name', { body: { dates: [] } })).status).toBe(400);
      expect((await call('GET', '/api/v1/calendars')).body.data.map((c: any) => c.name)).toEqual([name]);
      expect((await call('GET', `/api/v1/calendars/${name}`)).body.dates).toEqual(['2031-01-02']);
      const base = jobBody('/calendar');
      const job = await call('POST', '/api/v1/jobs', {
        body: { ...base, schedule: { ...base.schedule, exclude_calendars: [name] } },
      });
      expect(job.status).toBe(201);
      expect((await call('DELETE', `/api/v1/calendars/${name}`)).status).toBe(409);

      // 2031-01-01 00:00 in Berlin
      const skip = `/api/v1/jobs/${job.body.id}/occurrences/2030-12-31T23:00:00.000Z/skip`;
      expect((await call('POST', skip, { body: { note: 'contract' } })).status).toBe(200);
      expect((await call('GET', `/api/v1/jobs/${job.body.id}`)).body.skipped_occurrences).toHaveLength(1);
      const notOccurrence = `/api/v1/jobs/${job.body.id}/occurrences/2031-01-01T00:00:00.000Z/skip`;
      expect((await call('POST', notOccurrence, { body: {} })).status).toBe(400);
      expect((await call('DELETE', skip)).status).toBe(204);
      expect((await call('DELETE', skip)).status).toBe(404);

      expect((await call('DELETE', `/api/v1/jobs/${job.body.id}`)).status).toBe(204);
      expect((await call('DELETE', `/api/v1/calendars/${name}`)).status).toBe(204);
      expect((await call('GET', `/api/v1/calendars/${name}`)).status).toBe(404);
    });

    it('should match the document for destination limits', async () => {
      const dest = 'contract.example.com:443';
      const created = await call('PUT', `/api/v1/destinations/${dest}`, { body: { max_in_flight: 3 } });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ destination: dest, max_in_flight: 3, per_minute: null, in_flight: 0 });
      const body = { max_in_flight: 2, per_minute: 60, on_429: 'pause_destination' };
      expect((await call('PUT', `/api/v1/destinations/${dest}`, { body })).status).toBe(200);
      expect((await call('PUT', `/api/v1/destinations/${dest}`, { body: { max_in_flight: 0 } })).status).toBe(400);
      expect((await call('PUT', `/api/v1/destinations/${dest}`, { body: {} })).status).toBe(400);
      expect((await call('PUT', '/api/v1/destinations/Not%20A%20Host', { body })).status).toBe(400);
      expect((await call('GET', '/api/v1/destinations')).body.data.map((d: any) => d.destination)).toEqual([dest]);
      expect((await call('GET', `/api/v1/destinations/${dest}`)).body.held_until).toBeNull();
      expect((await call('DELETE', `/api/v1/destinations/${dest}`)).status).toBe(204);
      expect((await call('DELETE', `/api/v1/destinations/${dest}`)).status).toBe(404);
      expect((await call('GET', `/api/v1/destinations/${dest}`)).status).toBe(404);
    });

    it('should match the document for secrets', async () => {
      expect((await call('PUT', '/api/v1/secrets/TOKEN', { body: { value: 's3cr3t' } })).status).toBe(201);
      expect((await call('PUT', '/api/v1/secrets/TOKEN', { body: { value: 'rotated' } })).status).toBe(200);
      expect((await call('PUT', '/api/v1/secrets/not-a-name', { body: { value: 'x' } })).status).toBe(400);
      expect((await call('GET', '/api/v1/secrets')).body.data.map((s: any) => s.name)).toEqual(['TOKEN']);
      expect((await call('DELETE', '/api/v1/secrets/TOKEN')).status).toBe(204);
      expect((await call('DELETE', '/api/v1/secrets/TOKEN')).status).toBe(404);
    });

    it('should match the document for the audit log', async () => {
      const entries = await call('GET', '/api/v1/audit-log?action=job.create&limit=2');
      expect(entries.body.data.length).toBeGreaterThan(0);
      expect((await call('GET', '/api/v1/audit-log?from=not-a-time')).status).toBe(400);
    });
  });

  describe('dashboard', () => {
    it('should match the document for the dashboard pages, its assets and its config', async () => {
      for (const path of ['/', '/login', '/jobs', '/jobs/job_1', '/runs/run_1', '/settings', '/settings/keys']) {
        expect([path, (await call('GET', path, { key: null })).status]).toEqual([path, 200]);
      }
      const page = await call('GET', '/', { key: null });
      const asset = /\/assets\/([^"']+)/.exec(String(page.body))?.[1];
      expect(asset).toBeDefined();
      expect((await call('GET', `/assets/${asset}`, { key: null })).status).toBe(200);
      // Regression (fuzz finding): an unknown asset was a text/plain 404 instead of the envelope.
      const missing = await call('GET', '/assets/nope.js', { key: null });
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe('not_found');
      expect((await call('GET', '/api/v1/dashboard/config')).status).toBe(200);
    });
  });

  describe('dashboard sessions', () => {
    it('should match the document for dev sign-in, sign-out and provider callbacks without a flow', async () => {
      const signedIn = await call('POST', '/api/v1/auth/dev-login', { key: null, body: { email: 'dev@example.com' } });
      expect(signedIn.status).toBe(200);
      const cookie = (signedIn.headers.get('set-cookie') ?? '').split(';')[0];
      expect((await call('POST', '/api/v1/auth/dev-login', { key: null, body: { email: 'nope' } })).status).toBe(400);
      const out = await call('POST', '/api/v1/auth/logout', {
        key: null,
        headers: { cookie, 'x-csrf-token': signedIn.body.csrf_token },
      });
      expect(out.status).toBe(204);
      // No sign-in provider is configured on this server: whatever it answers must be documented.
      for (const provider of ['github', 'google', 'oidc']) {
        expect((await call('POST', `/api/v1/auth/${provider}/start`, { key: null })).status).toBe(404);
        expect((await call('GET', `/api/v1/auth/${provider}/callback?code=x&state=y`, { key: null })).status).toBe(400);
      }
    });
  });

  describe('alerts', () => {
    it('should match the document for alert channels and rules', async () => {
      const hook = await call('POST', '/api/v1/alert-channels', {
        body: { name: 'hook', kind: 'webhook', config: { url: `${receiver.url}/alert` } },
        headers: { 'Idempotency-Key': 'channel-1' },
      });
      expect(hook.status).toBe(201);
      expect(hook.body.signing_secret).toMatch(/^whsec_/);
      const email = await call('POST', '/api/v1/alert-channels', {
        body: { name: 'mail', kind: 'email', config: { address: 'ops@example.com' } },
      });
      expect(email.body.verified).toBe(false);
      expect(
        (await call('POST', '/api/v1/alert-channels', { body: { name: 'x', kind: 'slack', config: {} } })).status,
      ).toBe(400);
      expect((await call('GET', '/api/v1/alert-channels?limit=1')).body.next_cursor).not.toBeNull();
      expect((await call('GET', `/api/v1/alert-channels/${hook.body.id}`)).body).not.toHaveProperty('signing_secret');
      expect(
        (await call('PATCH', `/api/v1/alert-channels/${hook.body.id}`, { body: { name: 'renamed' } })).status,
      ).toBe(200);
      expect((await call('POST', `/api/v1/alert-channels/${hook.body.id}/test`)).body).toEqual({
        delivered: true,
        error: null,
      });
      // No SMTP on this server: no confirmation can be mailed.
      expect((await call('POST', `/api/v1/alert-channels/${email.body.id}/verify`)).status).toBe(409);
      expect((await call('GET', '/api/v1/alert-channels/verify?token=v1.bad.token', { key: null })).status).toBe(400);

      const rule = await call('POST', '/api/v1/alert-rules', {
        body: { name: 'failures', channel_ids: [hook.body.id], events: ['run.failed'], cooldown: '5m' },
      });
      expect(rule.status).toBe(201);
      expect((await call('GET', '/api/v1/alert-rules')).body.data).toHaveLength(1);
      expect((await call('GET', `/api/v1/alert-rules/${rule.body.id}`)).body.cooldown).toBe('5m');
      expect((await call('PATCH', `/api/v1/alert-rules/${rule.body.id}`, { body: { tags: null } })).status).toBe(200);
      expect((await call('DELETE', `/api/v1/alert-rules/${rule.body.id}`)).status).toBe(204);
      expect((await call('DELETE', `/api/v1/alert-channels/${hook.body.id}`)).status).toBe(204);
      expect((await call('GET', `/api/v1/alert-channels/${hook.body.id}`)).status).toBe(404);
    });
  });

  describe('codec server (docs/operations.md → Payload encryption)', () => {
    it('should answer encode, decode and their preflights as documented (codec off: payloads unchanged)', async () => {
      const payloads = [{ metadata: { encoding: Buffer.from('json/plain').toString('base64') }, data: 'e30=' }];
      for (const path of ['/codec/encode', '/codec/decode']) {
        const response = await call('POST', path, { body: { payloads } });
        expect(response.status).toBe(200);
        expect(response.body).toEqual({ payloads });
        expect((await call('POST', path, { body: { payloads: [{ data: '%' }] } })).status).toBe(400);
        expect((await call('POST', path, { body: { payloads }, key: null })).status).toBe(401);
        expect((await call('OPTIONS', path, { key: null, headers: { origin: 'http://elsewhere.test' } })).status).toBe(
          204,
        );
      }
      const encrypted = {
        metadata: {
          encoding: Buffer.from('binary/encrypted').toString('base64'),
          'encryption-key-id': Buffer.from('k1').toString('base64'),
        },
        data: '',
      };
      const refused = await call('POST', '/codec/decode', { body: { payloads: [encrypted] } });
      expect(refused.status).toBe(400);
      expect(refused.body.error.fields['payloads.0']).toContain('key id "k1"');
    });
  });

  it('should have exercised every operation of the document', () => {
    const missed = contract.operations().filter((op) => !contract.covered.has(op));
    expect(missed).toEqual([]);
  });
});

import { Webhook } from 'standardwebhooks';
import { TestDnsServer } from '../utils/dns-server';
import { apiClient, type Stack, startStack, useStackAndReceiver } from '../utils/stack';

/**
 * Sink tests (issue #9; spec: Jobs → `POST /jobs/{id}/test`, `POST /jobs/test`; Events → Sink
 * test): exactly one real, signed request, sent synchronously under the job's timeout and the
 * server's network rules; the answer is `{outcome, status_code, duration_ms, response_body,
 * request_summary}` (+ `error`), and nothing is recorded.
 */
describe('sink tests', () => {
  const e2e = useStackAndReceiver({ worker: false });

  beforeAll(async () => {
    // The worker is not needed: a sink test is sent by the API process itself.
    await e2e.api('PUT', '/api/v1/secrets/API_TOKEN', { value: 'tok-sink-test-1' });
  });

  beforeEach(() => {
    e2e.receiver.respondWith(() => ({ status: 200, body: 'ok' }));
  });

  const jobBody = (path: string, config: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
    name: `sink test ${path}`,
    schedule: { expr: '0 0 0 1 1 ? 2031' },
    sink: { kind: 'webhook', config: { url: `${e2e.receiver.url}${path}`, ...config } },
    ...extra,
  });

  async function createJob(path: string, config: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
    const created = await e2e.api('POST', '/api/v1/jobs', jobBody(path, config, extra));
    expect(created.status).toBe(201);
    return created.body as { id: string; signing_secret: string; version: number; updated_at: string };
  }

  /** Rows a sink test must not add or change. */
  async function recorded() {
    const [counts] = await e2e.stack.dataSource.query(
      `SELECT (SELECT count(*)::int FROM runs) AS runs, (SELECT count(*)::int FROM attempts) AS attempts,
              (SELECT count(*)::int FROM audit_log) AS audit,
              (SELECT coalesce(sum(runs), 0)::int FROM usage_counters) AS usage,
              (SELECT json_agg(json_build_object('id', id, 'version', version, 'updated_at', updated_at,
                 'consecutive_failures', consecutive_failures, 'last_run_at', last_run_at) ORDER BY id) FROM jobs) AS jobs`,
    );
    return counts;
  }

  const to = (path: string) => e2e.receiver.requests.filter((r) => r.url === path);

  describe('POST /api/v1/jobs/{id}/test', () => {
    it('should send one signed request as configured and answer with the result, recording nothing', async () => {
      const job = await createJob('/saved', {
        method: 'PUT',
        headers: { Authorization: 'Bearer {{secret.API_TOKEN}}', 'X-Job': '{{job.id}} {{job.name}} {{run.attempt}}' },
        body: '{"run":"{{run.id}}","at":"{{run.scheduled_at}}","fired":"{{fired_at}}"}',
      });
      e2e.receiver.respondWith(() => ({ status: 201, body: 'created it' }));
      const before = await recorded();

      const res = await e2e.api('POST', `/api/v1/jobs/${job.id}/test`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        outcome: 'success',
        status_code: 201,
        duration_ms: expect.any(Number),
        response_body: 'created it',
        request_summary: expect.stringMatching(new RegExp(`^PUT ${e2e.receiver.url}/saved \\(\\d+ bytes\\)$`)),
        error: null,
      });

      const [request] = to('/saved');
      expect(to('/saved')).toHaveLength(1);
      expect(request.method).toBe('PUT');
      expect(request.headers.authorization).toBe('Bearer tok-sink-test-1');
      expect(request.headers['x-job']).toBe(`${job.id} sink test /saved 0`);
      expect(request.headers['svc-test']).toBe('true');
      expect(request.headers['svc-job-id']).toBe(job.id);
      const body = JSON.parse(request.body);
      expect(body.run).toMatch(/^run_[0-9A-HJKMNP-TV-Z]{26}$/);
      expect(request.headers['webhook-id']).toBe(body.run);
      expect(request.headers['idempotency-key']).toBe(body.run);
      // Signed with the job's own secret, like a delivery.
      expect(new Webhook(job.signing_secret).verify(request.body, request.headers as Record<string, string>)).toEqual(
        body,
      );
      expect(await recorded()).toEqual(before);
      const [{ n }] = await e2e.stack.dataSource.query('SELECT count(*)::int AS n FROM runs WHERE id = $1', [body.run]);
      expect(n).toBe(0);
    });

    it('should return the classification and body of a failing receiver', async () => {
      const job = await createJob('/failing');
      e2e.receiver.respondWith(() => ({ status: 503, body: 'down for maintenance', headers: { 'retry-after': '5' } }));
      const res = await e2e.api('POST', `/api/v1/jobs/${job.id}/test`);
      expect(res.body).toMatchObject({
        outcome: 'retryable',
        status_code: 503,
        response_body: 'down for maintenance',
        error: 'HTTP 503',
      });
      e2e.receiver.respondWith(() => ({ status: 404, body: 'no such hook' }));
      expect((await e2e.api('POST', `/api/v1/jobs/${job.id}/test`)).body).toMatchObject({
        outcome: 'fatal',
        status_code: 404,
        response_body: 'no such hook',
      });
      expect(to('/failing')).toHaveLength(2);
    });

    it("should give up at the job's timeout", async () => {
      const job = await createJob('/slow', {}, { timeout: '1s' });
      e2e.receiver.respondWith(() => ({ status: 200, delayMs: 3_000 }));
      const res = await e2e.api('POST', `/api/v1/jobs/${job.id}/test`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        outcome: 'retryable',
        status_code: null,
        response_body: null,
        error: 'timeout: no response within 1000 ms',
      });
      expect(res.body.duration_ms).toBeGreaterThanOrEqual(1_000);
      expect(res.body.duration_ms).toBeLessThan(3_000);
    });

    it('should read at most 64 KiB of the response', async () => {
      const job = await createJob('/big');
      e2e.receiver.respondWith(() => ({ status: 500, body: 'x'.repeat(100 * 1024) }));
      const res = await e2e.api('POST', `/api/v1/jobs/${job.id}/test`);
      expect(res.body.response_body).toHaveLength(64 * 1024);
    });

    it('should answer 404 for an unknown job and for a job of another workspace, sending nothing', async () => {
      const job = await createJob('/private');
      const other = await e2e.stack.newWorkspaceKey('sink-test-other');
      const res = await apiClient(e2e.stack.baseUrl, other.apiKey)('POST', `/api/v1/jobs/${job.id}/test`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
      expect((await e2e.api('POST', '/api/v1/jobs/job_01ARZ3NDEKTSV4RRFFQ69G5FAV/test')).status).toBe(404);
      expect(to('/private')).toHaveLength(0);
    });
  });

  describe('POST /api/v1/jobs/test', () => {
    it('should send one request for an unsaved job body and save nothing', async () => {
      const before = await recorded();
      const res = await e2e.api(
        'POST',
        '/api/v1/jobs/test',
        jobBody('/unsaved', {
          method: 'PATCH',
          headers: { 'X-Token': '{{secret.API_TOKEN}}' },
          body: 'n={{job.name}}',
        }),
      );
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ outcome: 'success', status_code: 200, response_body: 'ok', error: null });
      const [request] = to('/unsaved');
      expect(request).toMatchObject({ method: 'PATCH', body: 'n=sink test /unsaved' });
      expect(request.headers['x-token']).toBe('tok-sink-test-1');
      expect(request.headers['svc-test']).toBe('true');
      expect(request.headers['svc-job-id']).toMatch(/^job_/);
      expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(await recorded()).toEqual(before);
      const [{ n }] = await e2e.stack.dataSource.query('SELECT count(*)::int AS n FROM jobs WHERE id = $1', [
        request.headers['svc-job-id'],
      ]);
      expect(n).toBe(0);
    });

    it('should validate the body like a create: 400 naming the fields, nothing sent', async () => {
      const cases: Array<[unknown, Record<string, unknown>]> = [
        [{}, { name: expect.any(String), schedule: expect.any(String), sink: expect.any(String) }],
        [
          jobBody('/invalid', { headers: { 'X-A': 'x {{run.idd}}' } }),
          {
            'sink.config.headers.X-A': expect.stringMatching(
              /^unknown template variable "\{\{run\.idd\}\}" at byte 2 \(length 11\)/,
            ),
          },
        ],
        [
          jobBody('/invalid', { body: 'é{{secret.NOPE}}' }),
          { 'sink.config.body': 'unknown secret "NOPE" at byte 2 (length 15)' },
        ],
        [
          jobBody('/invalid', { headers: { 'Webhook-Signature': 'v1,forged' } }),
          { 'sink.config.headers.Webhook-Signature': 'header "Webhook-Signature" is reserved and cannot be set' },
        ],
        [jobBody('/invalid', { method: 'TRACE' }), { 'sink.config.method': expect.any(String) }],
        [{ ...jobBody('/invalid'), schedule: { expr: 'every blue moon' } }, { 'schedule.expr': expect.any(String) }],
        [{ ...jobBody('/invalid'), timeout: '10m' }, { timeout: expect.any(String) }],
        [{ ...jobBody('/invalid'), unknown_field: 1 }, { unknown_field: expect.any(String) }],
      ];
      for (const [body, fields] of cases) {
        const res = await e2e.api('POST', '/api/v1/jobs/test', body);
        expect({ body, status: res.status, code: res.body.error?.code }).toEqual({
          body,
          status: 400,
          code: 'validation_failed',
        });
        expect(res.body.error.fields).toEqual(expect.objectContaining(fields));
      }
      expect(to('/invalid')).toHaveLength(0);
    });
  });

  describe('network rules', () => {
    let dns: TestDnsServer;
    let hosted: Stack;
    let hostedApi: ReturnType<typeof apiClient>;

    beforeAll(async () => {
      dns = await TestDnsServer.start(({ name, type }) =>
        name === 'rebind.test' && type === 'A' ? ['127.0.0.1'] : [],
      );
      hosted = await startStack({
        worker: false,
        config: { mode: 'hosted', sinks: { webhook: { dns_servers: [dns.address] } } },
      });
      hostedApi = apiClient(hosted.baseUrl, hosted.apiKey);
    });

    afterAll(async () => {
      await hosted?.stop();
      await dns?.stop();
    });

    it('should refuse a URL the rules refuse on their own with 400, like a create', async () => {
      const res = await hostedApi('POST', '/api/v1/jobs/test', jobBody('/loopback'));
      expect(res.status).toBe(400);
      expect(res.body.error.fields['sink.config.url']).toMatch(/^destination not allowed/);
      expect(to('/loopback')).toHaveLength(0);
    });

    it('should fail as network_blocked when the resolved address is refused, sending nothing', async () => {
      const body = { ...jobBody('/x'), sink: { kind: 'webhook', config: { url: 'http://rebind.test/hook' } } };
      const created = await hostedApi('POST', '/api/v1/jobs', body);
      expect(created.status).toBe(201);
      for (const res of [
        await hostedApi('POST', `/api/v1/jobs/${created.body.id}/test`),
        await hostedApi('POST', '/api/v1/jobs/test', body),
      ]) {
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({
          outcome: 'fatal',
          status_code: null,
          response_body: null,
          error: expect.stringMatching(
            /^network_blocked: destination not allowed \(rebind\.test resolves to a loopback address\)$/,
          ),
        });
      }
      expect(dns.queriesFor('rebind.test').length).toBeGreaterThan(0);
    });
  });
});

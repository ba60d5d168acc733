import { Client, Connection } from '@temporalio/client';
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { type ReceivedRequest, waitFor, WebhookReceiver } from '../utils/receiver';
import { apiClient, startStack, type Stack } from '../utils/stack';
import { captureProcessOutput } from '../utils/output-capture';

/**
 * Templates and `{{secret.NAME}}` at send time (issue #9; spec: Sink: webhook configuration;
 * decisions.md → Templates, Secrets): a job's configured method, custom headers and body reach the
 * receiver with every template variable rendered and the secrets decrypted by the worker (a
 * separate process, built from dist/); then no secret value is anywhere it must not be — in no
 * row of any table of the test's database, no API response, no Temporal history of the runs, and
 * no line the worker or the (verbose) API logged — even though one receiver echoes every request
 * back in its error responses.
 */
describe('delivery with templates and secrets', () => {
  const CANARY = `leak-canary-${randomBytes(8).toString('hex')}`;
  const BODY_CANARY = `body-canary-${randomBytes(8).toString('hex')}`;
  const SECRET_VALUES = [CANARY, BODY_CANARY];

  let stack: Stack;
  let receiver: WebhookReceiver;
  let api: ReturnType<typeof apiClient>;
  let connection: Connection;
  const logged: string[] = [];
  const responses: string[] = [];
  const restores: Array<() => void> = [];
  const runIds: string[] = [];

  beforeAll(async () => {
    // Every write of this process to stdout/stderr (the API's Nest logger at every level, Fastify,
    // console) is captured; the worker's output comes from its own process.
    restores.push(captureProcessOutput(logged));
    stack = await startStack({ worker: false, apiLogLevels: ['log', 'error', 'warn', 'debug', 'verbose'] });
    await stack.spawnWorker();
    receiver = await WebhookReceiver.start();
    receiver.respondWith((request) =>
      request.url.startsWith('/echo')
        ? { status: 500, body: JSON.stringify({ you_sent: { headers: request.headers, body: request.body } }) }
        : { status: 200, body: 'ok' },
    );
    const call = apiClient(stack.baseUrl, stack.apiKey);
    api = async (...args: Parameters<typeof call>) => {
      const response = await call(...args);
      responses.push(JSON.stringify(response.body));
      return response;
    };
    connection = await Connection.connect({ address: stack.config.temporal.address });
    expect((await api('PUT', '/api/v1/secrets/API_TOKEN', { value: CANARY })).status).toBe(201);
    expect((await api('PUT', '/api/v1/secrets/BODY_KEY', { value: BODY_CANARY })).status).toBe(201);
  });

  afterAll(async () => {
    await connection?.close();
    await stack?.stop();
    await receiver?.stop();
    restores.forEach((restore) => restore());
  });

  const ALL_VARIABLES = '{{run.id}}|{{run.scheduled_at}}|{{run.attempt}}|{{job.id}}|{{job.name}}|{{fired_at}}';

  function jobBody(path: string, config: Record<string, unknown>, extra: Record<string, unknown> = {}) {
    return {
      name: `templated ${path}`,
      schedule: { expr: '0 0 0 1 1 ? 2031' },
      sink: { kind: 'webhook', config: { url: `${receiver.url}${path}`, ...config } },
      ...extra,
    };
  }

  async function runToEnd(jobId: string): Promise<{ run: any; requests: ReceivedRequest[] }> {
    const triggered = await api('POST', `/api/v1/jobs/${jobId}/trigger`);
    expect(triggered.status).toBe(202);
    const runId: string = triggered.body.run_id;
    runIds.push(runId);
    const run = await waitFor(async () => {
      const current = await api('GET', `/api/v1/runs/${runId}`);
      return ['succeeded', 'failed'].includes(current.body.status) ? current.body : null;
    }, 30_000);
    return { run, requests: receiver.requests.filter((r) => r.headers['webhook-id'] === runId) };
  }

  it('should deliver the configured method, headers and body with every variable and the secrets rendered', async () => {
    const created = await api(
      'POST',
      '/api/v1/jobs',
      jobBody('/templated', {
        method: 'PUT',
        headers: { Authorization: 'Bearer {{ secret.API_TOKEN }}', 'X-Vars': ALL_VARIABLES },
        body:
          '{"run":"{{run.id}}","scheduled":"{{run.scheduled_at}}","attempt":{{run.attempt}},"job":"{{job.id}}",' +
          '"name":"{{job.name}}","fired":"{{fired_at}}","key":"{{secret.BODY_KEY}}"}',
      }),
    );
    expect(created.status).toBe(201);
    const job = created.body;
    expect(JSON.stringify(job)).not.toContain(CANARY);

    const { run, requests } = await runToEnd(job.id);
    expect(run.status).toBe('succeeded');
    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request.method).toBe('PUT');
    expect(request.headers.authorization).toBe(`Bearer ${CANARY}`);
    const body = JSON.parse(request.body);
    expect(body).toEqual({
      run: run.id,
      scheduled: run.scheduled_at.replace('.000Z', 'Z'),
      attempt: 0,
      job: job.id,
      name: 'templated /templated',
      fired: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/),
      key: BODY_CANARY,
    });
    expect(request.headers['x-vars']).toBe(
      `${run.id}|${body.scheduled}|0|${job.id}|templated /templated|${body.fired}`,
    );
    expect(Math.abs(Date.parse(body.fired) - Date.parse(run.attempts[0].started_at))).toBeLessThan(1_000);
    expect(new Webhook(job.signing_secret).verify(request.body, request.headers as Record<string, string>)).toEqual(
      body,
    );
    expect(run.attempts[0].request_summary).toMatch(new RegExp(`^PUT ${receiver.url}/templated \\(\\d+ bytes\\)$`));
  });

  it('should store a receiver echoing the secrets back with the values redacted', async () => {
    const created = await api(
      'POST',
      '/api/v1/jobs',
      jobBody(
        '/echo',
        { headers: { 'X-Api-Key': '{{secret.API_TOKEN}}' }, body: 'key={{secret.BODY_KEY}}' },
        { retry: { max_attempts: 2, initial_interval: '1s' } },
      ),
    );
    const { run, requests } = await runToEnd(created.body.id);
    expect(requests).toHaveLength(2);
    expect(requests[0].headers['x-api-key']).toBe(CANARY);
    expect(run).toMatchObject({ status: 'failed', last_error: 'HTTP 500 (after 2 attempts)' });
    for (const attempt of run.attempts) {
      expect(attempt).toMatchObject({ outcome: 'retryable', status_code: 500 });
      expect(attempt.response_body).toContain('[redacted]');
    }

    // A sink test of the same job answers the echo redacted as well.
    const tested = await api('POST', `/api/v1/jobs/${created.body.id}/test`);
    expect(tested.body).toMatchObject({ outcome: 'retryable', status_code: 500 });
    expect(tested.body.response_body).toContain('"x-api-key":"[redacted]"');
    expect(tested.body.response_body).toContain('key=[redacted]');

    const unsaved = await api('POST', '/api/v1/jobs/test', jobBody('/echo-unsaved', { body: '{{secret.API_TOKEN}}' }));
    expect(unsaved.body.response_body).toContain('[redacted]');

    // And a PATCH and a value replacement add audit entries around the same secrets.
    expect(
      (await api('PATCH', `/api/v1/jobs/${created.body.id}`, { description: 'uses {{secret.API_TOKEN}}' })).status,
    ).toBe(200);
  });

  it('should refuse unknown variables and secrets at create and PATCH with their byte positions, changing nothing', async () => {
    const refused = await api(
      'POST',
      '/api/v1/jobs',
      jobBody('/never', { headers: { 'X-Run': 'id={{run.uuid}}' }, body: 'ü{{ secret.NOT_THERE }}' }),
    );
    expect(refused.status).toBe(400);
    expect(refused.body.error.fields).toEqual({
      'sink.config.headers.X-Run': expect.stringMatching(
        /^unknown template variable "\{\{run\.uuid\}\}" at byte 3 \(length 12\); allowed: /,
      ),
      'sink.config.body': 'unknown secret "NOT_THERE" at byte 2 (length 22)',
    });

    const job = (await api('POST', '/api/v1/jobs', jobBody('/patched', { body: '{{run.id}}' }))).body;
    const patched = await api('PATCH', `/api/v1/jobs/${job.id}`, {
      sink: { kind: 'webhook', config: { url: `${receiver.url}/patched`, body: '{{run.id}} {{fired}}' } },
    });
    expect(patched.status).toBe(400);
    expect(patched.body.error.fields['sink.config.body']).toMatch(
      /^unknown template variable "\{\{fired\}\}" at byte 11 \(length 9\)/,
    );
    const after = (await api('GET', `/api/v1/jobs/${job.id}`)).body;
    expect(after).toMatchObject({ version: job.version, sink: { config: { body: '{{run.id}}' } } });
  });

  describe('no secret value anywhere', () => {
    it('should be in no row of any table', async () => {
      const tables: Array<{ tablename: string }> = await stack.dataSource.query(
        `SELECT tablename FROM pg_tables WHERE schemaname = 'public'`,
      );
      expect(tables.map((t) => t.tablename)).toEqual(expect.arrayContaining(['attempts', 'audit_log', 'runs', 'jobs']));
      const leaks: string[] = [];
      let rows = 0;
      for (const { tablename } of tables) {
        // row_to_json renders bytea as hex: a value stored unencrypted in a binary column shows too.
        const dump: Array<{ row: string }> = await stack.dataSource.query(
          `SELECT row_to_json(t)::text AS row FROM "${tablename}" t`,
        );
        rows += dump.length;
        for (const { row } of dump) {
          for (const value of SECRET_VALUES) {
            if (row.includes(value) || row.includes(Buffer.from(value).toString('hex'))) {
              leaks.push(`${tablename}: ${row.slice(0, 200)}`);
            }
          }
        }
      }
      expect(rows).toBeGreaterThan(10);
      expect(leaks).toEqual([]);
    });

    it('should be in no API response', () => {
      expect(responses.length).toBeGreaterThan(5);
      const all = responses.join('\n');
      expect(SECRET_VALUES.filter((value) => all.includes(value))).toEqual([]);
    });

    it('should be in no Temporal history of the runs (activity inputs, results and failures)', async () => {
      const client = new Client({ connection, namespace: stack.config.temporal.namespace });
      expect(runIds).toHaveLength(2);
      for (const runId of runIds) {
        const history = await client.workflow.getHandle(runId).fetchHistory();
        const text = JSON.stringify(history, (_key, value: unknown) =>
          value instanceof Uint8Array ? Buffer.from(value).toString('utf8') : value,
        );
        expect(text).toContain(runId);
        expect(SECRET_VALUES.filter((value) => text.includes(value))).toEqual([]);
      }
    });

    it('should be in no line the worker or the API logged', () => {
      const worker = stack.spawnedWorkerOutput();
      expect(worker).toContain('polling task queue'); // the worker's log was captured
      const apiLog = logged.join('');
      expect(apiLog).toContain('Mapped {/api/v1/jobs/:id/test, POST} route'); // so was the verbose API's
      expect(SECRET_VALUES.filter((value) => worker.includes(value) || apiLog.includes(value))).toEqual([]);
    });
  });
});

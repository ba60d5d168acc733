import { createDataSource } from '@svc/persistence';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import type { DataSource } from 'typeorm';
import { bootstrap } from '../../apps/cli/src/commands/bootstrap';
import { createTestDatabase } from '../utils/database';
import { waitFor, WebhookReceiver } from '../utils/receiver';
import { apiClient, TEST_SECRETS_ENCRYPTION_KEY, temporalAddress } from '../utils/stack';

/** One built process (dist/) and everything it wrote, line by line. */
interface Service {
  name: string;
  child: ChildProcess;
  stdout: string[];
  stderr: string[];
  exited: Promise<number | null>;
}

const DIST = resolve(__dirname, '../../dist/apps');

/**
 * Logs (issue #13 → Logs; docs/operations.md → Logs): the API and the worker, run as the built
 * processes at `LOG_LEVEL=trace`, write nothing but JSON lines; the lines of a request carry its
 * `request_id`, `workspace_id`, `job_id` and `run_id`, the worker's lines about a run its `run_id`,
 * `job_id` and attempt; and after a realistic session (API keys, secrets, a webhook job whose
 * headers and body hold a secret, deliveries that fail and retry, a rotated signing secret, sink
 * tests, a refused key, a dashboard session) no secret value, API key, signing secret, session
 * cookie or CSRF token is anywhere in what either process wrote.
 */
describe('logs: JSON lines with context, and no secret in them', () => {
  const tag = randomBytes(6).toString('hex');
  const SECRET_VALUE = `secret-value-${tag}`;
  const SESSION_SECRET_VALUE = `session-secret-${tag}`;
  const REFUSED_SECRET_VALUE = `refused-secret-${tag}`;
  const STATIC_HEADER_VALUE = `static-header-${tag}`;
  const SMTP_PASSWORD = `smtp-password-${tag}`;
  const BOGUS_KEY = `sjs_${randomBytes(30)
    .toString('base64')
    .replace(/[^0-9A-Za-z]/g, 'x')
    .slice(0, 40)}`;
  const BOGUS_X_API_KEY = `x-api-key-${tag}`;
  const REQUEST_ID = `logs-e2e-${tag}`;

  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let dataSource: DataSource;
  let receiver: WebhookReceiver;
  let api: Service;
  let worker: Service;
  let workspaceId: string;
  /** Every value that must never be logged, filled in as the flow creates them. */
  const secrets: Record<string, string> = {
    SECRET_VALUE,
    SESSION_SECRET_VALUE,
    REFUSED_SECRET_VALUE,
    STATIC_HEADER_VALUE,
    SMTP_PASSWORD,
    BOGUS_KEY,
    BOGUS_X_API_KEY,
    SECRETS_ENCRYPTION_KEY: TEST_SECRETS_ENCRYPTION_KEY,
  };
  const ids: { jobId?: string; runId?: string } = {};

  function start(name: 'api' | 'worker', env: Record<string, string>): Service {
    const child = spawn(process.execPath, [resolve(DIST, name, 'src/main.js')], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const service: Service = {
      name,
      child,
      stdout: [],
      stderr: [],
      exited: new Promise((done) => child.once('exit', (code) => done(code))),
    };
    for (const [stream, lines] of [
      [child.stdout!, service.stdout],
      [child.stderr!, service.stderr],
    ] as const) {
      let partial = '';
      stream.on('data', (chunk: Buffer) => {
        const parts = (partial + chunk.toString('utf8')).split('\n');
        partial = parts.pop()!;
        lines.push(...parts);
      });
      stream.on('end', () => partial && lines.push(partial));
    }
    return service;
  }

  /** The parsed lines of a service (a line that is not JSON fails the test that reads it). */
  const parsed = (service: Service) =>
    [...service.stdout, ...service.stderr].filter((line) => line.trim() !== '').map((line) => JSON.parse(line));

  async function stop(service: Service | undefined): Promise<void> {
    if (!service || service.child.exitCode !== null) {
      return;
    }
    service.child.kill('SIGTERM');
    const timer = setTimeout(() => service.child.kill('SIGKILL'), 20_000);
    await service.exited;
    clearTimeout(timer);
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    dataSource = await createDataSource(db.url).initialize();
    const boot = await bootstrap(dataSource, { slug: `logs-${tag}`, plan: 'self_hosted' });
    secrets.BOOTSTRAP_KEY = boot.apiKey;
    workspaceId = boot.workspaceId;
    receiver = await WebhookReceiver.start();
    // The first delivery of each run fails with the request echoed back (secret header included),
    // so the run retries and the worker handles a response that holds the secret.
    const seen = new Set<string>();
    receiver.respondWith((request) => {
      const runId = String(request.headers['svc-run-id'] ?? '');
      if (request.url.startsWith('/hook') && !seen.has(runId)) {
        seen.add(runId);
        return { status: 503, body: JSON.stringify({ you_sent: { headers: request.headers, body: request.body } }) };
      }
      return { status: 200, body: 'ok' };
    });
    const env = {
      DATABASE_URL: db.url,
      TEMPORAL_ADDRESS: temporalAddress(),
      TEMPORAL_TASK_QUEUE: `svc-test-logs-${process.pid}-${tag}`,
      SECRETS_ENCRYPTION_KEY: TEST_SECRETS_ENCRYPTION_KEY,
      LOG_LEVEL: 'trace',
      HOST: '127.0.0.1',
      PORT: '0',
      LIMITS_API_RATE_LIMIT_PER_MINUTE: '0',
      SCHEDULER_RECONCILE_INTERVAL: '1h',
      METRICS_WORKER_PORT: '0',
      METRICS_TEMPORAL_SDK_PORT: '0',
      AUTH_DEV_LOGIN: 'true',
      AUTH_JOIN_WORKSPACE: `logs-${tag}`,
      AUTH_JOIN_ROLE: 'owner',
      // Configured but never reached (no email channel): its password is one more value to look for.
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: '2',
      SMTP_FROM: 'alerts@example.com',
      SMTP_USER: 'alerts',
      SMTP_PASSWORD,
      OTEL_SDK_DISABLED: 'true',
    };
    worker = start('worker', env);
    api = start('api', env);
    await waitFor(() => worker.stdout.some((line) => line.includes('polling task queue')), 60_000);
    await waitFor(() => api.stdout.some((line) => line.includes('API listening')), 60_000);
  });

  afterAll(async () => {
    await stop(api);
    await stop(worker);
    await receiver?.stop();
    await dataSource?.destroy();
    await db?.drop();
  });

  it('should run a session of keys, secrets, deliveries, rotation, sink tests and sign-ins', async () => {
    const listening = parsed(api).find((line) => line.msg === 'API listening');
    const baseUrl = String(listening.url).replace('[::1]', '127.0.0.1');
    const boot = apiClient(baseUrl, secrets.BOOTSTRAP_KEY);

    expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200); // a probe: its access line is debug
    const key = await boot('POST', '/api/v1/api-keys', { name: 'logs e2e' });
    expect(key.status).toBe(201);
    secrets.CREATED_KEY = key.body.key;
    const call = apiClient(baseUrl, secrets.CREATED_KEY);

    expect((await call('PUT', '/api/v1/secrets/RECEIVER_TOKEN', { value: SECRET_VALUE })).status).toBe(201);
    const job = await call('POST', '/api/v1/jobs', {
      name: 'logs e2e',
      schedule: { expr: '0 0 0 1 1 ? 2031' },
      sink: {
        kind: 'webhook',
        config: {
          url: `${receiver.url}/hook`,
          headers: { Authorization: 'Bearer {{secret.RECEIVER_TOKEN}}', 'X-Static-Token': STATIC_HEADER_VALUE },
          body: '{"token":"{{secret.RECEIVER_TOKEN}}","run":"{{run.id}}"}',
        },
      },
      retry: { max_attempts: 3, initial_interval: '100ms', jitter: 0 },
    });
    expect(job.status).toBe(201);
    ids.jobId = job.body.id;
    secrets.SIGNING_SECRET = job.body.signing_secret;
    expect(secrets.SIGNING_SECRET).toMatch(/^whsec_/);

    const trigger = await call('POST', `/api/v1/jobs/${ids.jobId}/trigger`, undefined, { 'x-request-id': REQUEST_ID });
    expect(trigger.status).toBe(202);
    expect(trigger.headers.get('x-request-id')).toBe(REQUEST_ID);
    ids.runId = trigger.body.run_id;
    const run = await waitFor(async () => {
      const got = await call('GET', `/api/v1/runs/${ids.runId}`);
      return got.body.status === 'succeeded' ? got.body : null;
    }, 30_000);
    expect(run.attempts.map((a: { outcome: string }) => a.outcome)).toEqual(['retryable', 'success']);

    const rotated = await call('POST', `/api/v1/jobs/${ids.jobId}/rotate-signing-secret`);
    expect(rotated.status).toBe(200);
    secrets.ROTATED_SIGNING_SECRET = rotated.body.signing_secret;
    expect(secrets.ROTATED_SIGNING_SECRET).toMatch(/^whsec_/);

    const sinkTest = await call('POST', `/api/v1/jobs/${ids.jobId}/test`);
    expect(sinkTest.status).toBe(200);
    const unsavedTest = await call('POST', '/api/v1/jobs/test', {
      name: 'unsaved',
      schedule: { expr: 'every 5 minutes' },
      sink: {
        kind: 'webhook',
        config: { url: `${receiver.url}/unsaved`, headers: { 'X-Token': '{{secret.RECEIVER_TOKEN}}' } },
      },
    });
    expect(unsavedTest.status).toBe(200);

    // A refused key (shaped like one) with a stray X-Api-Key, and a secret write that fails validation.
    const refused = await apiClient(baseUrl, BOGUS_KEY)('GET', '/api/v1/jobs', undefined, {
      'x-api-key': BOGUS_X_API_KEY,
    });
    expect(refused.status).toBe(401);
    const invalid = await call('PUT', '/api/v1/secrets/not a name', { value: REFUSED_SECRET_VALUE, extra: 1 });
    expect([400, 404]).toContain(invalid.status);

    // A dashboard session: dev login, a read and a mutation with the cookie and the CSRF token.
    const login = await fetch(`${baseUrl}/api/v1/auth/dev-login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ada@example.com' }),
    });
    expect(login.status).toBe(200);
    const cookie = login.headers.getSetCookie().find((c) => c.startsWith('svc_session='))!;
    secrets.SESSION_TOKEN = cookie.split(';')[0].slice('svc_session='.length);
    secrets.CSRF_TOKEN = ((await login.json()) as { csrf_token: string }).csrf_token;
    const session = apiClient(baseUrl);
    const sessionHeaders = { cookie: `svc_session=${secrets.SESSION_TOKEN}`, 'svc-workspace': workspaceId };
    expect((await session('GET', '/api/v1/me', undefined, sessionHeaders)).status).toBe(200);
    const put = await session(
      'PUT',
      '/api/v1/secrets/FROM_DASHBOARD',
      { value: SESSION_SECRET_VALUE },
      {
        ...sessionHeaders,
        'x-csrf-token': secrets.CSRF_TOKEN,
      },
    );
    expect(put.status).toBe(201);

    // The secret did travel: the receiver got it from the worker (deliveries) and the API (tests).
    const withSecret = receiver.requests.filter((r) => r.headers.authorization === `Bearer ${SECRET_VALUE}`);
    expect(withSecret.length).toBeGreaterThanOrEqual(3); // two attempts and the job's sink test
    expect(receiver.requests.some((r) => r.headers['x-token'] === SECRET_VALUE)).toBe(true);

    // Both processes end (flushing what they wrote) before the logs are read.
    await stop(api);
    await stop(worker);
  });

  it('should have written nothing but JSON lines, at every level the flow reached', () => {
    for (const service of [api, worker]) {
      const lines = [...service.stdout, ...service.stderr].filter((line) => line.trim() !== '');
      const notJson = lines.filter((line) => {
        try {
          const value = JSON.parse(line);
          return value === null || typeof value !== 'object' || typeof value.msg !== 'string';
        } catch {
          return true;
        }
      });
      expect([service.name, notJson]).toEqual([service.name, []]);
      const levels = new Set(parsed(service).map((line) => line.level));
      expect([service.name, [...levels].sort()]).toEqual([service.name, expect.arrayContaining(['debug', 'info'])]);
      for (const line of parsed(service)) {
        expect(line).toMatchObject({ name: service.name, time: expect.any(String), level: expect.any(String) });
      }
    }
  });

  it("should give the trigger's access line its request, workspace, job and run, and every access line its shape", () => {
    const access = parsed(api).filter((line) => line.msg === 'request');
    expect(access.length).toBeGreaterThanOrEqual(10);
    for (const line of access) {
      expect(line).toEqual(
        expect.objectContaining({
          request_id: expect.any(String),
          method: expect.any(String),
          route: expect.any(String),
          status: expect.any(Number),
          duration_ms: expect.any(Number),
        }),
      );
      expect(line.url).toBeUndefined();
    }
    const trigger = access.find((line) => line.request_id === REQUEST_ID);
    expect(trigger).toMatchObject({
      level: 'info',
      method: 'POST',
      route: '/api/v1/jobs/:id/trigger',
      status: 202,
      workspace_id: workspaceId,
      job_id: ids.jobId,
      run_id: ids.runId,
    });
    const runRead = access.find((line) => line.route === '/api/v1/runs/:id');
    expect(runRead).toMatchObject({ method: 'GET', status: 200, workspace_id: workspaceId, run_id: ids.runId });
    const refused = access.find((line) => line.status === 401);
    expect(refused).toMatchObject({ route: '/api/v1/jobs', method: 'GET' });
    expect(refused.workspace_id).toBeUndefined();
  });

  it("should put the run, job, workspace and attempt on the worker's lines about the run", () => {
    const lines = parsed(worker);
    const ofRun = lines.filter((line) => line.workflow_id === ids.runId || line.run_id === ids.runId);
    // Every line about the run's workflow names the run; `attempt` is only ever the run's own.
    for (const line of ofRun) {
      expect(line.run_id).toBe(ids.runId);
      expect([undefined, 0, 1]).toContain(line.attempt);
    }
    // The activity's own lines and the SDK's lines about its outcome carry job, workspace and attempt.
    const outcomes = ofRun.filter((line) =>
      [
        'attempt failed; retrying',
        'attempt succeeded; run succeeded',
        'Activity failed',
        'Activity completed',
      ].includes(line.msg),
    );
    expect(outcomes.map((line) => [line.msg, line.attempt, line.activity_attempt])).toEqual(
      expect.arrayContaining([
        ['attempt failed; retrying', 0, 1],
        ['Activity failed', 0, 1],
        ['attempt succeeded; run succeeded', 1, 2],
        ['Activity completed', 1, 2],
      ]),
    );
    for (const line of outcomes) {
      expect(line).toMatchObject({ job_id: ids.jobId, workspace_id: workspaceId, activity_type: 'runAttempt' });
    }
    expect(outcomes.find((line) => line.msg === 'attempt failed; retrying')).toMatchObject({
      level: 'warn',
      outcome: 'retryable',
      status_code: 503,
      retry_in_ms: expect.any(Number),
    });
    expect(outcomes.find((line) => line.msg === 'attempt succeeded; run succeeded')).toMatchObject({
      level: 'info',
      outcome: 'success',
      status_code: 200,
      status: 'succeeded',
    });
  });

  it('should contain no secret value, API key, signing secret, session cookie or CSRF token', () => {
    const everything = [api, worker].flatMap((service) => [...service.stdout, ...service.stderr]).join('\n');
    expect(everything.length).toBeGreaterThan(10_000);
    expect(Object.keys(secrets).sort()).toEqual(
      [
        'BOGUS_KEY',
        'BOGUS_X_API_KEY',
        'BOOTSTRAP_KEY',
        'CREATED_KEY',
        'CSRF_TOKEN',
        'REFUSED_SECRET_VALUE',
        'ROTATED_SIGNING_SECRET',
        'SECRETS_ENCRYPTION_KEY',
        'SECRET_VALUE',
        'SESSION_SECRET_VALUE',
        'SESSION_TOKEN',
        'SIGNING_SECRET',
        'SMTP_PASSWORD',
        'STATIC_HEADER_VALUE',
      ].sort(),
    );
    const found = Object.entries(secrets)
      .filter(([, value]) => value && everything.includes(value))
      .map(([name]) => name);
    expect(found).toEqual([]);
    expect(everything).not.toMatch(/whsec_/);
    expect(everything).not.toMatch(/sjs_[0-9A-Za-z]{40}/);
    expect(everything).not.toMatch(/svc_session=/);
  });
});

import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { type AppConfig, buildConfig } from '@svc/common';
import { AesGcmPayloadCodec } from '@svc/common/payload-codec';
import { jobWorkflowId } from '@svc/workflow-contract/definitions';
import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { createApp } from '../../apps/api/src/app';
import { WorkerModule } from '../../apps/worker/src/worker.module';
import { waitFor, WebhookReceiver } from '../utils/receiver';
import { apiClient, startStack, type Stack } from '../utils/stack';

/**
 * Issue #20, payloads encrypted at rest (docs/operations.md → Payload encryption and the codec
 * server). One deployment on a real Temporal dev server: it runs with the codec off first, then
 * its API and worker are restarted with the codec on (same database, same task queue), as an
 * operator would switch it on.
 */

/** Public test keys: never use them anywhere else. */
const KEY_1 = Buffer.from('svc e2e payload codec key one!!!').toString('base64');
const KEY_9 = Buffer.from('svc e2e payload codec key nine!!').toString('base64');
const UI_ORIGIN = 'http://temporal-ui.test:8233';
/** A zone no other suite uses: job data that enters the job workflow's input (the schedule snapshot). */
const ZONE = 'Pacific/Chatham';

/**
 * Search attributes are not payloads the codec sees (Temporal must index them); they carry only
 * ids (job, workspace, trigger), so the searches below leave them out.
 */
const SEARCH_ATTRIBUTES = new Set(['searchAttributes', 'upsertWorkflowSearchAttributesEventAttributes']);
/**
 * The SDK core's own bookkeeping in markers, written without the data converter: a patch marker's
 * patch id (`patch-data`) and a local activity marker's type, attempt and times (`data`). The
 * local activity's result sits beside them (`result`) and is encrypted.
 */
const MARKER_BOOKKEEPING = new Set(['patch-data', 'data']);

function entriesOf(node: object): unknown[] {
  const record = node as Record<string, unknown>;
  return Object.entries(record)
    .filter(([key]) => !SEARCH_ATTRIBUTES.has(key))
    .map(([key, value]) => {
      if (key === 'details' && typeof record.markerName === 'string' && value && typeof value === 'object') {
        return Object.fromEntries(Object.entries(value).filter(([name]) => !MARKER_BOOKKEEPING.has(name)));
      }
      return value as unknown;
    });
}

/** Every payload in a history (objects with a `metadata` map naming an `encoding`), wherever it sits. */
function payloadsIn(node: unknown, found: Payload[] = []): Payload[] {
  if (node === null || typeof node !== 'object' || node instanceof Uint8Array) {
    return found;
  }
  const record = node as Record<string, unknown>;
  if (record.metadata && typeof record.metadata === 'object' && 'encoding' in (record.metadata as object)) {
    found.push(record as Payload);
  }
  for (const value of entriesOf(record)) {
    payloadsIn(value, found);
  }
  return found;
}

/** All bytes and strings of a history as one latin1 string, to search for plain text. */
function rawText(node: unknown): string {
  if (node instanceof Uint8Array) {
    return Buffer.from(node).toString('latin1');
  }
  if (typeof node === 'string') {
    return node;
  }
  if (node === null || typeof node !== 'object') {
    return '';
  }
  return entriesOf(node).map(rawText).join('\u0000');
}

function metaText(payload: Payload, key: string): string {
  return Buffer.from(payload.metadata?.[key] ?? new Uint8Array()).toString('utf8');
}

function toWire(payload: Payload) {
  return {
    metadata: Object.fromEntries(
      Object.entries(payload.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v!).toString('base64')]),
    ),
    data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64'),
  };
}

function fromWire(wire: { metadata: Record<string, string>; data: string }): Payload {
  return {
    metadata: Object.fromEntries(Object.entries(wire.metadata).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
    data: Buffer.from(wire.data, 'base64'),
  };
}

describe('payload encryption (temporal.codec)', () => {
  let stack: Stack;
  let receiver: WebhookReceiver;
  let connection: Connection;
  /** Reads histories as Temporal stores them: no codec. */
  let rawClient: Client;
  let codecConfig: AppConfig;
  let codecApp: NestFastifyApplication;
  let codecWorker: INestApplicationContext | null = null;
  let codecBaseUrl: string;
  let plainJobId: string;
  let switchedAt: number;

  /** The deployment's config with the codec on under `keys` (same database and task queue). */
  function configWithKeys(keys: Record<string, string>): AppConfig {
    return buildConfig(
      {
        scheduler: { reconcile_interval: '1h' },
        limits: { api_rate_limit_per_minute: 0 },
        secrets: stack.config.secrets,
        metrics: { worker_port: 0, temporal_sdk_port: 0, enabled: false },
        auth: { dev_login: true, join_workspace: 'acme', join_role: 'owner' },
        temporal: { ui_url: `${UI_ORIGIN}/namespaces/default`, codec: { keys } },
      },
      {
        DATABASE_URL: stack.config.database.url,
        TEMPORAL_ADDRESS: stack.config.temporal.address,
        TEMPORAL_TASK_QUEUE: stack.config.temporal.task_queue,
        PORT: '0',
      },
    );
  }

  async function startWorker(config: AppConfig): Promise<INestApplicationContext> {
    // Errors only: the worker without the key logs the failed workflow task (expected below).
    const worker = await NestFactory.createApplicationContext(WorkerModule.forRoot(config), { logger: false });
    await worker.init();
    return worker;
  }

  async function history(workflowId: string) {
    return rawClient.workflow.getHandle(workflowId).fetchHistory();
  }

  async function succeededRuns(baseUrl: string, jobId: string) {
    const api = apiClient(baseUrl, stack.apiKey);
    const runs = (await api('GET', `/api/v1/runs?job_id=${jobId}&limit=200`)).body.data as Array<{
      id: string;
      status: string;
      scheduled_at: string;
    }>;
    return runs.filter((run) => run.status === 'succeeded');
  }

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    stack = await startStack({
      config: {
        auth: { dev_login: true, join_workspace: 'acme', join_role: 'owner' },
        temporal: { ui_url: `${UI_ORIGIN}/namespaces/default` },
      },
    });
    connection = await Connection.connect({ address: stack.config.temporal.address });
    rawClient = new Client({ connection, namespace: stack.config.temporal.namespace });

    // Codec off: a job whose workflow (plain history) keeps running across the switch.
    const api = apiClient(stack.baseUrl, stack.apiKey);
    const created = await api('POST', '/api/v1/jobs', {
      name: 'plain-before-codec',
      schedule: { expr: 'every 2 seconds', timezone: ZONE },
      sink: { kind: 'webhook', config: { url: `${receiver.url}/plain` } },
    });
    expect(created.status).toBe(201);
    plainJobId = created.body.id;
    await waitFor(async () => (await succeededRuns(stack.baseUrl, plainJobId)).length > 0, 30_000);

    // The switch: worker and API restarted with the codec on, same database and task queue.
    await stack.stopWorker();
    switchedAt = Date.now();
    codecConfig = configWithKeys({ k1: KEY_1 });
    codecWorker = await startWorker(codecConfig);
    codecApp = await createApp({ config: codecConfig, logLevels: ['error'] });
    await codecApp.listen(0, '127.0.0.1');
    codecBaseUrl = (await codecApp.getUrl()).replace('[::1]', '127.0.0.1');
  });

  afterAll(async () => {
    await codecWorker?.close();
    await codecApp?.close();
    await connection?.close();
    await stack?.stop();
    await receiver?.stop();
  });

  describe('histories in Temporal', () => {
    it('should hold none of the job’s name, URL, tags or zone in plain text, every payload encrypted', async () => {
      const api = apiClient(codecBaseUrl, stack.apiKey);
      const secret = {
        name: 'codec-secret-job-name',
        path: 'codec-secret-url-path',
        tag: 'codec-secret-tag',
      };
      const job = await api('POST', '/api/v1/jobs', {
        name: secret.name,
        schedule: { expr: 'every day at 3am', timezone: ZONE },
        tags: [secret.tag],
        sink: { kind: 'webhook', config: { url: `${receiver.url}/${secret.path}` } },
      });
      expect(job.status).toBe(201);
      const triggered = await api('POST', `/api/v1/jobs/${job.body.id}/trigger`);
      expect(triggered.status).toBe(202);
      const runId = triggered.body.run_id as string;
      await waitFor(async () => (await api('GET', `/api/v1/runs/${runId}`)).body.status === 'succeeded', 30_000);
      expect(receiver.forJob(job.body.id)).toHaveLength(1);

      for (const workflowId of [jobWorkflowId(job.body.id), runId]) {
        const events = await history(workflowId);
        const payloads = payloadsIn(events);
        expect(payloads.length).toBeGreaterThan(0);
        for (const payload of payloads) {
          expect(metaText(payload, 'encoding')).toBe('binary/encrypted');
          expect(metaText(payload, 'encryption-key-id')).toBe('k1');
        }
        const raw = rawText(events);
        for (const word of [secret.name, secret.path, secret.tag, ZONE, receiver.url, 'json/plain']) {
          expect(raw).not.toContain(word);
        }
      }
    });

    it('should show the same search finding the job data in the plain history written before the switch', async () => {
      const raw = rawText(await history(jobWorkflowId(plainJobId)));
      expect(raw).toContain(ZONE);
      expect(raw).toContain('json/plain');
    });
  });

  describe('switching the codec on for a running deployment', () => {
    it('should keep the job workflow of plain history firing under the codec worker, new payloads encrypted', async () => {
      const after = await waitFor(async () => {
        const runs = await succeededRuns(codecBaseUrl, plainJobId);
        return runs.find((run) => Date.parse(run.scheduled_at) > switchedAt + 2_000) ?? null;
      }, 30_000);
      const events = await history(jobWorkflowId(plainJobId));
      const encodings = new Set(payloadsIn(events).map((p) => metaText(p, 'encoding')));
      expect(encodings).toContain('json/plain'); // written before the switch, read by the codec worker
      expect(encodings).toContain('binary/encrypted'); // written after it
      const runPayloads = payloadsIn(await history(after.id));
      expect(runPayloads.every((p) => metaText(p, 'encoding') === 'binary/encrypted')).toBe(true);
    });
  });

  describe('POST /codec/decode and /codec/encode', () => {
    async function workerWrittenPayload(): Promise<{ payload: Payload; runId: string }> {
      const api = apiClient(codecBaseUrl, stack.apiKey);
      const runId = (await succeededRuns(codecBaseUrl, plainJobId))[0].id;
      const events = (await history(runId)).events ?? [];
      const scheduled = events.find((e) => e.activityTaskScheduledEventAttributes)!;
      expect(api).toBeDefined();
      return { payload: scheduled.activityTaskScheduledEventAttributes!.input!.payloads![0] as Payload, runId };
    }

    it('should decode what the worker wrote, with an API key', async () => {
      const { payload, runId } = await workerWrittenPayload();
      expect(metaText(payload, 'encoding')).toBe('binary/encrypted');
      const api = apiClient(codecBaseUrl, stack.apiKey);
      const decoded = await api('POST', '/codec/decode', { payloads: [toWire(payload)] }, { 'x-namespace': 'default' });
      expect(decoded.status).toBe(200);
      const plain = fromWire(decoded.body.payloads[0]);
      expect(metaText(plain, 'encoding')).toBe('json/plain');
      expect(JSON.stringify(defaultPayloadConverter.fromPayload(plain))).toContain(runId);
    });

    it('should pass plain payloads (histories from before the switch) through unchanged', async () => {
      const plain = defaultPayloadConverter.toPayload({ hello: 'plain' });
      const api = apiClient(codecBaseUrl, stack.apiKey);
      const decoded = await api('POST', '/codec/decode', { payloads: [toWire(plain)] });
      expect(decoded.status).toBe(200);
      expect(decoded.body.payloads).toEqual([toWire(plain)]);
    });

    it('should refuse a __proto__ metadata name with 400 in the envelope (JSON prototype poisoning), never a 500', async () => {
      const api = apiClient(codecBaseUrl, stack.apiKey);
      const body = '{"payloads":[{"metadata":{"__proto__":"AQI=","encoding":"anNvbi9wbGFpbg=="},"data":"e30="}]}';
      for (const path of ['/codec/encode', '/codec/decode']) {
        const response = await api('POST', path, body);
        expect(response.status).toBe(400);
        expect(response.body.error.code).toEqual(expect.any(String));
      }
    });

    it('should encode with the current key, and decode its own output', async () => {
      const api = apiClient(codecBaseUrl, stack.apiKey);
      const plain = toWire(defaultPayloadConverter.toPayload({ n: 1 }));
      const encoded = await api('POST', '/codec/encode', { payloads: [plain] });
      expect(encoded.status).toBe(200);
      expect(metaText(fromWire(encoded.body.payloads[0]), 'encryption-key-id')).toBe('k1');
      const decoded = await api('POST', '/codec/decode', encoded.body);
      expect(decoded.body.payloads).toEqual([plain]);
    });

    it('should answer a payload of an unknown key id with 400 naming the key id', async () => {
      const other = AesGcmPayloadCodec.create({ keys: { k9: KEY_9 }, encryptKeyId: 'k9' });
      const [foreign] = await other.encode([defaultPayloadConverter.toPayload('x')]);
      const api = apiClient(codecBaseUrl, stack.apiKey);
      const plain = toWire(defaultPayloadConverter.toPayload('fine'));
      const response = await api('POST', '/codec/decode', { payloads: [plain, toWire(foreign)] });
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({
        code: 'validation_failed',
        fields: {
          'payloads.1': 'payload encrypted with unknown key id "k9": add that key to temporal.codec.keys (known: k1)',
        },
      });
      expect(JSON.stringify(response.body)).not.toContain(KEY_1);
    });

    it('should refuse the same payload on an API with the codec off, naming the key id', async () => {
      const { payload } = await workerWrittenPayload();
      const response = await apiClient(stack.baseUrl, stack.apiKey)('POST', '/codec/decode', {
        payloads: [toWire(payload)],
      });
      expect(response.status).toBe(400);
      expect(response.body.error.fields['payloads.0']).toBe(
        'payload encrypted with key id "k1", but the payload codec is off (temporal.codec.keys is not set)',
      );
    });

    it.each([
      ['not base64 data', { payloads: [{ metadata: {}, data: 'not base64!' }] }, 'payloads.0.data'],
      ['metadata that is not base64', { payloads: [{ metadata: { encoding: '%%' } }] }, 'payloads.0.metadata'],
      ['no payloads', {}, 'payloads'],
    ])('should answer %s with 400 validation_failed', async (_, body, field) => {
      const response = await apiClient(codecBaseUrl, stack.apiKey)('POST', '/codec/decode', body);
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('validation_failed');
      expect(Object.keys(response.body.error.fields)).toContain(field);
    });

    it('should answer 401 without credentials, and with a revoked or unknown key', async () => {
      const body = { payloads: [] };
      for (const key of [undefined, 'sjs_not_a_key']) {
        const response = await apiClient(codecBaseUrl, key)('POST', '/codec/decode', body);
        expect(response.status).toBe(401);
        expect(response.body.error.code).toBe('unauthorized');
      }
    });

    it('should accept the dashboard session cookie without a CSRF token (the Temporal UI sends none)', async () => {
      const login = await fetch(`${codecBaseUrl}/api/v1/auth/dev-login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'operator@example.com' }),
      });
      expect(login.status).toBeLessThan(300);
      const cookie = login.headers
        .getSetCookie()
        .find((c) => c.startsWith('svc_session='))!
        .split(';')[0];
      const { payload } = await workerWrittenPayload();
      const response = await apiClient(codecBaseUrl)(
        'POST',
        '/codec/decode',
        { payloads: [toWire(payload)] },
        { cookie },
      );
      expect(response.status).toBe(200);
      expect(metaText(fromWire(response.body.payloads[0]), 'encoding')).toBe('json/plain');
    });
  });

  describe('a worker without the key of a payload', () => {
    it('should fail the workflow task (retried) with a message naming the key id, and recover once a worker has the key', async () => {
      await codecWorker?.close();
      codecWorker = null;
      const keyless = await startWorker(configWithKeys({ k9: KEY_9 }));
      let runId: string;
      try {
        const api = apiClient(codecBaseUrl, stack.apiKey);
        const job = await api('POST', '/api/v1/jobs', {
          name: 'codec-rotation-gap',
          schedule: { expr: 'every day at 3am', timezone: ZONE },
          sink: { kind: 'webhook', config: { url: `${receiver.url}/gap` } },
        });
        const triggered = await api('POST', `/api/v1/jobs/${job.body.id}/trigger`);
        expect(triggered.status).toBe(202);
        runId = triggered.body.run_id as string;
        const failed = await waitFor(async () => {
          const events = (await history(runId)).events ?? [];
          return events.find((e) => e.workflowTaskFailedEventAttributes)?.workflowTaskFailedEventAttributes ?? null;
        }, 30_000);
        // The failure's message and stack are encrypted too (under the key the failing worker has).
        expect(failed.failure?.message).toBe('Encoded failure');
        const k9 = AesGcmPayloadCodec.create({ keys: { k9: KEY_9 }, encryptKeyId: 'k9' });
        const [attributes] = await k9.decode([failed.failure!.encodedAttributes as Payload]);
        const { message } = defaultPayloadConverter.fromPayload<{ message: string }>(attributes);
        expect(message).toBe(
          'payload encrypted with unknown key id "k1": add that key to temporal.codec.keys (known: k9)',
        );
        expect(JSON.stringify(await history(runId))).not.toContain(KEY_1);
      } finally {
        await keyless.close();
      }
      // The worker with the key takes the retried workflow task: the run completes.
      codecWorker = await startWorker(codecConfig);
      const api = apiClient(codecBaseUrl, stack.apiKey);
      await waitFor(async () => (await api('GET', `/api/v1/runs/${runId}`)).body.status === 'succeeded', 90_000);
    }, 150_000);
  });

  describe('CORS', () => {
    async function preflight(origin: string) {
      return fetch(`${codecBaseUrl}/codec/decode`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization,content-type,x-namespace',
        },
      });
    }

    it('should grant the configured Temporal UI origin, with credentials and the UI’s headers', async () => {
      const response = await preflight(UI_ORIGIN);
      expect(response.status).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
      expect(response.headers.get('access-control-allow-credentials')).toBe('true');
      expect(response.headers.get('access-control-allow-methods')).toContain('POST');
      expect(response.headers.get('access-control-allow-headers')).toEqual(
        expect.stringContaining('authorization, content-type, x-namespace'),
      );
      const post = await apiClient(codecBaseUrl, stack.apiKey)(
        'POST',
        '/codec/decode',
        { payloads: [] },
        {
          origin: UI_ORIGIN,
        },
      );
      expect(post.status).toBe(200);
      expect(post.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
      const refused = await apiClient(codecBaseUrl)('POST', '/codec/decode', { payloads: [] }, { origin: UI_ORIGIN });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    });

    it('should give any other origin no grant', async () => {
      for (const origin of ['http://evil.test', 'http://temporal-ui.test:9999', 'null']) {
        const response = await preflight(origin);
        expect(response.headers.get('access-control-allow-origin')).toBeNull();
        expect(response.headers.get('access-control-allow-credentials')).toBeNull();
        const post = await apiClient(codecBaseUrl, stack.apiKey)('POST', '/codec/decode', { payloads: [] }, { origin });
        expect(post.headers.get('access-control-allow-origin')).toBeNull();
      }
    });
  });
});

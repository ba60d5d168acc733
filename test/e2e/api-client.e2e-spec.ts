import { createApiClient } from '@svc/api-client';
import { request } from 'node:http';
import { waitFor, WebhookReceiver } from '../utils/receiver';
import { startStack, type Stack } from '../utils/stack';

/** Methods an HTTP client may send; a path's undeclared ones must answer 405 (docs/api.md). */
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'TRACE', 'QUERY', 'OPTIONS'];

/** One raw exchange (node:http, which sends TRACE and QUERY as they are, unlike fetch). */
function send(
  baseUrl: string,
  method: string,
  path: string,
  apiKey: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(`${baseUrl}${path}`, { method, headers: { authorization: `Bearer ${apiKey}` } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      res.on('end', () => {
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON: the assertion below says so
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * The typed client generated from the OpenAPI document (libs/api-client) against the assembled
 * stack, and the document's paths answering undeclared methods with 405 and `Allow`.
 */
describe('typed API client and the exact contract', () => {
  let stack: Stack;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    stack = await startStack({ config: { limits: { api_rate_limit_per_minute: 100_000 } } });
    receiver = await WebhookReceiver.start();
  });

  afterAll(async () => {
    await stack?.stop();
    await receiver?.stop();
  });

  it('should create a job, trigger it, read its runs and delete it through the generated client', async () => {
    const client = createApiClient({
      baseUrl: stack.baseUrl,
      headers: { authorization: `Bearer ${stack.apiKey}` },
    });
    const created = await client.POST('/api/v1/jobs', {
      body: {
        name: 'typed client',
        schedule: { expr: 'every day at 3am' },
        sink: { kind: 'webhook', config: { url: `${receiver.url}/typed` } },
        retry: { max_attempts: 1 },
      },
    });
    expect(created.response.status).toBe(201);
    const job = created.data!;
    expect(job).toMatchObject({ name: 'typed client', state: 'active', sink: { kind: 'webhook' } });

    const triggered = await client.POST('/api/v1/jobs/{id}/trigger', { params: { path: { id: job.id } } });
    expect(triggered.response.status).toBe(202);
    const runId = triggered.data!.run_id;

    let status: string | undefined;
    await waitFor(async () => {
      const runs = await client.GET('/api/v1/jobs/{id}/runs', {
        params: { path: { id: job.id }, query: { limit: 10 } },
      });
      status = runs.data?.data.find((run) => run.id === runId)?.status;
      return status === 'succeeded';
    }, 30_000);
    expect(status).toBe('succeeded');
    expect(receiver.requests.some((r) => r.url === '/typed')).toBe(true);
    const run = await client.GET('/api/v1/runs/{id}', { params: { path: { id: runId } } });
    expect(run.data).toMatchObject({ id: runId, job_id: job.id, trigger: 'manual', status: 'succeeded' });
    expect(run.data!.attempts).toHaveLength(1);

    const deleted = await client.DELETE('/api/v1/jobs/{id}', { params: { path: { id: job.id } } });
    expect(deleted.response.status).toBe(204);
    const gone = await client.GET('/api/v1/jobs/{id}', { params: { path: { id: job.id } } });
    expect(gone.response.status).toBe(404);
    expect(gone.error).toMatchObject({ error: { code: 'not_found' } });
  });

  it('should answer every undeclared method of every path of the document with 405 and Allow', async () => {
    const document = (await (await fetch(`${stack.baseUrl}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const checked: string[] = [];
    for (const [template, operations] of Object.entries(document.paths)) {
      const declared = Object.keys(operations).map((m) => m.toUpperCase());
      const path = template.replace(/\{[^}]+\}/g, 'x');
      for (const method of METHODS.filter((m) => !declared.includes(m))) {
        const res = await send(stack.baseUrl, method, path, stack.apiKey);
        const allow = String(res.headers.allow ?? '')
          .split(',')
          .map((m) => m.trim());
        expect({ method, path, status: res.status, code: res.body?.error?.code }).toEqual({
          method,
          path,
          status: 405,
          code: 'method_not_allowed',
        });
        expect({ method, path, missing: declared.filter((m) => !allow.includes(m)) }).toEqual({
          method,
          path,
          missing: [],
        });
        expect(res.headers['x-request-id']).toBeTruthy();
        checked.push(`${method} ${template}`);
      }
    }
    expect(checked.length).toBeGreaterThan(Object.keys(document.paths).length);
    // A path parameter longer than the router takes (`maxParamLength`, 128: the document's
    // maxLength) is a 400 in the envelope, with X-Request-ID (it was Fastify's own 414 JSON).
    const long = await send(stack.baseUrl, 'GET', `/api/v1/jobs/${'a'.repeat(129)}`, stack.apiKey);
    expect(long.headers['ratelimit-remaining']).toBeDefined(); // counted like every /api/v1 request
    expect({ status: long.status, code: long.body?.error?.code, id: Boolean(long.headers['x-request-id']) }).toEqual({
      status: 400,
      code: 'validation_failed',
      id: true,
    });
    // Unknown paths stay 404, whatever the method.
    for (const method of ['GET', 'TRACE', 'POST']) {
      const res = await send(stack.baseUrl, method, '/api/v1/no-such-thing', stack.apiKey);
      expect({ method, status: res.status, code: res.body?.error?.code }).toEqual({
        method,
        status: 404,
        code: 'not_found',
      });
    }
  });
});

import { request } from 'node:http';
import { apiClient, startStack, type Stack } from '../utils/stack';

type Json = Record<string, any>;

/**
 * A request without a body is accepted whatever its Content-Type says (issue #26 item 11): many
 * HTTP clients send `Content-Type: application/json` with no body on a DELETE or an action POST.
 * Every operation of the served OpenAPI document is enumerated, so a route added later is covered
 * without editing this file: each one that takes no body answers a body-less request with any
 * Content-Type exactly as it answers one without the header, and each one that needs a body
 * answers an empty one with `400 validation_failed`.
 */
describe('requests without a body', () => {
  let stack: Stack;
  let doc: Json;
  const CONTENT_TYPES = [
    'application/json',
    'application/json; charset=utf-8',
    'text/plain',
    'application/xml',
    'not a media type',
  ];

  beforeAll(async () => {
    stack = await startStack({ worker: false, config: { auth: { dev_login: true } } });
    doc = (await (await fetch(`${stack.baseUrl}/api/v1/openapi.json`)).json()) as Json;
  });

  afterAll(async () => {
    await stack?.stop();
  });

  /** Every operation as [method, path template, has a request body]. */
  function operations(): Array<[string, string, boolean]> {
    return Object.entries(doc.paths as Json).flatMap(([path, ops]) =>
      Object.entries(ops as Json)
        .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
        .map(([method, op]): [string, string, boolean] => [method.toUpperCase(), path, Boolean(op.requestBody)]),
    );
  }

  /** A concrete path: every `{param}` filled with a well-formed id that names nothing. */
  const concrete = (template: string) =>
    template.replace(/\{([^}]+)\}/g, (_m, name: string) =>
      name === 'name' ? 'MISSING_SECRET' : `${name.replace(/_?id$/, '') || 'x'}_01J00000000000000000000000`,
    );

  async function send(method: string, path: string, contentType?: string, body?: string) {
    const response = await fetch(`${stack.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${stack.apiKey}`,
        ...(contentType ? { 'content-type': contentType } : {}),
      },
      body,
    });
    const text = await response.text();
    return { status: response.status, body: (text.startsWith('{') ? JSON.parse(text) : text) as any };
  }

  /** A request whose body is chunked and ends at once: no Content-Length, zero body bytes. */
  function sendChunkedEmpty(method: string, path: string, contentType: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const req = request(
        `${stack.baseUrl}${path}`,
        {
          method,
          headers: {
            authorization: `Bearer ${stack.apiKey}`,
            'content-type': contentType,
            'transfer-encoding': 'chunked',
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  it('should enumerate the operations of the document, with and without a body', () => {
    const all = operations();
    expect(all.filter(([, , hasBody]) => !hasBody).length).toBeGreaterThan(20);
    expect(all.filter(([, , hasBody]) => hasBody).length).toBeGreaterThan(5);
  });

  it('should answer a body-less request to every operation without a body the same whatever its Content-Type', async () => {
    const differences: string[] = [];
    for (const [method, template] of operations().filter(([, , hasBody]) => !hasBody)) {
      if (template.includes('/auth/')) {
        continue; // sign-in redirects and logout: covered by the session tests, stateful per call
      }
      const path = concrete(template);
      const plain = await send(method, path);
      for (const contentType of CONTENT_TYPES) {
        const typed = await send(method, path, contentType);
        const bodyError = typed.body?.error?.fields?.body;
        if (typed.status !== plain.status || bodyError !== undefined) {
          differences.push(
            `${method} ${template} with ${contentType}: ${typed.status} ${JSON.stringify(typed.body?.error ?? '')}, without: ${plain.status}`,
          );
        }
      }
    }
    expect(differences).toEqual([]);
  });

  it('should answer an empty body to every operation that needs one with 400 validation_failed', async () => {
    const wrong: string[] = [];
    for (const [method, template] of operations().filter(([, , hasBody]) => hasBody)) {
      if (!doc.paths[template][method.toLowerCase()].requestBody.required) {
        continue;
      }
      for (const contentType of ['application/json', 'text/plain']) {
        const answer = await send(method, concrete(template), contentType, '');
        if (answer.status !== 400 || answer.body?.error?.code !== 'validation_failed') {
          wrong.push(`${method} ${template} with ${contentType}: ${answer.status} ${JSON.stringify(answer.body)}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('should still refuse a non-empty body that is not JSON, and malformed JSON', async () => {
    const xml = await send('POST', '/api/v1/jobs', 'application/xml', '<job/>');
    expect(xml.status).toBe(400);
    expect(xml.body.error.fields.body).toBe('Content-Type must be application/json');
    const broken = await send('POST', '/api/v1/jobs', 'application/json', '{"name":');
    expect(broken.status).toBe(400);
    expect(broken.body.error.fields.body).toBe('Malformed JSON body');
  });

  it('should pause, resume and delete a real job sent with Content-Type: application/json and no body', async () => {
    const api = apiClient(stack.baseUrl, stack.apiKey);
    const created = await api('POST', '/api/v1/jobs', {
      name: 'bodyless actions',
      schedule: { expr: 'every day at 9am' },
      sink: { kind: 'webhook', config: { url: 'http://127.0.0.1:9/unused' } },
    });
    expect(created.status).toBe(201);
    const path = `/api/v1/jobs/${created.body.id}`;
    expect((await send('POST', `${path}/pause`, 'application/json')).status).toBe(200);
    expect((await api('GET', path)).body.state).toBe('paused');
    expect((await send('POST', `${path}/resume`, 'application/json')).status).toBe(200);
    expect((await api('GET', path)).body.state).toBe('active');
    // Chunked with no chunk: the body parsers themselves see zero bytes.
    expect(await sendChunkedEmpty('POST', `${path}/pause`, 'application/json')).toBe(200);
    expect(await sendChunkedEmpty('POST', `${path}/resume`, 'application/xml')).toBe(200);
    expect((await send('DELETE', path, 'application/json')).status).toBe(204);
    expect((await api('GET', path)).status).toBe(404);
  });
});

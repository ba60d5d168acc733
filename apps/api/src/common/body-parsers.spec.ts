import { FastifyAdapter } from '@nestjs/platform-fastify';
import { useApiBodyParsers } from './body-parsers';

/** The body parsers alone, on a bare Fastify server: zero bytes are no body, whatever the type. */
describe('useApiBodyParsers', () => {
  const adapter = new FastifyAdapter();
  const fastify = adapter.getInstance();
  useApiBodyParsers(adapter, 1024);
  fastify.post('/echo', async (request) => ({
    body: request.body === undefined ? 'none' : request.body,
    type: request.headers['content-type'] ?? null,
  }));

  afterAll(() => fastify.close());

  const post = (headers: Record<string, string>, payload?: string) =>
    fastify.inject({ method: 'POST', url: '/echo', headers, ...(payload === undefined ? {} : { payload }) });

  it('should treat zero body bytes as no body under any Content-Type, even one that does not parse', async () => {
    for (const type of ['application/json', 'text/plain', 'application/xml', 'not a media type']) {
      const response = await post({ 'content-type': type }, '');
      expect({ type, status: response.statusCode, body: response.json() }).toEqual({
        type,
        status: 200,
        body: { body: 'none', type: null },
      });
    }
  });

  it('should treat a chunked body that ends at once as no body', async () => {
    // The header stays (no length was declared): the parsers themselves see zero bytes.
    for (const type of ['application/json', 'application/xml']) {
      const response = await post({ 'content-type': type, 'transfer-encoding': 'chunked' }, '');
      expect({ status: response.statusCode, body: response.json() }).toEqual({
        status: 200,
        body: { body: 'none', type },
      });
    }
  });

  it('should parse JSON and refuse bytes of any other type or malformed JSON', async () => {
    expect((await post({ 'content-type': 'application/json' }, '{"a":1}')).json()).toEqual({
      body: { a: 1 },
      type: 'application/json',
    });
    expect((await post({ 'content-type': 'application/json; charset=utf-8' }, '[2]')).json()).toEqual({
      body: [2],
      type: 'application/json; charset=utf-8',
    });
    const xml = await post({ 'content-type': 'application/xml' }, '<a/>');
    expect([xml.statusCode, xml.json().code]).toEqual([415, 'FST_ERR_CTP_INVALID_MEDIA_TYPE']);
    const text = await post({ 'content-type': 'text/plain' }, 'name=x');
    expect([text.statusCode, text.json().code]).toEqual([415, 'FST_ERR_CTP_INVALID_MEDIA_TYPE']);
    const broken = await post({ 'content-type': 'application/json' }, '{"a":');
    expect([broken.statusCode, broken.json().code]).toEqual([400, 'FST_ERR_CTP_INVALID_JSON_BODY']);
    const poisoned = await post({ 'content-type': 'application/json' }, '{"__proto__":{"x":1}}');
    expect(poisoned.statusCode).toBe(400);
  });
});

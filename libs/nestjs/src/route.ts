/**
 * The receiver route on the app's own HTTP server, Express or Fastify. Signatures cover the raw
 * body, so the route reads the bytes itself instead of taking the framework's parsed JSON:
 * Fastify in an encapsulated plugin with a buffer parser, Express from the request stream (or
 * `req.rawBody` when the app was created with `rawBody: true` and its JSON parser read it first).
 */
import type { HttpServer } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DeliveryReceiver, ReceiverAnswer } from './receiver';
import type { HeaderBag } from './verify';

const MAX_BODY_BYTES = 1024 * 1024;

interface FastifyLike {
  register(plugin: (child: FastifyLike) => Promise<void>): unknown;
  removeAllContentTypeParsers(): void;
  addContentTypeParser(
    type: string,
    options: { parseAs: 'buffer'; bodyLimit: number },
    parser: (req: unknown, body: Buffer, done: (err: Error | null, body: Buffer) => void) => void,
  ): void;
  post(
    path: string,
    handler: (
      req: { body?: Buffer; headers: HeaderBag },
      reply: { code(status: number): { send(body: unknown): unknown } },
    ) => Promise<unknown>,
  ): void;
}

type ExpressRequest = IncomingMessage & { rawBody?: Buffer; body?: unknown };

function readStream(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('body too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The raw bytes of an Express request, however far its body parsers got. */
async function expressRawBody(req: ExpressRequest): Promise<Buffer> {
  if (req.rawBody !== undefined) {
    return req.rawBody;
  }
  if (!req.readableEnded && req.body === undefined) {
    return readStream(req);
  }
  // Parsed by the app's JSON parser without `rawBody: true`: the service sends compact
  // `JSON.stringify` output, which stringifying the parse gives back. A mismatch fails closed (401).
  return Buffer.from(typeof req.body === 'string' ? req.body : JSON.stringify(req.body ?? ''));
}

function sendNode(res: ServerResponse, answer: ReceiverAnswer): void {
  res.statusCode = answer.status;
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(answer.body));
}

export function mountReceiver(adapter: HttpServer, path: string, receiver: DeliveryReceiver): void {
  if (adapter.getType() === 'fastify') {
    const fastify = adapter.getInstance() as FastifyLike;
    void fastify.register(async (child) => {
      child.removeAllContentTypeParsers();
      child.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_BODY_BYTES }, (_req, body, done) =>
        done(null, body),
      );
      child.post(path, async (req, reply) => {
        const answer = await receiver.handle(req.body ?? Buffer.alloc(0), req.headers);
        return reply.code(answer.status).send(answer.body);
      });
    });
    return;
  }
  adapter.post(path, (req: ExpressRequest, res: ServerResponse) => {
    expressRawBody(req)
      .then((body) => receiver.handle(body, req.headers))
      .then(
        (answer) => sendNode(res, answer),
        (error: Error) => sendNode(res, { status: 400, body: { error: error.message } }),
      );
  });
}

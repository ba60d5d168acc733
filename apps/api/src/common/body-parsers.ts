import type { FastifyAdapter } from '@nestjs/platform-fastify';
import { errorCodes, type FastifyInstance } from 'fastify';

type Done = (err: Error | null, body?: unknown) => void;

/**
 * The API's only body parsers. A request with no body bytes has no body,
 * whatever its `Content-Type` says: many HTTP clients send `Content-Type: application/json` on a
 * `DELETE` or an action `POST` by default, and such a request must do what it asks. So every
 * parser answers "no body" (`undefined`) for zero bytes; a route that needs one then answers
 * `400 validation_failed` from its DTO ("must be a JSON object"). Bytes are parsed as JSON under
 * `application/json` and refused under any other type ("Content-Type must be application/json").
 *
 * Registered through Nest's `useBodyParser` (so Nest adds no parser of its own: the catch-all
 * `*` counts as one), before `init()`.
 */
export function useApiBodyParsers(adapter: FastifyAdapter, bodyLimit: number): void {
  const fastify: FastifyInstance = adapter.getInstance();
  const json = fastify.getDefaultJsonParser('error', 'error');
  // A header Fastify cannot even parse (`Content-Type: nonsense`) would be refused before any
  // parser runs; on a request that declares no body bytes it says nothing, so it is dropped.
  fastify.addHook('onRequest', (request, _reply, done) => {
    const { headers } = request;
    if (
      headers['content-type'] !== undefined &&
      headers['transfer-encoding'] === undefined &&
      (headers['content-length'] === undefined || headers['content-length'] === '0')
    ) {
      delete headers['content-type'];
    }
    done();
  });
  fastify.removeContentTypeParser('text/plain'); // Fastify's default: a string body no DTO accepts
  adapter.useBodyParser('application/json', false, { bodyLimit }, (req, body: Buffer, done: Done) => {
    if (body.length === 0) {
      done(null, undefined);
      return;
    }
    void json(req, body.toString('utf8'), done);
  });
  adapter.useBodyParser('*', false, { bodyLimit }, (_req, body: Buffer, done: Done) => {
    if (body.length === 0) {
      done(null, undefined);
      return;
    }
    done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE());
  });
}

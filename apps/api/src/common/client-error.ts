import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Fastify's `clientErrorHandler`: what Node's HTTP parser refuses before any route or hook runs
 * (headers over 16 KiB, a malformed request line, a client too slow to send its headers). Fastify's
 * default answers its own JSON; this answers the spec's envelope and an `X-Request-ID` like every
 * other response (found by Schemathesis: a 16 KiB query string came back without either).
 * `RateLimit-*` cannot be sent here: no route, hence no bucket, is known yet.
 */
export function clientErrorHandler(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) {
    return;
  }
  const { status, message, field } =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? {
          status: 431,
          message: 'Request header fields too large (16 KiB at most, request line included)',
          field: 'headers',
        }
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? { status: 408, message: 'The request was not received in time', field: 'request' }
        : { status: 400, message: 'Malformed HTTP request', field: 'request' };
  if (socket.writable) {
    const body = JSON.stringify({ error: { code: 'validation_failed', message, fields: { [field]: message } } });
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-ID: ${randomUUID()}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  }
  socket.destroy(err);
}

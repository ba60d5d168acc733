import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { DomainError, type ErrorBody, type ErrorCode } from '@svc/common';
import { isDatabaseUnavailable } from '@svc/persistence';
import type { FastifyReply, FastifyRequest } from 'fastify';

const STATUS_CODES: Record<number, ErrorCode> = {
  400: 'validation_failed',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  429: 'rate_limited',
  503: 'unavailable',
};

/** A Fastify error of the client's making (body parsing, content type, size): a 4xx `statusCode`. */
interface FastifyClientError {
  statusCode: number;
  code?: string;
}

function asFastifyClientError(err: unknown): FastifyClientError | undefined {
  const candidate = err as { statusCode?: unknown } | null | undefined;
  return typeof candidate?.statusCode === 'number' && candidate.statusCode >= 400 && candidate.statusCode < 500
    ? (candidate as FastifyClientError)
    : undefined;
}

function fastifyClientErrorResponse(err: FastifyClientError): { status: number; body: ErrorBody } {
  if (err.statusCode === 429) {
    return { status: 429, body: { code: 'rate_limited', message: 'Too many requests; wait for Retry-After' } };
  }
  const message =
    err.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
      ? 'Request body too large'
      : err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
        ? 'Content-Type must be application/json'
        : 'Malformed JSON body';
  return { status: 400, body: { code: 'validation_failed', message, fields: { body: message } } };
}

/** Maps anything thrown to the spec's envelope and status (style.md rule 7). */
export function toErrorResponse(err: unknown): { status: number; body: ErrorBody } {
  if (err instanceof DomainError) {
    return { status: err.status, body: err.body };
  }
  // Since NestJS 11 the Fastify adapter hands Fastify's own 4xx errors to the exception layer
  // wrapped in an HttpException of the same status with the original as `cause`
  // (`FastifyAdapter.mapException`): answer them like unwrapped ones.
  const wrapped = err instanceof HttpException ? asFastifyClientError(err.cause) : undefined;
  if (wrapped && wrapped.statusCode === (err as HttpException).getStatus()) {
    return fastifyClientErrorResponse(wrapped);
  }
  if (err instanceof HttpException) {
    const status = err.getStatus();
    if (status === 404) {
      return { status, body: { code: 'not_found', message: 'Route not found' } };
    }
    if (status === 413) {
      return {
        status,
        body: { code: 'validation_failed', message: 'Request body too large', fields: { body: 'too large' } },
      };
    }
    const code = STATUS_CODES[status];
    // Nest raises 400 for bodies it cannot parse; name the input like every validation error.
    if (code === 'validation_failed') {
      return { status, body: { code, message: 'Malformed request body', fields: { body: err.message } } };
    }
    if (code) {
      return { status, body: { code, message: err.message } };
    }
  }
  // Fastify's own errors (body parsing, content type, size) carry a 4xx statusCode.
  const fastifyError = asFastifyClientError(err);
  if (fastifyError) {
    return fastifyClientErrorResponse(fastifyError);
  }
  // A dependency down (spec: 503 `unavailable`, retry): PostgreSQL restarting or unreachable.
  if (isDatabaseUnavailable(err)) {
    return { status: 503, body: { code: 'unavailable', message: 'Database unavailable; retry shortly' } };
  }
  return { status: 500, body: { code: 'internal', message: 'Internal error' } };
}

/**
 * How long a client should wait after `503 unavailable` (a dependency down or restarting): the
 * spec's clients honor `Retry-After` on 503 as on 429.
 */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** Sends an error in the envelope; a 503 carries `Retry-After`. */
export function sendError(reply: FastifyReply, status: number, body: ErrorBody): void {
  if (status === 503) {
    void reply.header('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
  }
  void reply.status(status).send({ error: body });
}

@Catch()
export class ErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('ErrorFilter');

  catch(err: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    const { status, body } = toErrorResponse(err);
    if (status >= 500) {
      // Logged under `err` with the request id and the route pattern (not the URL: its query may
      // carry a token); the body never carries internals.
      this.logger.error({ err, request_id: request.id, route: request.routeOptions.url }, (err as Error)?.stack);
    }
    sendError(reply, status, body);
  }
}

import { BadRequestException, PayloadTooLargeException } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { errorCodes } from 'fastify';
import { QueryFailedError } from 'typeorm';
import { toErrorResponse } from './error.filter';

describe('toErrorResponse', () => {
  // Fastify's body-parsing errors, as its content-type parser raises them.
  const fastifyErrors = [
    { error: new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE(), message: 'Request body too large' },
    {
      error: new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE('text/plain'),
      message: 'Content-Type must be application/json',
    },
    { error: new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY(), message: 'Malformed JSON body' },
    { error: new errorCodes.FST_ERR_CTP_EMPTY_JSON_BODY(), message: 'Malformed JSON body' },
  ];

  it.each(fastifyErrors)('should answer $error.code with 400 validation_failed', ({ error, message }) => {
    expect(toErrorResponse(error)).toEqual({
      status: 400,
      body: { code: 'validation_failed', message, fields: { body: message } },
    });
  });

  it.each(fastifyErrors)(
    'should answer $error.code the same once the Nest adapter has wrapped it in an HttpException',
    ({ error }) => {
      // What Nest's exception layer receives from Fastify (NestJS 11+): an HttpException whose cause is the error.
      const mapped: unknown = new FastifyAdapter().mapException(error);
      expect(mapped).not.toBe(error);
      expect(toErrorResponse(mapped)).toEqual(toErrorResponse(error));
    },
  );

  it('should keep the status of Nest’s own HTTP exceptions', () => {
    expect(toErrorResponse(new PayloadTooLargeException()).status).toBe(413);
    expect(toErrorResponse(new BadRequestException('bad')).body).toEqual({
      code: 'validation_failed',
      message: 'Malformed request body',
      fields: { body: 'bad' },
    });
  });

  it('should not take a cause of another status for a Fastify error', () => {
    const error = new BadRequestException('bad', { cause: new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE() });
    expect(toErrorResponse(error).body.message).toBe('Malformed request body');
  });

  it('should answer 503 unavailable while PostgreSQL is unreachable', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const shutdown = new QueryFailedError(
      'SELECT 1',
      [],
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
    );
    for (const err of [refused, shutdown]) {
      expect(toErrorResponse(err)).toEqual({
        status: 503,
        body: { code: 'unavailable', message: 'Database unavailable; retry shortly' },
      });
    }
  });

  it('should answer anything else with 500 internal', () => {
    expect(toErrorResponse(new Error('boom'))).toEqual({
      status: 500,
      body: { code: 'internal', message: 'Internal error' },
    });
  });
});

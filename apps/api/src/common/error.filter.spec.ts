import { QueryFailedError } from 'typeorm';
import { toErrorResponse } from './error.filter';

/** Errors nobody mapped: a dependency down is the spec's 503 `unavailable`, anything else 500. */
describe('toErrorResponse for unmapped errors', () => {
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

  it('should answer 500 internal, without details, for anything else', () => {
    expect(toErrorResponse(new Error('boom'))).toEqual({
      status: 500,
      body: { code: 'internal', message: 'Internal error' },
    });
  });
});

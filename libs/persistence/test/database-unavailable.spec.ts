import { CannotExecuteNotConnectedError, QueryFailedError } from 'typeorm';
import { isDatabaseUnavailable } from '../src/repositories/transactions';

/** Which database errors mean "not reachable now" (retry the same write later). */
describe('isDatabaseUnavailable', () => {
  const pgError = (code: string, message = 'x') => Object.assign(new Error(message), { code });
  const wrapped = (driverError: Error) => new QueryFailedError('UPDATE runs SET …', [], driverError);

  it.each([
    ['a refused connection', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    ['a reset connection', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })],
    ['a connection cut by the server', new Error('Connection terminated unexpectedly')],
    [
      'an administrator shutdown (57P01)',
      wrapped(pgError('57P01', 'terminating connection due to administrator command')),
    ],
    ['a server still starting (57P03)', pgError('57P03', 'the database system is starting up')],
    ['a connection failure (class 08)', wrapped(pgError('08006'))],
    ['a pool connect timeout', new Error('timeout exceeded when trying to connect')],
    [
      'an error whose cause is unavailability',
      new Error('query failed', { cause: Object.assign(new Error('x'), { code: 'ECONNREFUSED' }) }),
    ],
    ['a pool that never connected', new CannotExecuteNotConnectedError()],
    ['one of several connect errors', new AggregateError([Object.assign(new Error('x'), { code: 'ECONNREFUSED' })])],
  ])('should say unavailable for %s', (_name, err) => {
    expect(isDatabaseUnavailable(err)).toBe(true);
  });

  it.each([
    ['a unique violation', wrapped(pgError('23505', 'duplicate key value'))],
    ['a syntax error', wrapped(pgError('42601'))],
    ['a plain error', new Error('boom')],
    ['a value that is not an error', 'ECONNREFUSED'],
    ['nothing', undefined],
  ])('should not for %s', (_name, err) => {
    expect(isDatabaseUnavailable(err)).toBe(false);
  });
});

import { isDatabaseUnavailable } from '@svc/persistence';
import { useScratchDatabase } from './scratch-database';

/**
 * A query never waits forever for a connection: with every pool slot held, the next query fails
 * after the connect timeout as "database unavailable" (a 503 or a retried activity), and the pool
 * serves again once a slot is free.
 */
describe('the connection wait is bounded', () => {
  const scratch = useScratchDatabase('connection_wait', { poolSize: 1, connectTimeoutMs: 500, migrate: false });

  it('should fail a query as unavailable when no slot frees within the timeout, then serve again', async () => {
    const holder = scratch.ds.createQueryRunner();
    await holder.connect();
    await holder.startTransaction();
    const started = Date.now();
    const waited = await scratch.ds.query('SELECT 1 AS one').then(
      () => null,
      (err: unknown) => err,
    );
    const waitedMs = Date.now() - started;
    await holder.rollbackTransaction();
    await holder.release();

    expect(waited).not.toBeNull();
    expect(isDatabaseUnavailable(waited)).toBe(true);
    expect(waitedMs).toBeGreaterThanOrEqual(400);
    expect(await scratch.ds.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });
});

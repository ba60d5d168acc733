import { DataSource } from 'typeorm';
import { CliError } from '../errors';

/** Arbitrary constant key for `pg_advisory_lock`: one migrator at a time (api and worker may race). */
const MIGRATION_LOCK_KEY = 741_852_963;
const LOCK_WAIT_MS = 120_000;
const LOCK_POLL_MS = 500;

/**
 * Runs pending migrations in one transaction and returns the names of those it ran (empty when
 * the schema is current). Serialized across processes with a session advisory lock, waited for at
 * most two minutes: a start never hangs behind a migrator that does not finish.
 */
export async function migrate(dataSource: DataSource, lockWaitMs = LOCK_WAIT_MS): Promise<string[]> {
  const lock = dataSource.createQueryRunner();
  await lock.connect();
  try {
    const deadline = Date.now() + lockWaitMs;
    for (;;) {
      const [{ locked }] = (await lock.query('SELECT pg_try_advisory_lock($1) AS locked', [MIGRATION_LOCK_KEY])) as [
        { locked: boolean },
      ];
      if (locked) {
        break;
      }
      if (Date.now() >= deadline) {
        throw new CliError(
          `another migration held the migration lock for ${lockWaitMs / 1000} s: see pg_locks (advisory ${MIGRATION_LOCK_KEY}) for its session`,
        );
      }
      await new Promise((r) => setTimeout(r, LOCK_POLL_MS));
    }
    try {
      const ran = await dataSource.runMigrations({ transaction: 'all' });
      return ran.map((m) => m.name);
    } finally {
      await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    await lock.release();
  }
}

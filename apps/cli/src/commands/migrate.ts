import { DataSource } from 'typeorm';

/** Arbitrary constant key for `pg_advisory_lock`: one migrator at a time (api and worker may race). */
const MIGRATION_LOCK_KEY = 741_852_963;

/**
 * Runs pending migrations in one transaction and returns the names of those it ran (empty when
 * the schema is current). Serialized across processes with a session advisory lock.
 */
export async function migrate(dataSource: DataSource): Promise<string[]> {
  const lock = dataSource.createQueryRunner();
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
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

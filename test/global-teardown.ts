import { Client } from 'pg';
import { adminUrl, runDatabasePrefix } from './utils/database';

/** Drops the template and every database this run created. */
export default async function globalTeardown(): Promise<void> {
  const admin = new Client({ connectionString: adminUrl() });
  await admin.connect();
  const { rows } = await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [
    `${runDatabasePrefix()}%`,
  ]);
  for (const { datname } of rows) {
    await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  }
  await admin.end();
}

import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { createDataSource, type DataSourceOptions } from '../src/data-source';

/** Admin connection used to CREATE/DROP scratch databases (trust auth on this machine). */
export const ADMIN_URL = process.env.DATABASE_URL_ADMIN ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface ScratchDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/**
 * Creates an empty database `svc_test_<label>_<random>` and returns its URL, so an int-spec is
 * self-sufficient with or without the global setup. `drop()` terminates leftover connections.
 */
export async function createScratchDatabase(label: string): Promise<ScratchDatabase> {
  const name = `svc_test_${label}_${randomBytes(4).toString('hex')}`;
  await withAdmin((c) => c.query(`CREATE DATABASE "${name}"`));
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: async () => {
      await withAdmin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}

/** What `useScratchDatabase` holds for the enclosing describe's tests: the database and its open DataSource. */
export interface ScratchDataSource {
  db: ScratchDatabase;
  ds: DataSource;
}

/**
 * A scratch database for the enclosing describe: created, connected (with `options`) and, unless
 * `migrate` is false, migrated to the latest schema in `beforeAll`; closed and dropped in `afterAll`.
 * Read its fields inside tests and hooks.
 */
export function useScratchDatabase(
  label: string,
  options: DataSourceOptions & { migrate?: boolean } = {},
): ScratchDataSource {
  const { migrate = true, ...dataSourceOptions } = options;
  const scratch = {} as ScratchDataSource;
  beforeAll(async () => {
    scratch.db = await createScratchDatabase(label);
    scratch.ds = createDataSource(scratch.db.url, dataSourceOptions);
    await scratch.ds.initialize();
    if (migrate) {
      await scratch.ds.runMigrations();
    }
  });
  afterAll(async () => {
    if (scratch.ds?.isInitialized) {
      await scratch.ds.destroy();
    }
    await scratch.db?.drop();
  });
  return scratch;
}

async function withAdmin<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

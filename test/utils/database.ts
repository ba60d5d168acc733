import { Client } from 'pg';

/** Connection to the server's maintenance database; set by scripts/test.sh. */
export function adminUrl(): string {
  return process.env.TEST_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
}

export function runDatabasePrefix(): string {
  return `svc_test_${(process.env.TEST_RUN_ID ?? 'local').toLowerCase()}_`;
}

export function templateDatabaseName(): string {
  return `${runDatabasePrefix()}template`;
}

export function databaseUrl(name: string): string {
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

let counter = 0;

/** A fresh, migrated database for one test file, cloned from the run's template. */
export async function createTestDatabase(): Promise<{ url: string; name: string; drop: () => Promise<void> }> {
  const name = `${runDatabasePrefix()}${process.pid}_${++counter}_${Math.floor(Math.random() * 1e6)}`;
  const admin = new Client({ connectionString: adminUrl() });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${templateDatabaseName()}"`);
  await admin.end();
  return {
    name,
    url: databaseUrl(name),
    drop: async () => {
      const c = new Client({ connectionString: adminUrl() });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    },
  };
}

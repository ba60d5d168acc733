import { Client } from 'pg';
// Jest's moduleNameMapper does not apply to globalSetup, hence the relative import.
import { createDataSource } from '../libs/persistence/src/data-source';
import { adminUrl, databaseUrl, templateDatabaseName } from './utils/database';

/**
 * Runs migrations once into a template database; every integration file clones it
 * (CREATE DATABASE … TEMPLATE), so files run in parallel without sharing rows.
 */
export default async function globalSetup(): Promise<void> {
  const admin = new Client({ connectionString: adminUrl() });
  await admin.connect();
  const template = templateDatabaseName();
  await admin.query(`DROP DATABASE IF EXISTS "${template}"`);
  await admin.query(`CREATE DATABASE "${template}"`);
  await admin.end();
  const ds = createDataSource(databaseUrl(template));
  await ds.initialize();
  await ds.runMigrations();
  await ds.destroy();
}

#!/usr/bin/env node
// Creates the database named in a PostgreSQL URL when it does not exist yet (first start).
const { Client } = require('pg');

async function main() {
  const url = new URL(process.argv[2]);
  const name = decodeURIComponent(url.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  if (rowCount === 0) await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  await client.end();
}

main().catch((err) => {
  console.error(`cannot prepare the database: ${err.message}`);
  process.exit(1);
});

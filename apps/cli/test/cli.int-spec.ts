import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ALL_MIGRATIONS, ApiKeysRepository, AuditLogEntity, WorkspaceEntity } from '@svc/persistence';
import { useScratchDatabase } from '../../../libs/persistence/test/scratch-database';
import { setWorkspaceSuspended } from '../src/commands/workspace';
import { run } from '../src/main';

interface Captured {
  code: number;
  out: string;
  err: string;
}

describe('svc (operator CLI)', () => {
  const scratch = useScratchDatabase('cli', { poolSize: 2, migrate: false });
  /** A folder without `.data/`: the developer's own `npm start` data must not answer for a test. */
  const emptyDir = mkdtempSync(join(tmpdir(), 'svc-cli-'));

  async function svc(argv: string[], env: NodeJS.ProcessEnv = {}, cwd = emptyDir): Promise<Captured> {
    let out = '';
    let err = '';
    const code = await run(argv, {
      out: (t) => (out += t),
      err: (t) => (err += t),
      env: { DATABASE_URL: scratch.db.url, ...env },
      cwd,
    });
    return { code, out, err };
  }

  afterAll(async () => {
    rmSync(emptyDir, { recursive: true, force: true });
  });

  describe('svc migrate', () => {
    it('should apply every migration and print their names', async () => {
      const res = await svc(['migrate']);
      const expected = ALL_MIGRATIONS.map((m) => `applied ${m.name}\n`).join('');
      expect(res).toEqual({ code: 0, out: expected, err: '' });
      expect(expected).toMatch(/^applied InitialSchema1763769600000\n/);
    });

    it('should report nothing to do the second time', async () => {
      expect(await svc(['migrate'])).toEqual({ code: 0, out: 'no pending migrations\n', err: '' });
    });
  });

  describe('svc bootstrap', () => {
    it('should create the workspace and a * key, printing {workspace_id, api_key} with --json', async () => {
      const res = await svc(['bootstrap', '--workspace', 'acme', '--json'], { PLAN: 'free' });
      expect(res.code).toBe(0);
      expect(res.err).toBe('');
      const printed = JSON.parse(res.out) as Record<string, string>;
      expect(Object.keys(printed).sort()).toEqual(['api_key', 'workspace_id']);
      expect(printed.workspace_id).toMatch(/^ws_[0-9A-Z]{26}$/);
      expect(printed.api_key).toMatch(/^sjs_[0-9A-Za-z]{40}$/);

      const ws = await scratch.ds.manager.findOneByOrFail(WorkspaceEntity, { slug: 'acme' });
      expect(ws).toMatchObject({ id: printed.workspace_id, name: 'acme', plan: 'free', suspendedAt: null });

      const found = await new ApiKeysRepository(scratch.ds).findActiveByHash(sha256(printed.api_key));
      expect(found?.workspace.id).toBe(printed.workspace_id);
      expect(found?.key).toMatchObject({ name: 'bootstrap', scopes: ['*'], prefix: printed.api_key.slice(0, 12) });
    });

    it('should reuse the workspace and add a second key on a second run', async () => {
      const first = await scratch.ds.manager.findOneByOrFail(WorkspaceEntity, { slug: 'acme' });
      const res = await svc(['bootstrap', '--workspace', 'acme', '--json']);
      const printed = JSON.parse(res.out) as Record<string, string>;
      expect(printed.workspace_id).toBe(first.id);

      const keys = await new ApiKeysRepository(scratch.ds).list(first.id);
      expect(keys.map((k) => k.name)).toEqual(['bootstrap', 'bootstrap']);
      expect(new Set(keys.map((k) => k.prefix)).size).toBe(2);
      const audits = await scratch.ds.manager.findBy(AuditLogEntity, {
        workspaceId: first.id,
        action: 'api_key.create',
      });
      expect(audits.map((a) => a.actor)).toEqual(['system', 'system']);
      expect(audits.map((a) => a.target).sort()).toEqual(keys.map((k) => k.id).sort());
    });

    it('should store only the SHA-256 of the key, never the key itself', async () => {
      const res = await svc(['bootstrap', '--workspace', 'acme', '--json']);
      const { api_key: key } = JSON.parse(res.out) as { api_key: string };
      const rows: { key_hash: string }[] = await scratch.ds.query(`SELECT key_hash FROM api_keys`);
      expect(rows.map((r) => r.key_hash)).toContain(sha256(key));
      const dump: { found: boolean }[] = await scratch.ds.query(
        `SELECT EXISTS (
           SELECT 1 FROM api_keys k WHERE row_to_json(k)::text LIKE '%' || $1 || '%'
           UNION ALL SELECT 1 FROM audit_log a WHERE row_to_json(a)::text LIKE '%' || $1 || '%'
         ) AS found`,
        [key.slice(12)],
      );
      expect(dump[0].found).toBe(false);
    });

    it('should print a human line without --json', async () => {
      const res = await svc(['bootstrap', '--workspace', 'beta']);
      expect(res.code).toBe(0);
      expect(res.out).toMatch(/^created workspace beta \(ws_\w+\); API key key_\w+ \(shown once\): sjs_\w{40}\n$/);
      const ws = await scratch.ds.manager.findOneByOrFail(WorkspaceEntity, { slug: 'beta' });
      expect(ws.plan).toBe('self_hosted');
    });

    it('should reject an invalid slug with one line and exit 1', async () => {
      const res = await svc(['bootstrap', '--workspace', 'Not A Slug']);
      expect(res.code).toBe(1);
      expect(res.out).toBe('');
      expect(res.err).toMatch(/^error: invalid workspace slug "Not A Slug"[^\n]*\n$/);
    });
  });

  describe('svc workspace suspend / unsuspend', () => {
    it('should suspend, stay suspended when repeated, then unsuspend, auditing each change once', async () => {
      expect(await svc(['workspace', 'suspend', 'acme'])).toMatchObject({ code: 0, err: '' });
      const suspended = await scratch.ds.manager.findOneByOrFail(WorkspaceEntity, { slug: 'acme' });
      expect(suspended.suspendedAt).toBeInstanceOf(Date);

      const again = await svc(['workspace', 'suspend', 'acme']);
      expect(again.out).toMatch(/was already suspended/);
      const still = await scratch.ds.manager.findOneByOrFail(WorkspaceEntity, { slug: 'acme' });
      expect(still.suspendedAt).toEqual(suspended.suspendedAt);

      // the auth lookup sees the suspension
      const res = await svc(['bootstrap', '--workspace', 'acme', '--json']);
      const { api_key: key } = JSON.parse(res.out) as { api_key: string };
      const found = await new ApiKeysRepository(scratch.ds).findActiveByHash(sha256(key));
      expect(found?.workspace.suspendedAt).toEqual(suspended.suspendedAt);

      expect(await svc(['workspace', 'unsuspend', 'acme'])).toMatchObject({ code: 0, err: '' });
      const lifted = await scratch.ds.manager.findOneByOrFail(WorkspaceEntity, { slug: 'acme' });
      expect(lifted.suspendedAt).toBeNull();

      const actions = await scratch.ds.manager.find(AuditLogEntity, {
        where: { workspaceId: lifted.id, target: lifted.id },
        order: { id: 'ASC' },
      });
      expect(actions.map((a) => [a.actor, a.action])).toEqual([
        ['system', 'workspace.suspend'],
        ['system', 'workspace.unsuspend'],
      ]);
    });

    it('should fail with one line and exit 1 for an unknown slug', async () => {
      const res = await svc(['workspace', 'suspend', 'nope']);
      expect(res).toEqual({ code: 1, out: '', err: 'error: workspace not found: nope\n' });
      await expect(setWorkspaceSuspended(scratch.ds, 'nope', false)).rejects.toThrow('workspace not found: nope');
    });
  });

  describe('as a process', () => {
    it('should exit 1 with a one-line message and no stack for an unknown slug', async () => {
      const main = `${__dirname}/../src/main.ts`;
      const child = promisify(execFile)(
        process.execPath,
        ['-r', '@swc-node/register', main, 'workspace', 'unsuspend', 'nope'],
        {
          env: { ...process.env, DATABASE_URL: scratch.db.url },
          cwd: `${__dirname}/../../..`,
        },
      );
      await expect(child).rejects.toMatchObject({ code: 1, stdout: '', stderr: 'error: workspace not found: nope\n' });
    }, 30_000);

    it('should exit 1 naming both places when DATABASE_URL is missing and npm start wrote no URL', async () => {
      expect(await svc(['migrate'], { DATABASE_URL: '' })).toEqual({
        code: 1,
        out: '',
        err:
          `error: DATABASE_URL is not set, and ${emptyDir}/.data/database-url (written by npm start for its ` +
          'embedded PostgreSQL) does not exist: set DATABASE_URL, or run svc from the project folder while npm start runs\n',
      });
    });
  });

  describe('the database of npm start (issue #26)', () => {
    it('should use the URL scripts/start.sh wrote into .data/ of the folder it runs in', async () => {
      const project = mkdtempSync(join(tmpdir(), 'svc-cli-project-'));
      try {
        mkdirSync(join(project, '.data'));
        writeFileSync(join(project, '.data', 'database-url'), `${scratch.db.url}\n`);
        expect(await svc(['migrate'], { DATABASE_URL: '' }, project)).toEqual({
          code: 0,
          out: 'no pending migrations\n',
          err: '',
        });
        // a URL that cannot work proves the file is what was read
        writeFileSync(join(project, '.data', 'database-url'), 'postgres://nobody@127.0.0.1:1/none\n');
        expect(await svc(['migrate'], { DATABASE_URL: '' }, project)).toMatchObject({ code: 1, out: '' });
        // DATABASE_URL, when set, wins over the file
        expect(await svc(['migrate'], {}, project)).toMatchObject({ code: 0, out: 'no pending migrations\n' });
      } finally {
        rmSync(project, { recursive: true, force: true });
      }
    });

    it('should read the data folder of SVC_DATA_DIR, relative to the folder it runs in', async () => {
      const project = mkdtempSync(join(tmpdir(), 'svc-cli-project-'));
      try {
        mkdirSync(join(project, 'elsewhere'));
        writeFileSync(join(project, 'elsewhere', 'database-url'), scratch.db.url);
        expect(await svc(['migrate'], { DATABASE_URL: '', SVC_DATA_DIR: 'elsewhere' }, project)).toEqual({
          code: 0,
          out: 'no pending migrations\n',
          err: '',
        });
      } finally {
        rmSync(project, { recursive: true, force: true });
      }
    });
  });
});

function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

import { newId } from '@svc/workflow-contract/ids';
import { generateEncryptionKey, SecretDecryptionError, SecretsCipher } from '@svc/common/secrets-crypto';
import { AuditRepository, SecretsRepository, StatsRepository } from '../src/repositories';
import { createWorkspace, insertJob as insertJobInto, type JobFixture } from './fixtures';
import { useScratchDatabase } from './scratch-database';

/** Issue 8: secrets, audit listing and retention, and the stats overview's aggregates. */
describe('secrets, audit and stats repositories', () => {
  const scratch = useScratchDatabase('sas', { poolSize: 4 });
  let secrets: SecretsRepository;
  let audit: AuditRepository;
  let stats: StatsRepository;
  const cipher = SecretsCipher.fromKey(generateEncryptionKey());

  beforeAll(async () => {
    secrets = new SecretsRepository(scratch.ds);
    audit = new AuditRepository(scratch.ds);
    stats = new StatsRepository(scratch.ds);
  });

  function workspace() {
    return createWorkspace(scratch.ds);
  }

  function insertJob(workspaceId: string, job?: JobFixture) {
    return insertJobInto(scratch.ds, workspaceId, job);
  }

  describe('SecretsRepository', () => {
    async function put(workspaceId: string, name: string, value: string) {
      return scratch.ds.transaction(async (m) => {
        await secrets.lockWorkspace(workspaceId, m);
        const blob = cipher.encrypt(value, { workspaceId, name });
        return (await secrets.findForUpdate(workspaceId, name, m))
          ? secrets.replaceValue(workspaceId, name, blob, m)
          : secrets.insert(workspaceId, name, blob, m);
      });
    }

    it('should store ciphertext only, list names without values, and page by name', async () => {
      const ws = await workspace();
      for (const name of ['b_token', 'A_TOKEN', 'C', '_x']) {
        await put(ws.id, name, `value-of-${name}`);
      }
      const raw: Array<{ value_encrypted: Buffer }> = await scratch.ds.query(
        `SELECT value_encrypted FROM secrets WHERE workspace_id = $1`,
        [ws.id],
      );
      expect(raw).toHaveLength(4);
      for (const row of raw) {
        expect(row.value_encrypted.includes(Buffer.from('value-of-'))).toBe(false);
      }

      const first = await secrets.listPage(ws.id, { limit: 2 });
      expect(first.map((s) => s.name)).toEqual(['A_TOKEN', 'C']);
      expect(first[0]).not.toHaveProperty('valueEncrypted');
      const second = await secrets.listPage(ws.id, { afterName: 'C', limit: 10 });
      expect(second.map((s) => s.name)).toEqual(['_x', 'b_token']);
      expect(await secrets.countInWorkspace(ws.id)).toBe(4);
    });

    it('should replace a value keeping created_at and moving updated_at', async () => {
      const ws = await workspace();
      const created = await put(ws.id, 'TOKEN', 'one');
      const replaced = await put(ws.id, 'TOKEN', 'two');
      expect(replaced!.createdAt).toEqual(created!.createdAt);
      expect(replaced!.updatedAt.getTime()).toBeGreaterThan(created!.updatedAt.getTime());
      expect(await secrets.resolveForWorkspace(ws.id, ['TOKEN'], cipher)).toEqual({ TOKEN: 'two' });
    });

    it('should resolve decrypted values of one workspace only, leaving missing names out', async () => {
      const a = await workspace();
      const b = await workspace();
      await put(a.id, 'TOKEN', 'a-token');
      await put(a.id, 'OTHER', 'a-other');
      await put(b.id, 'TOKEN', 'b-token');
      expect(await secrets.resolveForWorkspace(a.id, ['TOKEN', 'OTHER', 'MISSING', 'TOKEN'], cipher)).toEqual({
        TOKEN: 'a-token',
        OTHER: 'a-other',
      });
      expect(await secrets.resolveForWorkspace(b.id, ['TOKEN', 'OTHER'], cipher)).toEqual({ TOKEN: 'b-token' });
      expect(await secrets.resolveForWorkspace(b.id, [], cipher)).toEqual({});
    });

    it('should refuse to resolve a value moved between workspaces or under another key', async () => {
      const a = await workspace();
      const b = await workspace();
      await put(a.id, 'TOKEN', 'a-token');
      await put(b.id, 'TOKEN', 'b-token');
      await scratch.ds.query(
        `UPDATE secrets SET value_encrypted = (SELECT value_encrypted FROM secrets WHERE workspace_id = $1 AND name = 'TOKEN')
          WHERE workspace_id = $2 AND name = 'TOKEN'`,
        [a.id, b.id],
      );
      await expect(secrets.resolveForWorkspace(b.id, ['TOKEN'], cipher)).rejects.toThrow(SecretDecryptionError);
      const otherKey = SecretsCipher.fromKey(generateEncryptionKey());
      await expect(secrets.resolveForWorkspace(a.id, ['TOKEN'], otherKey)).rejects.toThrow(/secret "TOKEN"/);
    });

    it('should lock existing names and find jobs that mention a secret', async () => {
      const ws = await workspace();
      const other = await workspace();
      await put(ws.id, 'API_TOKEN', 'x');
      const user = await insertJob(ws.id, {
        sinkConfig: { url: 'https://e.com', headers: { A: '{{secret.API_TOKEN}}' } },
      });
      await insertJob(ws.id, { sinkConfig: { url: 'https://e.com', body: 'no secrets here' } });
      await insertJob(other.id, { sinkConfig: { url: 'https://e.com', body: '{{secret.API_TOKEN}}' } });
      const longer = await insertJob(ws.id, { sinkConfig: { url: 'https://e.com', body: '{{ secret.API_TOKEN_2 }}' } });
      // Every kind is a candidate (issue 41): the caller reads each through its kind.
      const workflow = await insertJob(ws.id, {
        sinkKind: 'temporal_workflow',
        sinkConfig: { task_queue: 'q', workflow_type: 'wf', args: [{ token: '{{secret.API_TOKEN}}' }] },
      });

      const candidates = await secrets.findReferenceCandidates(ws.id, 'API_TOKEN');
      expect(candidates.map((c) => c.id).sort()).toEqual([user, longer, workflow].sort());
      expect(candidates.find((c) => c.id === workflow)?.sinkKind).toBe('temporal_workflow');
      expect(candidates.find((c) => c.id === user)?.sinkConfig).toEqual({
        url: 'https://e.com',
        headers: { A: '{{secret.API_TOKEN}}' },
      });

      await scratch.ds.transaction(async (m) => {
        expect(await secrets.lockExisting(ws.id, ['API_TOKEN', 'NOPE'], m)).toEqual(['API_TOKEN']);
        expect(await secrets.lockExisting(ws.id, [], m)).toEqual([]);
      });
    });

    it('should make a delete wait for a job write holding the secret, then see it', async () => {
      const ws = await workspace();
      await put(ws.id, 'HELD', 'x');
      let releaseJob!: () => void;
      const jobHolds = new Promise<void>((resolve) => (releaseJob = resolve));
      let locked!: () => void;
      const isLocked = new Promise<void>((resolve) => (locked = resolve));
      const jobWrite = scratch.ds.transaction(async (m) => {
        expect(await secrets.lockExisting(ws.id, ['HELD'], m)).toEqual(['HELD']);
        locked();
        await jobHolds;
      });
      await isLocked;
      let deleteDone = false;
      const deletion = scratch.ds
        .transaction(async (m) => {
          await secrets.findForUpdate(ws.id, 'HELD', m);
          await secrets.delete(ws.id, 'HELD', m);
        })
        .then(() => (deleteDone = true));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(deleteDone).toBe(false);
      releaseJob();
      await jobWrite;
      await deletion;
      expect(deleteDone).toBe(true);
    });
  });

  describe('AuditRepository.list', () => {
    it('should page newest first with exact keysets when entries share a millisecond', async () => {
      const ws = await workspace();
      // One transaction: every entry gets the same now(), so only the id orders them.
      await scratch.ds.transaction(async (m) => {
        for (let i = 0; i < 7; i++) {
          await audit.insert(ws.id, { actor: 'system', action: 'job.update', target: `t${i}` }, m);
        }
      });
      await scratch.ds.query(
        `INSERT INTO audit_log (id, workspace_id, actor, action, target, created_at) VALUES
           ($1, $2, 'key:k', 'secret.update', 'A', now() + interval '1 microsecond'),
           ($3, $2, 'key:k', 'secret.update', 'B', now() + interval '2 microseconds')`,
        [newId('audit'), ws.id, newId('audit')],
      );
      const seen: string[] = [];
      let after: { at: string; id: string } | undefined;
      for (let page = 0; page < 10; page++) {
        const rows = await audit.list(ws.id, { limit: 3, after });
        seen.push(...rows.map((r) => r.entry.target));
        if (rows.length < 3) {
          break;
        }
        after = { at: rows[2].cursorAt, id: rows[2].entry.id };
      }
      expect(seen.slice(0, 2)).toEqual(['B', 'A']);
      expect(seen).toHaveLength(9);
      expect(new Set(seen).size).toBe(9);
      // Same created_at: ties go by id, descending (ULIDs of one millisecond are not in insert order).
      const tied: Array<{ id: string; target: string }> = await scratch.ds.query(
        `SELECT id, target FROM audit_log WHERE workspace_id = $1 AND action = 'job.update' ORDER BY id DESC`,
        [ws.id],
      );
      expect(seen.slice(2)).toEqual(tied.map((row) => row.target));
    });

    it('should filter by action, actor, target and a created_at range, in one workspace only', async () => {
      const ws = await workspace();
      const other = await workspace();
      await scratch.ds.query(
        `INSERT INTO audit_log (id, workspace_id, actor, action, target, created_at) VALUES
           ($1, $5, 'key:key_a', 'job.create', 'job_1', '2030-01-01T00:00:00Z'),
           ($2, $5, 'system', 'job.auto_disable', 'job_1', '2030-01-02T00:00:00Z'),
           ($3, $5, 'key:key_a', 'secret.update', 'TOKEN', '2030-01-03T00:00:00Z'),
           ($4, $6, 'key:key_a', 'job.create', 'job_1', '2030-01-01T00:00:00Z')`,
        [newId('audit'), newId('audit'), newId('audit'), newId('audit'), ws.id, other.id],
      );
      const targets = async (filter: Parameters<AuditRepository['list']>[1]) =>
        (await audit.list(ws.id, filter)).map((r) => `${r.entry.action}:${r.entry.target}`);
      expect(await targets({ limit: 10 })).toEqual([
        'secret.update:TOKEN',
        'job.auto_disable:job_1',
        'job.create:job_1',
      ]);
      expect(await targets({ action: 'job.create', limit: 10 })).toEqual(['job.create:job_1']);
      expect(await targets({ actor: 'system', limit: 10 })).toEqual(['job.auto_disable:job_1']);
      expect(await targets({ target: 'job_1', limit: 10 })).toEqual(['job.auto_disable:job_1', 'job.create:job_1']);
      expect(
        await targets({ from: new Date('2030-01-02T00:00:00Z'), to: new Date('2030-01-03T00:00:00Z'), limit: 10 }),
      ).toEqual(['job.auto_disable:job_1']);
      const [row] = await audit.list(ws.id, { action: 'job.create', limit: 1 });
      expect(row.cursorAt).toBe('2030-01-01T00:00:00.000000Z');
    });
  });

  describe('AuditRepository.deleteOlderThan', () => {
    it('should delete entries older than the cutoff in every workspace, in batches, and keep the rest', async () => {
      const a = await workspace();
      const b = await workspace();
      const rows: unknown[] = [];
      for (let i = 0; i < 12; i++) {
        rows.push(newId('audit'), i % 2 === 0 ? a.id : b.id, `2020-01-01T00:00:${String(i).padStart(2, '0')}Z`);
      }
      const values = Array.from(
        { length: 12 },
        (_, i) => `($${i * 3 + 1}, $${i * 3 + 2}, 'system', 'job.complete', 'x', $${i * 3 + 3})`,
      );
      await scratch.ds.query(
        `INSERT INTO audit_log (id, workspace_id, actor, action, target, created_at) VALUES ${values.join(', ')}`,
        rows,
      );
      const fresh = await audit.insert(a.id, { actor: 'system', action: 'job.complete', target: 'kept' });
      const cutoff = new Date('2020-01-01T00:00:10Z');

      expect(await audit.deleteOlderThan(cutoff, 4)).toBe(10);
      expect(await audit.deleteOlderThan(cutoff, 4)).toBe(0);
      const left: Array<{ target: string; created_at: Date }> = await scratch.ds.query(
        `SELECT target, created_at FROM audit_log WHERE workspace_id IN ($1, $2) ORDER BY created_at`,
        [a.id, b.id],
      );
      expect(left.map((r) => r.created_at.toISOString())).toEqual([
        '2020-01-01T00:00:10.000Z',
        '2020-01-01T00:00:11.000Z',
        fresh.createdAt.toISOString(),
      ]);
    });
  });

  describe('StatsRepository', () => {
    async function insertRuns(
      workspaceId: string,
      jobId: string,
      runs: Array<{ status: string; lag: number | null; sla?: boolean; at: string }>,
    ) {
      for (const run of runs) {
        await scratch.ds.query(
          `INSERT INTO runs (id, workspace_id, job_id, job_version, scheduled_at, trigger, status, start_lag_ms, sla_breached)
           VALUES ($1, $2, $3, 1, $4, 'schedule', $5, $6, $7)`,
          [newId('run'), workspaceId, jobId, run.at, run.status, run.lag, run.sla ?? false],
        );
      }
    }

    it('should count runs in the window and compute start-lag percentiles like percentile_cont', async () => {
      const ws = await workspace();
      const other = await workspace();
      const job = await insertJob(ws.id);
      const lags = Array.from({ length: 100 }, (_, i) => (i + 1) * 10); // 10..1000
      await insertRuns(
        ws.id,
        job,
        lags.map((lag, i) => ({
          status: i < 90 ? 'succeeded' : 'failed',
          lag,
          sla: i >= 95,
          // One run per occurrence: a millisecond apart.
          at: new Date(Date.parse('2030-06-01T12:00:00Z') + i).toISOString(),
        })),
      );
      await insertRuns(ws.id, job, [
        { status: 'skipped', lag: null, at: '2030-06-01T12:30:00Z' },
        { status: 'succeeded', lag: 999_999, at: '2030-05-01T00:00:00Z' }, // before the window
      ]);
      await insertRuns(other.id, job, [{ status: 'failed', lag: 5, at: '2030-06-01T12:00:01Z' }]);

      const window = await stats.runWindow(ws.id, new Date('2030-06-01T00:00:00Z'));
      // Linear interpolation over 10..1000: p50 = 505, p95 = 950.5, p99 = 990.1 (rounded).
      expect(window).toEqual({
        total: 101,
        succeeded: 90,
        failed: 10,
        sla_breached: 5,
        start_lag_ms: { p50: 505, p95: 951, p99: 990 },
      });
      expect(await stats.runWindow(ws.id, new Date('2031-01-01T00:00:00Z'))).toEqual({
        total: 0,
        succeeded: 0,
        failed: 0,
        sla_breached: 0,
        start_lag_ms: { p50: null, p95: null, p99: null },
      });
    });

    it('should answer the window aggregate from the covering index alone (index-only scan)', async () => {
      const ws = await workspace();
      await scratch.ds.transaction(async (m) => {
        await m.query('SET LOCAL enable_seqscan = off');
        await m.query('SET LOCAL enable_bitmapscan = off');
        const plan: Array<{ 'QUERY PLAN': string }> = await m.query(
          `EXPLAIN SELECT count(*) FILTER (WHERE status = 'failed'), count(*) FILTER (WHERE sla_breached),
                  percentile_cont(0.5) WITHIN GROUP (ORDER BY start_lag_ms)
             FROM runs WHERE workspace_id = $1 AND scheduled_at >= $2`,
          [ws.id, new Date()],
        );
        expect(plan.map((row) => row['QUERY PLAN']).join('\n')).toContain(
          'Index Only Scan using idx_runs_workspace_scheduled',
        );
      });
    });

    it('should count jobs by state and list failing jobs, longest streak first', async () => {
      const ws = await workspace();
      await insertJob(ws.id, { state: 'active' });
      await insertJob(ws.id, { state: 'active', name: 'flaky', consecutiveFailures: 2 });
      const broken = await insertJob(ws.id, { state: 'disabled', name: 'broken', consecutiveFailures: 10 });
      await insertJob(ws.id, { state: 'paused' });
      const other = await workspace();
      await insertJob(other.id, { state: 'completed', consecutiveFailures: 50 });

      expect(await stats.jobCountsByState(ws.id)).toEqual({ active: 2, disabled: 1, paused: 1 });
      const failing = await stats.failingJobs(ws.id, 10);
      expect(failing.map((j) => [j.name, j.consecutive_failures])).toEqual([
        ['broken', 10],
        ['flaky', 2],
      ]);
      expect(failing[0].id).toBe(broken);
      expect(await stats.failingJobs(ws.id, 1)).toHaveLength(1);
    });
  });
});

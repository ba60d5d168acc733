import { useStackAndReceiver } from '../utils/stack';
import { waitFor } from '../utils/receiver';

/**
 * Issue 46: bulk actions with a note (`POST /jobs/bulk`), recover of failed runs
 * (`POST /runs/recover`), both tracked as operations (`GET /operations/{id}`, cancel), against the
 * real dev server, database and a loopback receiver.
 */
describe('bulk operations', () => {
  const e2e = useStackAndReceiver({
    respond: () => (failing ? { status: 500, body: 'down' } : { status: 200, body: 'ok' }),
  });
  let failing = true;

  async function createJob(name: string, tags: string[], extra: Record<string, unknown> = {}) {
    const created = await e2e.api('POST', '/api/v1/jobs', {
      name,
      tags,
      // Far in the future: only the runs a test opens exist.
      schedule: { expr: '0 0 0 1 1 ? 2031' },
      sink: { kind: 'webhook', config: { url: `${e2e.receiver.url}/${name}` } },
      retry: { max_attempts: 1 },
      ...extra,
    });
    expect(created.status).toBe(201);
    return created.body as { id: string; name: string };
  }

  async function job(id: string) {
    return (await e2e.api('GET', `/api/v1/jobs/${id}`)).body;
  }

  async function auditOf(action: string, target: string) {
    const page = await e2e.api('GET', `/api/v1/audit-log?action=${action}&target=${target}&limit=50`);
    expect(page.status).toBe(200);
    return page.body.data as Array<{ actor: string; details: Record<string, unknown> }>;
  }

  /** Waits until the operation's status is one of `statuses`. */
  async function operationUntil(id: string, statuses: string[], timeoutMs = 60_000) {
    return waitFor(async () => {
      const op = (await e2e.api('GET', `/api/v1/operations/${id}`)).body;
      return statuses.includes(op?.status) ? op : null;
    }, timeoutMs);
  }

  describe('POST /api/v1/jobs/bulk', () => {
    it('should pause the jobs of a tag with a note, and resume them when the maintenance window ends', async () => {
      const tagged = await Promise.all([1, 2, 3].map((n) => createJob(`maint-${n}`, ['maint'])));
      const other = await createJob('maint-other', ['other']);
      const note = 'receiver maintenance, CHG-1234';
      const resumeAt = new Date(Date.now() + 8_000).toISOString();

      const accepted = await e2e.api('POST', '/api/v1/jobs/bulk', {
        action: 'pause',
        filter: { tags: ['maint'] },
        note,
        resume_at: resumeAt,
      });
      expect(accepted.status).toBe(202);
      expect(accepted.body).toMatchObject({
        kind: 'jobs.bulk',
        action: 'pause',
        matched: 3,
        note,
        resume_at: resumeAt,
      });
      expect(accepted.body.id).toMatch(/^op_/);

      const waiting = await operationUntil(accepted.body.id, ['waiting']);
      expect(waiting).toMatchObject({ done: 3, failed: 0, pending: 0, resumed: 0, errors: [] });
      for (const { id } of tagged) {
        expect(await job(id)).toMatchObject({ state: 'paused', paused_note: note, resume_at: resumeAt });
        const [pause] = await auditOf('job.pause', id);
        expect(pause.details).toMatchObject({ note, operation_id: accepted.body.id, resume_at: resumeAt });
      }
      expect(await job(other.id)).toMatchObject({ state: 'active', paused_note: null, resume_at: null });

      const done = await operationUntil(accepted.body.id, ['succeeded'], 60_000);
      // Resumed by the window's end, not before it.
      expect(Date.parse(done.finished_at)).toBeGreaterThanOrEqual(Date.parse(resumeAt));
      expect(done).toMatchObject({ done: 3, resumed: 3 });
      for (const { id } of tagged) {
        expect(await job(id)).toMatchObject({ state: 'active', paused_note: null, resume_at: null });
        const [resume] = await auditOf('job.resume', id);
        expect(resume).toMatchObject({ actor: 'system', details: { note, operation_id: accepted.body.id } });
      }
    }, 120_000);

    it('should leave a job resumed by hand and paused again alone when the window ends', async () => {
      const kept = await createJob('window-kept', ['window']);
      const accepted = await e2e.api('POST', '/api/v1/jobs/bulk', {
        action: 'pause',
        filter: { ids: [kept.id] },
        note: 'short window',
        resume_at: new Date(Date.now() + 5_000).toISOString(),
      });
      expect(accepted.status).toBe(202);
      await operationUntil(accepted.body.id, ['waiting']);
      expect((await e2e.api('POST', `/api/v1/jobs/${kept.id}/resume`)).status).toBe(200);
      expect((await e2e.api('POST', `/api/v1/jobs/${kept.id}/pause`)).status).toBe(200);
      const done = await operationUntil(accepted.body.id, ['succeeded']);
      expect(done.resumed).toBe(0);
      expect(await job(kept.id)).toMatchObject({ state: 'paused', paused_note: null, resume_at: null });
    }, 60_000);

    it('should answer the matched jobs on a dry run and change nothing', async () => {
      const a = await createJob('dry-a', ['dry']);
      const b = await createJob('dry-b', ['dry']);
      const answer = await e2e.api('POST', '/api/v1/jobs/bulk', {
        action: 'pause',
        filter: { tags: ['dry'] },
        note: 'just looking',
        dry_run: true,
      });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({
        dry_run: true,
        action: 'pause',
        matched: 2,
        jobs: [
          { id: a.id, name: 'dry-a', state: 'active' },
          { id: b.id, name: 'dry-b', state: 'active' },
        ],
      });
      for (const { id } of [a, b]) {
        expect((await job(id)).state).toBe('active');
        expect(await auditOf('job.pause', id)).toEqual([]);
      }
    });

    it('should match by key prefix, managed_by and sink host together', async () => {
      const keyed = await e2e.api('PUT', '/api/v1/jobs/by-key/billing.nightly', {
        name: 'billing nightly',
        schedule: { expr: '0 0 0 1 1 ? 2031' },
        sink: { kind: 'webhook', config: { url: `${e2e.receiver.url}/billing` } },
      });
      expect(keyed.status).toBe(201);
      const port = new URL(e2e.receiver.url).port;
      const byHost = await e2e.api('POST', '/api/v1/jobs/bulk', {
        action: 'trigger',
        filter: { key_prefix: 'billing.', sink_host: `127.0.0.1:${port}` },
        dry_run: true,
      });
      expect(byHost.status).toBe(200);
      expect(byHost.body.jobs.map((j: { id: string }) => j.id)).toEqual([keyed.body.id]);
      const otherHost = await e2e.api('POST', '/api/v1/jobs/bulk', {
        action: 'trigger',
        filter: { key_prefix: 'billing.', sink_host: 'hooks.example.com' },
        dry_run: true,
      });
      expect(otherHost.body.matched).toBe(0);
    });

    it('should refuse bad input with 400 naming the field, and change nothing', async () => {
      const before = (await e2e.api('GET', '/api/v1/jobs?limit=200')).body.data.length;
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ action: 'delete', filter: {} }, 'filter'],
        [{ action: 'pause', filter: {}, note: 'everything' }, 'filter'],
        [{ action: 'delete', filter: { tags: ['maint'] }, all: true }, 'all'],
        [{ action: 'pause', filter: { tags: ['maint'] }, resume_at: '2020-01-01T00:00:00Z' }, 'resume_at'],
        [
          { action: 'resume', filter: { tags: ['maint'] }, resume_at: new Date(Date.now() + 60_000).toISOString() },
          'resume_at',
        ],
        [{ action: 'pause', filter: { tags: ['maint'], state: 'paused' } }, 'filter.state'],
        [{ action: 'pause', filter: { tags: ['maint'], colour: 'red' } }, 'filter.colour'],
        [{ action: 'archive', filter: { tags: ['maint'] } }, 'action'],
        [{ action: 'pause', filter: { ids: [] } }, 'filter.ids'],
      ];
      for (const [body, field] of cases) {
        const answer = await e2e.api('POST', '/api/v1/jobs/bulk', body);
        expect({ body, status: answer.status, code: answer.body.error?.code }).toEqual({
          body,
          status: 400,
          code: 'validation_failed',
        });
        expect(Object.keys(answer.body.error.fields)).toContain(field);
      }
      expect((await e2e.api('GET', '/api/v1/jobs?limit=200')).body.data.length).toBe(before);
    });

    it('should delete every matched job, trigger and enable, recording refusals per job', async () => {
      const a = await createJob('del-a', ['del']);
      const b = await createJob('del-b', ['del']);
      expect((await e2e.api('POST', `/api/v1/jobs/${b.id}/pause`)).status).toBe(200);
      // Enabling applies to disabled jobs only: both are refused, with the lifecycle's reason.
      const enable = await e2e.api('POST', '/api/v1/jobs/bulk', { action: 'enable', filter: { tags: ['del'] } });
      expect(enable.status).toBe(202);
      const enabled = await operationUntil(enable.body.id, ['succeeded']);
      expect(enabled).toMatchObject({ matched: 2, done: 0, failed: 2 });
      expect(enabled.errors).toEqual([
        { target_id: a.id, error: expect.stringContaining('only a disabled job can be enabled') },
        { target_id: b.id, error: expect.stringContaining('only a disabled job can be enabled') },
      ]);

      const removal = await e2e.api('POST', '/api/v1/jobs/bulk', {
        action: 'delete',
        filter: { tags: ['del'] },
        note: 'decommissioned',
      });
      expect(removal.status).toBe(202);
      expect(await operationUntil(removal.body.id, ['succeeded'])).toMatchObject({ done: 2, failed: 0 });
      for (const { id } of [a, b]) {
        expect((await e2e.api('GET', `/api/v1/jobs/${id}`)).status).toBe(404);
        const [entry] = await auditOf('job.delete', id);
        expect(entry.details).toMatchObject({ note: 'decommissioned', operation_id: removal.body.id });
      }
    }, 60_000);
  });

  describe('POST /api/v1/operations/{id}/cancel', () => {
    it('should end a maintenance window with nothing resumed, then answer 409', async () => {
      const held = await createJob('cancel-window', ['cancel']);
      const accepted = await e2e.api('POST', '/api/v1/jobs/bulk', {
        action: 'pause',
        filter: { tags: ['cancel'] },
        resume_at: new Date(Date.now() + 3_600_000).toISOString(),
      });
      await operationUntil(accepted.body.id, ['waiting']);
      const cancel = await e2e.api('POST', `/api/v1/operations/${accepted.body.id}/cancel`);
      expect(cancel.status).toBe(200);
      expect(cancel.body.cancel_requested_at).not.toBeNull();
      const ended = await operationUntil(accepted.body.id, ['cancelled']);
      expect(ended).toMatchObject({ done: 1, resumed: 0 });
      expect((await job(held.id)).state).toBe('paused');
      expect((await e2e.api('POST', `/api/v1/operations/${accepted.body.id}/cancel`)).status).toBe(409);
    }, 60_000);

    it('should answer 404 for an unknown or malformed operation id', async () => {
      expect((await e2e.api('GET', '/api/v1/operations/op_01JAAAAAAAAAAAAAAAAAAAAAAA')).status).toBe(404);
      expect((await e2e.api('GET', '/api/v1/operations/nope')).status).toBe(404);
      expect((await e2e.api('POST', '/api/v1/operations/op_01JAAAAAAAAAAAAAAAAAAAAAAA/cancel')).status).toBe(404);
    });
  });

  describe('POST /api/v1/runs/recover', () => {
    const JOBS = 40;
    const TRIGGERS_PER_JOB = 5;
    const FAILED = JOBS * TRIGGERS_PER_JOB; // 200, as the issue asks

    it('should retry every failed run once, as one operation, and never again', async () => {
      failing = true;
      for (let n = 0; n < JOBS; n++) {
        await createJob(`recover-${n}`, ['recover']);
      }
      // The failed runs: every job triggered a few times by bulk triggers (a receiver answering 500).
      for (let round = 0; round < TRIGGERS_PER_JOB; round++) {
        const trigger = await e2e.api('POST', '/api/v1/jobs/bulk', {
          action: 'trigger',
          filter: { tags: ['recover'] },
        });
        expect(trigger.status).toBe(202);
        expect(await operationUntil(trigger.body.id, ['succeeded'], 120_000)).toMatchObject({ done: JOBS, failed: 0 });
      }
      const failedRuns = async () => {
        let count = 0;
        let cursor: string | null = null;
        do {
          const page: { body: { data: unknown[]; next_cursor: string | null } } = await e2e.api(
            'GET',
            `/api/v1/runs?tag=recover&status=failed&limit=200${cursor ? `&cursor=${cursor}` : ''}`,
          );
          count += page.body.data.length;
          cursor = page.body.next_cursor;
        } while (cursor);
        return count;
      };
      await waitFor(async () => (await failedRuns()) === FAILED, 180_000, 1_000);

      failing = false;
      const deliveredBefore = e2e.receiver.requests.length;
      const dry = await e2e.api('POST', '/api/v1/runs/recover', {
        filter: { tags: ['recover'], status: 'failed' },
        dry_run: true,
      });
      expect(dry.status).toBe(200);
      expect(dry.body.matched).toBe(FAILED);
      expect(e2e.receiver.requests.length).toBe(deliveredBefore);

      const recover = await e2e.api('POST', '/api/v1/runs/recover', {
        filter: { tags: ['recover'] },
        note: 'receiver back after the outage',
      });
      expect(recover.status).toBe(202);
      expect(recover.body).toMatchObject({ kind: 'runs.recover', action: 'retry', matched: FAILED });
      const done = await operationUntil(recover.body.id, ['succeeded'], 180_000);
      expect(done).toMatchObject({ done: FAILED, failed: 0 });

      const retried = async () =>
        (await e2e.api('GET', '/api/v1/runs?tag=recover&trigger=retry_manual&status=succeeded&limit=200')).body.data
          .length;
      await waitFor(async () => (await retried()) === FAILED, 180_000, 1_000);
      expect(e2e.receiver.requests.length - deliveredBefore).toBe(FAILED);

      // Every occurrence has had its one retry: nothing is left to recover.
      const again = await e2e.api('POST', '/api/v1/runs/recover', { filter: { tags: ['recover'] }, dry_run: true });
      expect(again.body.matched).toBe(0);
      const [entry] = await auditOf('runs.recover', recover.body.id);
      expect(entry.details).toMatchObject({ action: 'retry', matched: FAILED, note: 'receiver back after the outage' });
    }, 600_000);

    it('should refuse a filter whose `to` is not after `from`, or a status other than failed', async () => {
      const to = await e2e.api('POST', '/api/v1/runs/recover', {
        filter: { from: '2026-11-02T00:00:00Z', to: '2026-11-01T00:00:00Z' },
      });
      expect(to.status).toBe(400);
      expect(Object.keys(to.body.error.fields)).toContain('filter.to');
      const status = await e2e.api('POST', '/api/v1/runs/recover', { filter: { status: 'succeeded' } });
      expect(status.status).toBe(400);
      expect(Object.keys(status.body.error.fields)).toContain('filter.status');
    });
  });
});

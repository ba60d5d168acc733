import { Webhook } from 'standardwebhooks';
import { useStackAndReceiver } from '../utils/stack';
import { scheduledAtOf, sleep, waitFor } from '../utils/receiver';

/**
 * The walking skeleton end to end (issue #2): real PostgreSQL, a real Temporal dev server, the
 * API over HTTP and webhooks delivered to a real receiver on loopback.
 */
describe('jobs end to end', () => {
  const e2e = useStackAndReceiver();

  async function createJob(body: Record<string, unknown> = {}) {
    const response = await e2e.api('POST', '/api/v1/jobs', {
      name: 'every two seconds',
      schedule: { expr: 'every 2 seconds' },
      sink: { kind: 'webhook', config: { url: `${e2e.receiver.url}/hook` } },
      ...body,
    });
    expect(response.status).toBe(201);
    return response.body;
  }

  describe('POST /api/v1/jobs', () => {
    it('should deliver a signed webhook at every occurrence and record succeeded runs', async () => {
      const job = await createJob();
      expect(job.signing_secret).toMatch(/^whsec_/);
      expect(job.version).toBe(1);
      expect(job.state).toBe('active');

      await waitFor(() => e2e.receiver.forJob(job.id).length >= 3, 20_000);
      const verifier = new Webhook(job.signing_secret);
      for (const request of e2e.receiver.forJob(job.id).slice(0, 3)) {
        const payload = verifier.verify(request.body, {
          'webhook-id': request.headers['webhook-id'] as string,
          'webhook-timestamp': request.headers['webhook-timestamp'] as string,
          'webhook-signature': request.headers['webhook-signature'] as string,
        }) as Record<string, unknown>;
        expect(payload).toMatchObject({ job_id: job.id, job_name: 'every two seconds', attempt: 0 });
        expect(request.headers['idempotency-key']).toBe(payload.run_id);
        expect(request.headers['webhook-id']).toBe(payload.run_id);
        expect(request.headers['svc-attempt']).toBe('0');
        expect(request.headers['svc-job-id']).toBe(job.id);
        expect(scheduledAtOf(request)).toBe(Date.parse(payload.scheduled_at as string));
        // Runs are prepared ahead (scheduler.prepare_ahead); the request itself never leaves early.
        expect(request.at).toBeGreaterThanOrEqual(scheduledAtOf(request));
        expect(request.headers['content-type']).toBe('application/json');
        expect(request.headers['user-agent']).toMatch(/^svc-scheduler\//);
      }

      const runs = await waitFor(async () => {
        const page = await e2e.api('GET', `/api/v1/jobs/${job.id}/runs`);
        const done = page.body.data.filter((r: { status: string }) => r.status === 'succeeded');
        return done.length >= 3 ? page.body.data : null;
      });
      const gaps = runs
        .map((r: { scheduled_at: string }) => Date.parse(r.scheduled_at))
        .sort((a: number, b: number) => a - b)
        .slice(1)
        .map((t: number, i: number, all: number[]) => (i === 0 ? null : t - all[i - 1]))
        .filter((g: number | null) => g !== null);
      for (const gap of gaps) {
        expect(gap).toBe(2000);
      }

      const run = runs.find((r: { status: string }) => r.status === 'succeeded');
      expect(run.trigger).toBe('schedule');
      expect(run.attempts).toBe(1);
      const detail = await e2e.api('GET', `/api/v1/runs/${run.id}`);
      expect(detail.status).toBe(200);
      expect(detail.body.attempts).toHaveLength(1);
      expect(detail.body.attempts[0]).toMatchObject({ n: 0, outcome: 'success', status_code: 200 });
      expect(detail.body.attempts[0].request_summary).toContain(`POST ${e2e.receiver.url}/hook`);

      await e2e.api('DELETE', `/api/v1/jobs/${job.id}`);
    });
  });

  describe('POST /api/v1/jobs answer', () => {
    it('should describe the stored job exactly as GET does', async () => {
      const created = await createJob({ name: 'answer check', schedule: { expr: '0 0 12 ? * MON' } });
      const fetched = await e2e.api('GET', `/api/v1/jobs/${created.id}`);
      expect(fetched.status).toBe(200);
      const shared = Object.keys(created).filter((key) => key !== 'signing_secret' && key in fetched.body);
      expect(shared).toEqual(expect.arrayContaining(['id', 'created_at', 'updated_at', 'next_run_at', 'version']));
      for (const key of shared) {
        expect([key, created[key]]).toEqual([key, fetched.body[key]]);
      }
      await e2e.api('DELETE', `/api/v1/jobs/${created.id}`);
    });
  });

  describe('pause, resume, PATCH, DELETE and trigger', () => {
    it('should stop deliveries on pause and restart them on resume', async () => {
      const job = await createJob({ name: 'pausable' });
      await waitFor(() => e2e.receiver.forJob(job.id).length >= 1);

      const paused = await e2e.api('POST', `/api/v1/jobs/${job.id}/pause`);
      expect(paused.status).toBe(200);
      expect(paused.body.state).toBe('paused');
      expect(paused.body.next_run_at).toBeNull();
      // Pause stops new occurrences; one already in flight may still land, so judge by schedule time.
      // One occurrence of the 2 s cadence falls due while paused: this checks the pause reaches the
      // job's workflow through the API; that it holds for hours is job-workflow.time-skipping.int-spec.ts.
      const pausedAt = Date.now();
      await sleep(2_500);
      expect(e2e.receiver.forJob(job.id).filter((r) => scheduledAtOf(r) > pausedAt)).toEqual([]);

      const again = await e2e.api('POST', `/api/v1/jobs/${job.id}/pause`);
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('conflict');

      const resumed = await e2e.api('POST', `/api/v1/jobs/${job.id}/resume`);
      expect(resumed.status).toBe(200);
      expect(resumed.body.state).toBe('active');
      const resumedAt = Date.now();
      await waitFor(() => e2e.receiver.forJob(job.id).filter((r) => scheduledAtOf(r) > resumedAt).length >= 2);
      await e2e.api('DELETE', `/api/v1/jobs/${job.id}`);
    });

    it('should bump version and change the cadence on PATCH', async () => {
      const job = await createJob({ name: 'patchable' });
      await waitFor(() => e2e.receiver.forJob(job.id).length >= 1);
      const patched = await e2e.api('PATCH', `/api/v1/jobs/${job.id}`, { schedule: { expr: 'every 3 seconds' } });
      expect(patched.status).toBe(200);
      expect(patched.body.version).toBe(2);
      expect(patched.body.schedule.expr).toBe('every 3 seconds');
      const since = Date.now();

      await waitFor(async () => {
        const page = await e2e.api('GET', `/api/v1/jobs/${job.id}/runs?limit=200`);
        return page.body.data.filter((r: { job_version: number }) => r.job_version === 2).length >= 3;
      }, 25_000);
      const page = await e2e.api('GET', `/api/v1/jobs/${job.id}/runs?limit=200`);
      const v2 = page.body.data
        .filter((r: { job_version: number }) => r.job_version === 2)
        .map((r: { scheduled_at: string }) => Date.parse(r.scheduled_at))
        .sort((a: number, b: number) => a - b);
      for (let i = 1; i < v2.length; i++) {
        expect(v2[i] - v2[i - 1]).toBe(3000);
      }
      // Nothing of the old version was scheduled after the update.
      const oldAfter = page.body.data.filter(
        (r: { job_version: number; scheduled_at: string }) => r.job_version === 1 && Date.parse(r.scheduled_at) > since,
      );
      expect(oldAfter).toHaveLength(0);
      await e2e.api('DELETE', `/api/v1/jobs/${job.id}`);
    });

    it('should stop deliveries on DELETE and keep the run history', async () => {
      const job = await createJob({ name: 'deletable' });
      await waitFor(() => e2e.receiver.forJob(job.id).length >= 1);
      const deleted = await e2e.api('DELETE', `/api/v1/jobs/${job.id}`);
      expect(deleted.status).toBe(204);
      const deletedAt = Date.now();
      // One occurrence of the 2 s cadence falls due after the DELETE (the workflow's end on
      // deletion is job-workflow.time-skipping.int-spec.ts).
      await sleep(2_500);
      expect(e2e.receiver.forJob(job.id).filter((r) => scheduledAtOf(r) > deletedAt)).toEqual([]);
      expect((await e2e.api('GET', `/api/v1/jobs/${job.id}`)).status).toBe(404);
      const history = await e2e.api('GET', `/api/v1/runs?job_id=${job.id}`);
      expect(history.body.data.length).toBeGreaterThanOrEqual(1);
    });

    it('should deliver once at once on trigger without changing the schedule', async () => {
      const job = await createJob({ name: 'manual', schedule: { expr: '0 0 0 1 1 ? 2031' } });
      const triggered = await e2e.api('POST', `/api/v1/jobs/${job.id}/trigger`);
      expect(triggered.status).toBe(202);
      expect(triggered.body.run_id).toMatch(/^run_/);
      await waitFor(() => e2e.receiver.forJob(job.id).length >= 1, 15_000);
      const request = e2e.receiver.forJob(job.id)[0];
      expect(request.headers['webhook-id']).toBe(triggered.body.run_id);
      const run = await waitFor(async () => {
        const r = await e2e.api('GET', `/api/v1/runs/${triggered.body.run_id}`);
        return r.body?.status === 'succeeded' ? r.body : null;
      });
      expect(run.trigger).toBe('manual');
      await sleep(2_000);
      expect(e2e.receiver.forJob(job.id)).toHaveLength(1);
      const after = await e2e.api('GET', `/api/v1/jobs/${job.id}`);
      expect(after.body.next_run_at).toBe('2031-01-01T00:00:00.000Z');
      await e2e.api('DELETE', `/api/v1/jobs/${job.id}`);
    });
  });
});

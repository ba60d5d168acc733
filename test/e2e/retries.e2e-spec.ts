import { Webhook } from 'standardwebhooks';
import { useStackAndReceiver } from '../utils/stack';
import { waitFor } from '../utils/receiver';

/** Retries, classification and failure bookkeeping through the real run workflow (issue #2). */
describe('delivery retries', () => {
  const e2e = useStackAndReceiver({
    respond: (request) => {
      const path = request.url;
      const n = (seen.get(path) ?? 0) + 1;
      seen.set(path, n);
      if (path.startsWith('/flaky')) {
        return n <= 2 ? { status: 503, body: 'busy' } : { status: 200, body: 'ok' };
      }
      if (path.startsWith('/throttled')) {
        return n === 1 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 204 };
      }
      if (path.startsWith('/missing')) {
        return { status: 404, body: 'no such hook' };
      }
      return { status: 200 };
    },
  });
  const seen = new Map<string, number>();

  async function jobAt(path: string, extra: Record<string, unknown> = {}) {
    const created = await e2e.api('POST', '/api/v1/jobs', {
      name: `job ${path}`,
      schedule: { expr: '0 0 0 1 1 ? 2031' },
      sink: { kind: 'webhook', config: { url: `${e2e.receiver.url}${path}` } },
      retry: { max_attempts: 3, initial_interval: '200ms', max_interval: '2s', jitter: 0 },
      ...extra,
    });
    expect(created.status).toBe(201);
    return created.body;
  }

  async function finishedRun(runId: string) {
    return waitFor(async () => {
      const run = await e2e.api('GET', `/api/v1/runs/${runId}`);
      return ['succeeded', 'failed'].includes(run.body?.status) ? run.body : null;
    }, 30_000);
  }

  it('should retry retryable responses with the same webhook-id and record every attempt', async () => {
    const job = await jobAt('/flaky');
    const { run_id: runId } = (await e2e.api('POST', `/api/v1/jobs/${job.id}/trigger`)).body;
    const run = await finishedRun(runId);
    expect(run.status).toBe('succeeded');
    expect(
      run.attempts.map((a: { n: number; outcome: string; status_code: number }) => [a.n, a.outcome, a.status_code]),
    ).toEqual([
      [0, 'retryable', 503],
      [1, 'retryable', 503],
      [2, 'success', 200],
    ]);
    expect(run.attempts[0].response_body).toBe('busy');
    expect(run.attempts[2].response_body).toBeNull();
    const requests = e2e.receiver.forJob(job.id);
    expect(requests.map((r) => r.headers['svc-attempt'])).toEqual(['0', '1', '2']);
    expect(new Set(requests.map((r) => r.headers['webhook-id']))).toEqual(new Set([runId]));
    const verifier = new Webhook(job.signing_secret);
    requests.forEach((r, i) => {
      const payload = verifier.verify(r.body, {
        'webhook-id': r.headers['webhook-id'] as string,
        'webhook-timestamp': r.headers['webhook-timestamp'] as string,
        'webhook-signature': r.headers['webhook-signature'] as string,
      }) as { attempt: number };
      expect(payload.attempt).toBe(i);
    });
    const after = (await e2e.api('GET', `/api/v1/jobs/${job.id}`)).body;
    expect(after).toMatchObject({ consecutive_failures: 0, last_run_status: 'succeeded' });
  });

  it('should honour Retry-After on 429', async () => {
    const job = await jobAt('/throttled');
    const { run_id: runId } = (await e2e.api('POST', `/api/v1/jobs/${job.id}/trigger`)).body;
    const run = await finishedRun(runId);
    expect(run.status).toBe('succeeded');
    const [first, second] = run.attempts;
    expect(first.status_code).toBe(429);
    expect(Date.parse(second.started_at) - Date.parse(first.finished_at)).toBeGreaterThanOrEqual(900);
  });

  it('should fail at once on a fatal response and auto-disable at the threshold', async () => {
    const job = await jobAt('/missing', { auto_disable_threshold: 2 });
    const first = await finishedRun((await e2e.api('POST', `/api/v1/jobs/${job.id}/trigger`)).body.run_id);
    expect(first.status).toBe('failed');
    expect(first.attempts).toHaveLength(1);
    expect(first.attempts[0]).toMatchObject({ outcome: 'fatal', status_code: 404, response_body: 'no such hook' });
    expect(first.last_error).toContain('404');
    expect((await e2e.api('GET', `/api/v1/jobs/${job.id}`)).body).toMatchObject({
      consecutive_failures: 1,
      state: 'active',
    });

    await finishedRun((await e2e.api('POST', `/api/v1/jobs/${job.id}/trigger`)).body.run_id);
    const disabled = await waitFor(async () => {
      const current = (await e2e.api('GET', `/api/v1/jobs/${job.id}`)).body;
      return current.state === 'disabled' ? current : null;
    });
    expect(disabled.disabled_reason).toBe('auto_disabled: 2 consecutive failed runs');
    const audit = await e2e.stack.dataSource.query(
      `SELECT actor, action FROM audit_log WHERE target = $1 AND action = 'job.auto_disable'`,
      [job.id],
    );
    expect(audit).toEqual([{ actor: 'system', action: 'job.auto_disable' }]);
    expect((await e2e.api('POST', `/api/v1/jobs/${job.id}/trigger`)).status).toBe(409);

    const enabled = await e2e.api('POST', `/api/v1/jobs/${job.id}/enable`);
    expect(enabled.body).toMatchObject({ state: 'active', consecutive_failures: 0, disabled_reason: null });
    const failedOnly = await e2e.api('GET', `/api/v1/jobs/${job.id}/runs?status=failed`);
    expect(failedOnly.body.data).toHaveLength(2);
  });

  it('should mark exhausted retries failed with the last error', async () => {
    e2e.receiver.respondWith(() => ({ status: 500, body: 'down' }));
    const job = await jobAt('/down', { retry: { max_attempts: 2, initial_interval: '100ms', jitter: 0 } });
    const run = await finishedRun((await e2e.api('POST', `/api/v1/jobs/${job.id}/trigger`)).body.run_id);
    expect(run.status).toBe('failed');
    expect(run.attempts.map((a: { outcome: string }) => a.outcome)).toEqual(['retryable', 'retryable']);
    expect(run.last_error).toContain('500');
    expect(run.finished_at).not.toBeNull();
  });
});

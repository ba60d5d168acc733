import { useStackAndReceiver } from '../utils/stack';
import { type ReceivedRequest, waitFor } from '../utils/receiver';

/**
 * Per-run overrides (issue 45; docs/api.md → Per-run overrides): a trigger's and a manual retry's
 * `overrides` reach a real loopback receiver for that run only, are recorded on the run and in
 * the audit log, never in the job; bad overrides are `400` naming `overrides.*`, nothing written.
 */
describe('per-run overrides', () => {
  const TOKEN = 'override-token-value-7f3a';
  const e2e = useStackAndReceiver({
    respond: (request) =>
      request.url.startsWith('/strict') && !request.body.includes('fixed') ? { status: 400 } : { status: 200 },
  });

  beforeAll(async () => {
    // `/strict` refuses (400, not retried) any body but a fixed one: a run to retry.
    expect((await e2e.api('PUT', '/api/v1/secrets/TOKEN', { value: TOKEN })).status).toBe(201);
  });

  const byRun = (runId: string) => e2e.receiver.requests.filter((r) => r.headers['webhook-id'] === runId);

  async function finished(runId: string) {
    return waitFor(async () => {
      const run = (await e2e.api('GET', `/api/v1/runs/${runId}`)).body;
      return ['succeeded', 'failed'].includes(run.status) ? run : null;
    }, 30_000);
  }

  it('should deliver a trigger’s body and header overrides once, and the job’s own body on its next scheduled run', async () => {
    const job = (
      await e2e.api('POST', '/api/v1/jobs', {
        name: 'overridden',
        schedule: { expr: 'every 2 seconds' },
        sink: {
          kind: 'webhook',
          config: { url: `${e2e.receiver.url}/own`, body: '{"kind":"own"}', headers: { 'X-Mode': 'job' } },
        },
      })
    ).body;
    const overrides = {
      body: '{"kind":"override","full":{{vars.full}},"run":"{{run.id}}"}',
      headers: { 'x-mode': 'override', 'X-Token': '{{secret.TOKEN}}' },
      vars: { full: 'true' },
    };
    const triggered = await e2e.api('POST', `/api/v1/jobs/${job.id}/trigger`, { overrides });
    expect(triggered.status).toBe(202);
    const runId: string = triggered.body.run_id;
    expect((await e2e.api('GET', `/api/v1/runs/${runId}`)).body).toMatchObject({ trigger: 'manual', overrides });

    expect(await finished(runId)).toMatchObject({ status: 'succeeded' });
    const sent = byRun(runId);
    expect(sent).toHaveLength(1);
    expect(JSON.parse(sent[0].body)).toEqual({ kind: 'override', full: true, run: runId });
    // The override replaced the job's header of another case; the secret was rendered.
    expect(sent[0].headers['x-mode']).toBe('override');
    expect(sent[0].headers['x-token']).toBe(TOKEN);

    // The schedule goes on with the job's own sink: the next scheduled run after the trigger.
    const scheduled = await waitFor(
      () =>
        e2e.receiver
          .forJob(job.id)
          .find((r: ReceivedRequest) => r.headers['webhook-id'] !== runId && r.at > sent[0].at) ?? null,
      30_000,
    );
    expect(scheduled.body).toBe('{"kind":"own"}');
    expect(scheduled.headers['x-mode']).toBe('job');
    expect(scheduled.headers['x-token']).toBeUndefined();
    await e2e.api('POST', `/api/v1/jobs/${job.id}/pause`);

    const stored = (await e2e.api('GET', `/api/v1/jobs/${job.id}`)).body;
    expect(stored.sink.config).toMatchObject({ body: '{"kind":"own"}', headers: { 'X-Mode': 'job' } });
    const audit = (await e2e.api('GET', '/api/v1/audit-log?limit=200')).body.data;
    expect(
      audit.find((e: { action: string; target: string }) => e.action === 'job.trigger' && e.target === job.id),
    ).toMatchObject({ details: { run_id: runId, overrides } });
  });

  it('should retry a failed run with the retry’s overrides, recorded on the retry', async () => {
    const job = (
      await e2e.api('POST', '/api/v1/jobs', {
        name: 'strict',
        schedule: { expr: 'every day at 3am' },
        sink: { kind: 'webhook', config: { url: `${e2e.receiver.url}/strict`, body: '{"v":1}' } },
        retry: { max_attempts: 1 },
      })
    ).body;
    const failed = (await e2e.api('POST', `/api/v1/jobs/${job.id}/trigger`)).body.run_id;
    expect(await finished(failed)).toMatchObject({ status: 'failed', overrides: null });

    const retry = await e2e.api('POST', `/api/v1/runs/${failed}/retry`, { overrides: { body: '{"v":"fixed"}' } });
    expect(retry.status).toBe(202);
    expect(retry.body).toMatchObject({ trigger: 'retry_manual', overrides: { body: '{"v":"fixed"}' } });
    expect(await finished(retry.body.id)).toMatchObject({ status: 'succeeded' });
    expect(byRun(retry.body.id).map((r) => r.body)).toEqual(['{"v":"fixed"}']);
    const audit = (await e2e.api('GET', '/api/v1/audit-log?limit=200')).body.data;
    expect(
      audit.find((e: { action: string; target: string }) => e.action === 'run.retry' && e.target === failed),
    ).toMatchObject({ details: { retry_run_id: retry.body.id, overrides: { body: '{"v":"fixed"}' } } });
  });

  it('should answer bad overrides with 400 naming each field, and write nothing', async () => {
    const job = (
      await e2e.api('POST', '/api/v1/jobs', {
        name: 'refused',
        schedule: { expr: 'every day at 3am' },
        sink: { kind: 'webhook', config: { url: `${e2e.receiver.url}/refused` } },
      })
    ).body;
    const auditBefore = (await e2e.api('GET', '/api/v1/audit-log?limit=200')).body.data.length;
    const cases: Array<[unknown, Record<string, RegExp>]> = [
      [{ body: '{{secret.MISSING}}' }, { 'overrides.body': /unknown secret "MISSING"/ }],
      [{ body: '{{vars.nope}}' }, { 'overrides.body': /unknown template variable "\{\{vars\.nope\}\}"/ }],
      [{ headers: { 'Content-Type': 'text/plain' } }, { 'overrides.headers.Content-Type': /reserved/ }],
      [{ headers: { 'X-A': '{{secret.GONE}}' }, args: [] }, { 'overrides.args': /no such override/ }],
      [{ vars: { leak: '{{secret.TOKEN}}' } }, { 'overrides.vars.leak': /templates are not allowed/ }],
      [{ body: 42 }, { 'overrides.body': /./ }],
      ['a string', { overrides: /object/ }],
    ];
    for (const [overrides, expected] of cases) {
      const refused = await e2e.api('POST', `/api/v1/jobs/${job.id}/trigger`, { overrides });
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe('validation_failed');
      for (const [field, message] of Object.entries(expected)) {
        expect(refused.body.error.fields[field]).toMatch(message);
      }
    }
    expect((await e2e.api('GET', `/api/v1/runs?job_id=${job.id}`)).body.data).toEqual([]);
    expect((await e2e.api('GET', '/api/v1/audit-log?limit=200')).body.data).toHaveLength(auditBefore);
    // No body at all is still a plain trigger.
    expect((await e2e.api('POST', `/api/v1/jobs/${job.id}/trigger`)).status).toBe(202);
  });
});

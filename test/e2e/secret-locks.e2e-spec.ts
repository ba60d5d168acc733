import { resolve } from 'node:path';
import { useStack } from '../utils/stack';

/**
 * Secret locks from one home (issue 41): `DELETE /secrets/{name}` refuses (409 naming the job,
 * nothing deleted) for a job of ANY sink kind that uses the secret in a field its kind declares
 * as a template (`secretsUsedBy`), and deletes once the reference is gone. A job of a kind this
 * server no longer knows locks every secret its config mentions.
 */
describe('a secret in use is locked for every sink kind', () => {
  const e2e = useStack({
    worker: false,
    config: {
      sinks: {
        command: { enabled: true },
        modules: [resolve(__dirname, '../fixtures/memory-sink/memory-sink.module.ts')],
      },
    },
  });

  async function secretNames(): Promise<string[]> {
    return (await e2e.api('GET', '/api/v1/secrets?limit=200')).body.data.map((s: { name: string }) => s.name);
  }

  async function createJob(name: string, sink: { kind: string; config: Record<string, unknown> }) {
    const created = await e2e.api('POST', '/api/v1/jobs', { name, schedule: { expr: 'every day at 3am' }, sink });
    expect(created.status).toBe(201);
    return created.body as { id: string };
  }

  /** DELETE is refused naming the job; the secret is still there (and still listed). */
  async function expectLocked(secret: string, job: { id: string }, jobName: string): Promise<void> {
    const refused = await e2e.api('DELETE', `/api/v1/secrets/${secret}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('conflict');
    expect(refused.body.error.message).toContain(job.id);
    expect(refused.body.error.message).toContain(JSON.stringify(jobName));
    expect(refused.body.error.message).toContain(`{{secret.${secret}}}`);
    expect(await secretNames()).toContain(secret);
    const audit = (await e2e.api('GET', '/api/v1/audit-log?limit=200')).body.data as Array<{
      action: string;
      target: string;
    }>;
    expect(audit.filter((e) => e.action === 'secret.delete' && e.target === secret)).toEqual([]);
  }

  async function expectDeletable(secret: string): Promise<void> {
    expect((await e2e.api('DELETE', `/api/v1/secrets/${secret}`)).status).toBe(204);
    expect(await secretNames()).not.toContain(secret);
  }

  it('webhook: a secret in a header value and one in the body', async () => {
    await e2e.api('PUT', '/api/v1/secrets/WH_HEADER', { value: 'h-value' });
    await e2e.api('PUT', '/api/v1/secrets/WH_BODY', { value: 'b-value' });
    const sink = (config: Record<string, unknown>) => ({
      kind: 'webhook',
      config: { url: 'https://example.com/hook', ...config },
    });
    const job = await createJob(
      'webhook user',
      sink({ headers: { 'X-Key': '{{secret.WH_HEADER}}' }, body: 'k={{ secret.WH_BODY }}' }),
    );
    await expectLocked('WH_HEADER', job, 'webhook user');
    await expectLocked('WH_BODY', job, 'webhook user');

    expect(
      (await e2e.api('PATCH', `/api/v1/jobs/${job.id}`, { sink: sink({ headers: {}, body: 'k={{secret.WH_BODY}}' }) }))
        .status,
    ).toBe(200);
    await expectDeletable('WH_HEADER');
    await expectLocked('WH_BODY', job, 'webhook user');
    expect((await e2e.api('PATCH', `/api/v1/jobs/${job.id}`, { sink: sink({ body: 'no secret' }) })).status).toBe(200);
    await expectDeletable('WH_BODY');
  });

  it('temporal_workflow: a secret nested in args (what issue 41 found deletable)', async () => {
    await e2e.api('PUT', '/api/v1/secrets/WF_ARG', { value: 'arg-value' });
    const sink = (args: unknown[]) => ({
      kind: 'temporal_workflow',
      config: { task_queue: 'reports-queue', workflow_type: 'buildReport', args },
    });
    const job = await createJob('workflow user', sink([{ auth: { token: '{{secret.WF_ARG}}' } }, 7]));
    await expectLocked('WF_ARG', job, 'workflow user');

    expect((await e2e.api('PATCH', `/api/v1/jobs/${job.id}`, { sink: sink([{ auth: null }, 7]) })).status).toBe(200);
    await expectDeletable('WF_ARG');
  });

  it('command: its kind declares no template field (argv and env are sent as written), so nothing is locked', async () => {
    await e2e.api('PUT', '/api/v1/secrets/CMD_LITERAL', { value: 'never-rendered' });
    const job = await createJob('command job', {
      kind: 'command',
      config: { argv: ['/bin/echo', '{{secret.CMD_LITERAL}}'], env: { TOKEN: '{{secret.CMD_LITERAL}}' } },
    });
    // The text mentions the secret (the repository's prefilter finds the job), but the kind
    // never renders it: deleting it cannot break the job.
    await expectDeletable('CMD_LITERAL');
    expect((await e2e.api('GET', `/api/v1/jobs/${job.id}`)).body.sink.config.argv).toEqual([
      '/bin/echo',
      '{{secret.CMD_LITERAL}}',
    ]);
  });

  it('an extension kind (sinks.modules): its declared template field', async () => {
    await e2e.api('PUT', '/api/v1/secrets/EXT_MSG', { value: 'ext-value' });
    const job = await createJob('memory user', {
      kind: 'memory',
      config: { channel: 'ops', message: 'key {{secret.EXT_MSG}}' },
    });
    await expectLocked('EXT_MSG', job, 'memory user');

    expect(
      (
        await e2e.api('PATCH', `/api/v1/jobs/${job.id}`, {
          sink: { kind: 'memory', config: { channel: 'ops', message: 'none' } },
        })
      ).status,
    ).toBe(200);
    await expectDeletable('EXT_MSG');
  });

  it('a kind this server no longer knows (its module removed) locks any mention, until the job goes', async () => {
    await e2e.api('PUT', '/api/v1/secrets/GONE_KIND', { value: 'gone-value' });
    const job = await createJob('orphaned job', {
      kind: 'memory',
      config: { channel: 'ops', message: 'key {{secret.GONE_KIND}}' },
    });
    // What a job created under a module later dropped from sinks.modules looks like.
    await e2e.stack.dataSource.query(`UPDATE jobs SET sink_kind = 'retired_pager' WHERE id = $1`, [job.id]);
    await expectLocked('GONE_KIND', job, 'orphaned job');

    expect((await e2e.api('DELETE', `/api/v1/jobs/${job.id}`)).status).toBe(204);
    await expectDeletable('GONE_KIND');
  });
});

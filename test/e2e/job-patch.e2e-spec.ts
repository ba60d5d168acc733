import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { applyJobPatch, type JobPatch, type JobSettings } from '../../apps/api/src/jobs/job-patch';
import { waitFor } from '../utils/receiver';
import { apiClient, startStack, useStackAndReceiver } from '../utils/stack';
import { JOB_SETTING_FIELDS } from '@svc/common/job-settings';
import { fullWebhookJob } from '../fixtures/full-webhook-job';

/**
 * Issue #22 "edits never lose settings": `PATCH /api/v1/jobs/{id}` over the assembled API, a worker
 * on Temporal and a loopback receiver. Any subset of the create fields merges with the stored job
 * (the rule in apps/api/src/jobs/job-patch.ts), `null` resets, a sink kind change needs the new
 * kind's complete config, and a refused PATCH writes nothing.
 */
jest.setTimeout(180_000);

/** The settings compared here: every setting of a job but the start window and the concurrency limit. */
const PATCH_SETTINGS = JOB_SETTING_FIELDS.filter(
  (field) => field !== 'start_window' && field !== 'max_concurrent_runs',
);

/** The settings part of a job object (what a PATCH can change), in the create body's shape. */
function settingsOf(job: Record<string, any>): JobSettings {
  const picked = Object.fromEntries(PATCH_SETTINGS.map((key) => [key, job[key]])) as unknown as JobSettings;
  const { expr, kind, timezone, starts_at, ends_at, count } = job.schedule;
  return { ...picked, schedule: { expr, kind, timezone, starts_at, ends_at, count } };
}

describe('PATCH /api/v1/jobs/{id}', () => {
  const e2e = useStackAndReceiver({ config: { sinks: { command: { enabled: true } } } });

  beforeAll(async () => {
    expect((await e2e.api('PUT', '/api/v1/secrets/TOKEN', { value: 's3cr3t' })).status).toBe(201);
  });

  /** A webhook job with a non-default value in every field. */
  const fullJob = () => fullWebhookJob('full', `${e2e.receiver.url}/full`);

  async function create(body: Record<string, unknown> = fullJob()) {
    const created = await e2e.api('POST', '/api/v1/jobs', body);
    expect(created.status).toBe(201);
    return created.body;
  }

  const get = async (id: string) => (await e2e.api('GET', `/api/v1/jobs/${id}`)).body;

  it('should keep every other setting, secret references and the signing secret included, when one field changes', async () => {
    const job = await create();
    const patched = await e2e.api('PATCH', `/api/v1/jobs/${job.id}`, {
      sink: { config: { url: `${e2e.receiver.url}/moved` } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.signing_secret).toBeUndefined();
    const expected = settingsOf(job);
    expected.sink.config.url = `${e2e.receiver.url}/moved`;
    expect(settingsOf(patched.body)).toEqual(expected);
    expect(settingsOf(await get(job.id))).toEqual(expected);
    expect(patched.body.version).toBe(job.version + 1);

    // It still delivers with the secret resolved, signed with the secret of the create response.
    expect((await e2e.api('PATCH', `/api/v1/jobs/${job.id}`, { schedule: { starts_at: null } })).status).toBe(200);
    const triggered = await e2e.api('POST', `/api/v1/jobs/${job.id}/trigger`);
    expect(triggered.status).toBe(202);
    await waitFor(() => e2e.receiver.forJob(job.id).length >= 1, 30_000);
    const [request] = e2e.receiver.forJob(job.id);
    expect(request.method).toBe('PUT');
    expect(request.url).toBe('/moved');
    expect(request.headers.authorization).toBe('Bearer s3cr3t');
    expect(JSON.parse(request.body)).toEqual({ job: 'full' });
    new Webhook(job.signing_secret).verify(request.body, {
      'webhook-id': request.headers['webhook-id'] as string,
      'webhook-timestamp': request.headers['webhook-timestamp'] as string,
      'webhook-signature': request.headers['webhook-signature'] as string,
    });
  });

  it('should read back stored ⊕ patch for any subset of the create fields (property, against the API)', async () => {
    const job = await create();
    const patchArb: fc.Arbitrary<JobPatch> = fc.record(
      {
        name: fc.constantFrom('renamed', 'other name'),
        description: fc.oneof(fc.constant(null), fc.constantFrom('x', 'changed')),
        tags: fc.oneof(fc.constant(null), fc.constant<string[]>(['y'])),
        schedule: fc.record(
          {
            expr: fc.constantFrom('every 9 minutes', '0 0/10 * * * ?'),
            timezone: fc.constantFrom('UTC', 'America/New_York'),
            count: fc.oneof(fc.constant(null), fc.integer({ min: 1, max: 99 })),
            ends_at: fc.oneof(fc.constant(null), fc.constant('2032-01-01T00:00:00.000Z')),
          },
          { requiredKeys: [] },
        ),
        sink: fc.record(
          {
            config: fc.record(
              {
                method: fc.oneof(fc.constant(null), fc.constantFrom('POST', 'DELETE')),
                headers: fc.constant({ 'X-Only': '1' }),
                body: fc.constant(null),
                success_codes: fc.oneof(fc.constant(null), fc.constant<number[]>([204])),
                retry_on: fc.oneof(fc.constant(null), fc.constant<string[]>(['5xx'])),
                follow_redirects: fc.oneof(fc.constant(null), fc.boolean()),
              },
              { requiredKeys: [] },
            ),
          },
          { requiredKeys: ['config'] },
        ),
        retry: fc.oneof(
          fc.constant(null),
          fc.record(
            {
              max_attempts: fc.integer({ min: 1, max: 20 }),
              backoff: fc.oneof(fc.constant(null), fc.constantFrom('fixed', 'exponential')),
              jitter: fc.oneof(fc.constant(null), fc.constantFrom(0, 1)),
              max_interval: fc.constantFrom('1m', '1h'),
            },
            { requiredKeys: [] },
          ),
        ),
        timeout: fc.oneof(fc.constant(null), fc.constantFrom('10s', '2m')),
        sla_threshold: fc.oneof(fc.constant(null), fc.constantFrom('1m', '1h')),
        misfire_policy: fc.oneof(fc.constant(null), fc.constantFrom('skip', 'fire_once')),
        overlap_policy: fc.oneof(fc.constant(null), fc.constantFrom('skip', 'cancel_previous')),
        auto_disable_threshold: fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 20 })),
      },
      { requiredKeys: [] },
    );
    // The server's defaults of the webhook config (sink.validator.ts): what a removed field reads back as.
    const webhookDefaults = {
      method: 'POST',
      headers: {},
      success_codes: '2xx',
      retry_on: ['5xx', 408, 429, 'network', 'timeout'],
      follow_redirects: false,
    };
    await fc.assert(
      fc.asyncProperty(patchArb, async (patch) => {
        const before = settingsOf(await get(job.id));
        const patched = await e2e.api('PATCH', `/api/v1/jobs/${job.id}`, patch);
        expect(patched.status).toBe(200);
        const expected = applyJobPatch(before, patch);
        expected.sink.config = { ...webhookDefaults, ...expected.sink.config };
        const after = settingsOf(await get(job.id));
        if (expected.schedule.kind === 'auto') {
          expected.schedule.kind = after.schedule.kind; // detected from the expression
        }
        expect(after).toEqual(expected);
        expect(settingsOf(patched.body)).toEqual(after);
      }),
      { numRuns: 12, seed: 22 },
    );
  });

  it('should reset to the default on null where one exists, and refuse null where none does', async () => {
    const job = await create();
    const patched = await e2e.api('PATCH', `/api/v1/jobs/${job.id}`, {
      schedule: { kind: null, timezone: null, starts_at: null, ends_at: null, count: null },
      sink: { config: { method: null, headers: null, body: null, success_codes: null, retry_on: null } },
      retry: { jitter: null, multiplier: null },
      timeout: null,
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      schedule: {
        expr: 'every 7 minutes',
        kind: 'natural',
        timezone: 'UTC',
        starts_at: null,
        ends_at: null,
        count: null,
      },
      sink: {
        kind: 'webhook',
        config: {
          url: `${e2e.receiver.url}/full`,
          method: 'POST',
          headers: {},
          success_codes: '2xx',
          retry_on: ['5xx', 408, 429, 'network', 'timeout'],
          follow_redirects: true,
        },
      },
      retry: { ...fullJob().retry, multiplier: 2, jitter: 0.2 },
      timeout: '30s',
      sla_threshold: '3m',
    });
    expect(patched.body.sink.config.body).toBeUndefined();
    for (const body of [{ name: null }, { schedule: null }, { sink: null }, { schedule: { expr: null } }]) {
      const refused = await e2e.api('PATCH', `/api/v1/jobs/${job.id}`, body);
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe('validation_failed');
      expect(Object.keys(refused.body.error.fields).length).toBeGreaterThan(0);
    }
  });

  it('should refuse a PATCH whose merged job is invalid with 400 naming the fields, and write nothing', async () => {
    const job = await create();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ sink: { config: { url: null } } }, 'sink.config.url'],
      [{ sink: { config: { retry_on: ['sometimes'] } } }, 'sink.config.retry_on'],
      [{ sink: { config: { headers: { 'X-Key': '{{secret.MISSING}}' } } } }, 'sink.config.headers.X-Key'],
      [{ sink: { config: { extra: 1 } } }, 'sink.config.extra'],
      [{ sink: { kind: 'command' } }, 'sink.config'],
      [{ sink: { kind: 'command', config: { cwd: '/tmp' } } }, 'sink.config.argv'],
      [{ retry: { initial_interval: '5m' } }, 'retry.initial_interval'], // above the stored max_interval (2m)
      [{ schedule: { ends_at: '2029-06-01T00:00:00.000Z' } }, 'schedule.ends_at'], // before the stored starts_at
      [{ schedule: { timezone: 'Mars/Olympus' } }, 'schedule.timezone'],
      [{ description: 'ok', schedule: { expr: 'evry day' } }, 'schedule.expr'],
    ];
    for (const [body, field] of cases) {
      const refused = await e2e.api('PATCH', `/api/v1/jobs/${job.id}`, body);
      expect([field, refused.status, refused.body.error.code]).toEqual([field, 400, 'validation_failed']);
      expect([field, Object.keys(refused.body.error.fields)]).toEqual([field, expect.arrayContaining([field])]);
    }
    const after = await get(job.id);
    expect(after.version).toBe(job.version);
    expect(settingsOf(after)).toEqual(settingsOf(job));
  });

  it('should change the sink kind with a complete config: to command (secret dropped) and back to webhook (a new secret, shown once)', async () => {
    const job = await create();
    const toCommand = await e2e.api('PATCH', `/api/v1/jobs/${job.id}`, {
      sink: { kind: 'command', config: { argv: ['/bin/echo', 'hello'], env: { A: '1' }, retry_on_exit_codes: [75] } },
    });
    expect(toCommand.status).toBe(200);
    expect(toCommand.body.sink).toEqual({
      kind: 'command',
      config: { argv: ['/bin/echo', 'hello'], env: { A: '1' }, retry_on_exit_codes: [75] },
    });
    expect(toCommand.body.signing_secret).toBeUndefined();
    expect((await e2e.api('POST', `/api/v1/jobs/${job.id}/rotate-signing-secret`)).status).toBe(409);
    // Same kind: the command config merges field by field too.
    const argv = await e2e.api('PATCH', `/api/v1/jobs/${job.id}`, { sink: { config: { argv: ['/bin/echo', 'bye'] } } });
    expect(argv.body.sink.config).toEqual({ argv: ['/bin/echo', 'bye'], env: { A: '1' }, retry_on_exit_codes: [75] });
    const run = await e2e.api('POST', `/api/v1/jobs/${job.id}/trigger`);
    await waitFor(
      async () => (await e2e.api('GET', `/api/v1/runs/${run.body.run_id}`)).body.status === 'succeeded',
      30_000,
    );

    const toWebhook = await e2e.api('PATCH', `/api/v1/jobs/${job.id}`, {
      sink: {
        kind: 'webhook',
        config: { url: `${e2e.receiver.url}/back`, headers: { Authorization: '{{secret.TOKEN}}' } },
      },
    });
    expect(toWebhook.status).toBe(200);
    expect(toWebhook.body.signing_secret).toMatch(/^whsec_/);
    expect(toWebhook.body.sink.config).toMatchObject({ url: `${e2e.receiver.url}/back`, method: 'POST' });
    expect((await get(job.id)).signing_secret).toBeUndefined();
    // The rest of the job was kept through both changes.
    const { sink: _sink, ...rest } = settingsOf(job);
    const { sink: _now, ...restNow } = settingsOf(toWebhook.body);
    expect(restNow).toEqual(rest);

    await e2e.api('POST', `/api/v1/jobs/${job.id}/trigger`);
    await waitFor(() => e2e.receiver.forJob(job.id).some((r) => r.url === '/back'), 30_000);
    const request = e2e.receiver.forJob(job.id).find((r) => r.url === '/back')!;
    expect(request.headers.authorization).toBe('s3cr3t');
    new Webhook(toWebhook.body.signing_secret).verify(request.body, {
      'webhook-id': request.headers['webhook-id'] as string,
      'webhook-timestamp': request.headers['webhook-timestamp'] as string,
      'webhook-signature': request.headers['webhook-signature'] as string,
    });
  });

  it('should keep every one of concurrent PATCHes of different settings (merged under the row lock)', async () => {
    const job = await create();
    const patches = [
      { sink: { config: { method: 'GET' } } },
      { sink: { config: { follow_redirects: false } } },
      { retry: { jitter: 0 } },
      { retry: { max_attempts: 2 } },
      { description: 'concurrent' },
      { schedule: { timezone: 'UTC' } },
    ];
    const answers = await Promise.all(patches.map((body) => e2e.api('PATCH', `/api/v1/jobs/${job.id}`, body)));
    expect(answers.map((a) => a.status)).toEqual(patches.map(() => 200));
    const after = await get(job.id);
    expect(after.version).toBe(job.version + patches.length);
    expect(settingsOf(after)).toEqual({
      ...settingsOf(job),
      description: 'concurrent',
      schedule: { ...settingsOf(job).schedule, timezone: 'UTC' },
      retry: { ...job.retry, jitter: 0, max_attempts: 2 },
      sink: { kind: 'webhook', config: { ...job.sink.config, method: 'GET', follow_redirects: false } },
    });
  });

  it('should refuse a change to the command sink where the server disables it, naming sink.kind', async () => {
    const off = await startStack({ worker: false });
    try {
      const call = apiClient(off.baseUrl, off.apiKey);
      const job = (
        await call('POST', '/api/v1/jobs', {
          name: 'w',
          schedule: { expr: 'every 5 minutes' },
          sink: { kind: 'webhook', config: { url: 'https://example.com/h' } },
        })
      ).body;
      const refused = await call('PATCH', `/api/v1/jobs/${job.id}`, {
        sink: { kind: 'command', config: { argv: ['/bin/true'] } },
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error.fields).toEqual({ 'sink.kind': expect.stringContaining('disabled') });
      expect((await call('GET', `/api/v1/jobs/${job.id}`)).body.sink.kind).toBe('webhook');
    } finally {
      await off.stop();
    }
  });
});

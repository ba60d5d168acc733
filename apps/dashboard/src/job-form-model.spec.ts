import fc from 'fast-check';
import { CREATE_JOB_DEFAULTS } from '@svc/api-client';
import type { Job, SinkKindInfo } from './api';
import { fullWebhookJob } from '../../../test/fixtures/full-webhook-job';
import { createBody, emptyForm, fromJob, patchBody, sinkFieldErrors } from './job-form-model';

// Issue #22: the dashboard's edit sends only what the user changed.

const webhookJob = (): Job => {
  const full = fullWebhookJob('full', 'https://example.com/full');
  const schedule = { ...full.schedule, canonical: 'FREQ=MINUTELY;INTERVAL=7', description: 'every 7 minutes' };
  return { id: 'job_1', ...full, schedule } as unknown as Job;
};

const commandJob = (): Job => {
  const job = webhookJob();
  job.sink = { kind: 'command', config: { argv: ['/bin/echo', 'a b'], env: { A: '1' }, retry_on_exit_codes: [75] } };
  return job;
};

describe('job form model', () => {
  it('should send nothing when nothing changed, for webhook and command jobs', () => {
    for (const job of [webhookJob(), commandJob()]) {
      const loaded = fromJob(job);
      expect(patchBody(loaded, { ...loaded })).toEqual({});
    }
  });

  it('should send nothing for any unchanged job (property over settings)', () => {
    fc.assert(
      fc.property(
        fc.record({
          sla: fc.option(fc.constantFrom('1m', '2h'), { nil: null }),
          auto: fc.option(fc.integer({ min: 0, max: 100 }), { nil: null }),
          count: fc.option(fc.integer({ min: 1, max: 100 }), { nil: null }),
          codes: fc.oneof(fc.constant('2xx'), fc.array(fc.integer({ min: 200, max: 299 }), { minLength: 1 })),
          headers: fc.dictionary(fc.constantFrom('X-A', 'X-B'), fc.constantFrom('1', 'a: b')),
          body: fc.option(fc.string({ minLength: 1, maxLength: 8 }), { nil: undefined }),
          jitter: fc.double({ min: 0, max: 1, noNaN: true }),
        }),
        ({ sla, auto, count, codes, headers, body, jitter }) => {
          const job = webhookJob();
          Object.assign(job, { sla_threshold: sla, auto_disable_threshold: auto });
          job.schedule.count = count;
          job.retry.jitter = jitter;
          job.sink.config = { ...job.sink.config, success_codes: codes, headers, body };
          const loaded = fromJob(job);
          expect(patchBody(loaded, { ...loaded })).toEqual({});
        },
      ),
    );
  });

  it('should send only the changed field, nested ones inside their object', () => {
    const loaded = fromJob(webhookJob());
    expect(patchBody(loaded, { ...loaded, name: 'renamed' })).toEqual({ name: 'renamed' });
    expect(patchBody(loaded, { ...loaded, url: 'https://example.com/b' })).toEqual({
      sink: { config: { url: 'https://example.com/b' } },
    });
    expect(patchBody(loaded, { ...loaded, jitter: '0', timezone: 'UTC' })).toEqual({
      retry: { jitter: 0 },
      schedule: { timezone: 'UTC' },
    });
    expect(patchBody(loaded, { ...loaded, followRedirects: false, retryOn: '5xx, 429' })).toEqual({
      sink: { config: { follow_redirects: false, retry_on: ['5xx', 429] } },
    });
  });

  it('should send null for a field the user emptied (the server default applies)', () => {
    const loaded = fromJob(webhookJob());
    expect(
      patchBody(loaded, { ...loaded, slaThreshold: '', autoDisableThreshold: '', body: '', count: '', endsAt: '' }),
    ).toEqual({
      sla_threshold: null,
      auto_disable_threshold: null,
      schedule: { count: null, ends_at: null },
      sink: { config: { body: null } },
    });
  });

  it('should send the whole new config on a sink kind change', () => {
    const loaded = fromJob(webhookJob());
    expect(patchBody(loaded, { ...loaded, sinkKind: 'command', argv: '/bin/true\n--flag', cwd: '/tmp' })).toEqual({
      sink: { kind: 'command', config: { argv: ['/bin/true', '--flag'], cwd: '/tmp', retry_on_exit_codes: [] } },
    });
  });

  it('should show a new job with the defaults the server’s document states, as a job created with them reads back', () => {
    const D = CREATE_JOB_DEFAULTS;
    const created = {
      ...webhookJob(),
      description: D.description,
      tags: [...D.tags],
      schedule: { ...webhookJob().schedule, ...D.schedule, expr: '', timezone: 'UTC' },
      sink: { kind: 'webhook', config: { ...D.webhook, url: '' } },
      retry: D.retry,
      timeout: D.timeout,
      sla_threshold: D.sla_threshold,
      misfire_policy: D.misfire_policy,
      overlap_policy: D.overlap_policy,
      auto_disable_threshold: D.auto_disable_threshold,
      start_window: D.start_window,
      max_concurrent_runs: D.max_concurrent_runs,
      name: '',
    } as unknown as Job;
    expect(fromJob(created)).toEqual(emptyForm('UTC'));
    expect(emptyForm('UTC')).toMatchObject({
      misfirePolicy: 'fire_once',
      timeout: '30s',
      maxAttempts: '3',
      method: 'POST',
    });
  });

  it('should build a create body without the empty fields', () => {
    const form = { ...emptyForm('UTC'), name: 'n', expr: 'every day', url: 'https://example.com/h' };
    const body = createBody(form) as Record<string, any>;
    expect(body).toMatchObject({ name: 'n', schedule: { expr: 'every day', kind: 'auto', timezone: 'UTC' } });
    expect(body.sla_threshold).toBeUndefined();
    expect(body.sink.config.body).toBeUndefined();
    expect(body.schedule.count).toBeUndefined();
  });
});

// Issue 28: a kind the form has no controls of its own for is edited through its /features fields.
describe('job form: other sink kinds', () => {
  const kinds: SinkKindInfo[] = [
    {
      kind: 'temporal_workflow',
      label: 'Temporal workflow',
      description: '',
      config_schema: {},
      enabled: true,
      fields: [
        { name: 'workflow_type', label: 'Workflow type', type: 'text', required: true },
        { name: 'task_queue', label: 'Task queue', type: 'text', required: true },
        { name: 'args', label: 'Arguments', type: 'json' },
        { name: 'wait', label: 'Wait', type: 'select', options: ['started', 'completed'] },
      ],
    },
  ];
  const workflowJob = (): Job => ({
    ...webhookJob(),
    sink: {
      kind: 'temporal_workflow',
      config: {
        workflow_type: 'Report',
        task_queue: 'reports',
        namespace: 'default',
        args: [{ day: '{{run.scheduled_at}}' }],
        workflow_id: 'svc-{{run.id}}',
        wait: 'started',
      },
    },
  });

  it('round-trips the stored config: an untouched edit sends nothing', () => {
    const loaded = fromJob(workflowJob(), kinds);
    expect(loaded.sinkFields.args).toBe('[{"day":"{{run.scheduled_at}}"}]');
    expect(patchBody(loaded, { ...loaded }, kinds)).toEqual({});
    expect(createBody(loaded, kinds).sink).toEqual(workflowJob().sink);
  });

  it('sends the changed fields as values of their type; an emptied field as null', () => {
    const loaded = fromJob(workflowJob(), kinds);
    const edited = {
      ...loaded,
      sinkFields: { ...loaded.sinkFields, args: '[1, 2]', wait: 'completed', workflow_id: '' },
    };
    expect(patchBody(loaded, edited, kinds)).toEqual({
      sink: { config: { args: [1, 2], wait: 'completed', workflow_id: null } },
    });
  });

  it('names missing required fields and JSON that does not parse before sending', () => {
    const form = { ...emptyForm('UTC'), sinkKind: 'temporal_workflow', sinkFields: { task_queue: 'q', args: '[1,' } };
    expect(sinkFieldErrors(form, kinds)).toEqual({
      'sink.config.workflow_type': 'is required',
      'sink.config.args': 'must be valid JSON',
    });
    expect(sinkFieldErrors(emptyForm('UTC'), kinds)).toEqual({});
  });
});

import { buildConfig } from '@svc/common';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, TerminatedFailure, TimeoutFailure } from '@temporalio/common';
import {
  builtInSinkKinds,
  checkAgainstSchema,
  SinkRegistry,
  type SinkServices,
  TemporalWorkflowSinkKind,
  WebhookSinkKind,
  workflowFailureMessage,
  workflowUiUrl,
} from '@svc/delivery';

const config = buildConfig({ sinks: { temporal_workflow: { namespaces: ['reports'] } } }, {});
const services: SinkServices = {
  config,
  temporal: () => {
    throw new Error('no Temporal in unit tests');
  },
};
const ctx = { config, services };
const temporal = new TemporalWorkflowSinkKind();

describe('checkAgainstSchema', () => {
  it('names each bad field under sink.config, unknown fields as such', () => {
    expect(
      checkAgainstSchema(temporal.configSchema, {
        task_queue: 'has spaces',
        wait: 'finished',
        extra: 1,
        search_attributes: { A: { nested: true } },
      }),
    ).toEqual({
      'sink.config.workflow_type': 'is required',
      'sink.config.extra': 'unknown field',
      'sink.config.task_queue': expect.stringContaining('must match pattern'),
      'sink.config.wait': expect.any(String),
      'sink.config.search_attributes.A': expect.any(String),
    });
    expect(checkAgainstSchema(temporal.configSchema, { workflow_type: 'W', task_queue: 'q/1:a.b-c' })).toEqual({});
  });

  it('checks a webhook config as the DTOs did: types, enums, nested header values', () => {
    const webhook = new WebhookSinkKind();
    expect(
      checkAgainstSchema(webhook.configSchema, { url: 'https://x.example', method: 'TRACE', headers: { A: 1 } }),
    ).toEqual({
      'sink.config.method': expect.any(String),
      'sink.config.headers.A': 'must be string',
    });
    expect(checkAgainstSchema(webhook.configSchema, { url: 'https://x.example', method: null })).toEqual({});
  });

  it('reports a bad list item on the list, as the DTO validation names fields', () => {
    const webhook = new WebhookSinkKind();
    const fields = checkAgainstSchema(webhook.configSchema, { url: 'https://x.example', retry_on: ['bogus'] });
    expect(Object.keys(fields)).toEqual(['sink.config.retry_on']);
    expect(fields['sink.config.retry_on']).toMatch(/^each item /);
  });
});

describe('temporal_workflow normalize', () => {
  it('fills the defaults: the service namespace, the run-derived workflow id, wait started', async () => {
    expect(await temporal.normalize({ workflow_type: 'Report', task_queue: 'reports' }, ctx)).toEqual({
      config: {
        workflow_type: 'Report',
        task_queue: 'reports',
        namespace: 'default',
        args: [],
        workflow_id: 'svc-{{run.id}}',
        wait: 'started',
      },
    });
  });

  it('allows the configured namespaces only, no secrets in the workflow id, timeouts of 1s or more', async () => {
    expect(await temporal.normalize({ workflow_type: 'R', task_queue: 'q', namespace: 'reports' }, ctx)).toHaveProperty(
      'config.namespace',
      'reports',
    );
    expect(
      await temporal.normalize(
        {
          workflow_type: 'R',
          task_queue: 'q',
          namespace: 'elsewhere',
          workflow_id: 'x-{{ secret.TOKEN }}',
          timeout: '500ms',
        },
        ctx,
      ),
    ).toEqual({
      fields: {
        'sink.config.namespace': 'namespace "elsewhere" is not allowed on this server; allowed: default, reports',
        'sink.config.workflow_id': 'secrets are not allowed in the workflow id ({{ secret.TOKEN }})',
        'sink.config.timeout': 'must be a duration of at least 1s',
      },
    });
  });

  it('lists every string of args (and the workflow id) as a template field, and the secrets they name', () => {
    const config = {
      workflow_type: 'R',
      task_queue: 'q',
      args: [{ token: '{{secret.B}}', list: ['{{run.id}}', 3] }, '{{secret.A}}'],
      workflow_id: 'r-{{job.id}}',
    };
    expect(temporal.templateFields(config)).toEqual({
      'sink.config.args.0.token': '{{secret.B}}',
      'sink.config.args.0.list.0': '{{run.id}}',
      'sink.config.args.1': '{{secret.A}}',
      'sink.config.workflow_id': 'r-{{job.id}}',
    });
    expect(temporal.secretNames(config)).toEqual(['A', 'B']);
  });

  it('is off in hosted mode unless enabled', () => {
    expect(temporal.disabledReason(buildConfig({ mode: 'hosted' }, {}))).toMatch(/disabled/);
    expect(
      temporal.disabledReason(buildConfig({ mode: 'hosted', sinks: { temporal_workflow: { enabled: true } } }, {})),
    ).toBeNull();
    expect(temporal.disabledReason(buildConfig({}, {}))).toBeNull();
  });
});

describe('temporal_workflow outcome and links', () => {
  it('words a failed, timed-out or terminated workflow by its own failure', () => {
    const failed = (cause: Error) => new WorkflowFailedError('Workflow execution failed', cause, 0 as never);
    expect(workflowFailureMessage(failed(ApplicationFailure.create({ message: 'no data' })))).toBe(
      'workflow failed: no data',
    );
    expect(workflowFailureMessage(failed(new TimeoutFailure(undefined, undefined, 'START_TO_CLOSE' as never)))).toBe(
      'workflow timed out',
    );
    expect(workflowFailureMessage(failed(new TerminatedFailure('by an operator')))).toBe(
      'workflow terminated: by an operator',
    );
  });

  it('links to the execution in the Temporal UI when its address is known', () => {
    const ref = { namespace: 'my ns', workflow_id: 'svc-run_1', run_id: 'abc' };
    expect(workflowUiUrl('http://ui.example/', ref)).toBe(
      'http://ui.example/namespaces/my%20ns/workflows/svc-run_1/abc/history',
    );
    expect(workflowUiUrl(null, ref)).toBeNull();
  });
});

describe('SinkRegistry', () => {
  it('refuses a kind registered twice and names that are not [a-z][a-z0-9_]*', () => {
    const registry = new SinkRegistry(builtInSinkKinds());
    expect(registry.names()).toEqual(['webhook', 'command', 'temporal_workflow']);
    expect(() => registry.register(new WebhookSinkKind())).toThrow('registered twice');
    expect(() => registry.register(Object.assign(new WebhookSinkKind(), { kind: 'Bad-Name' }))).toThrow(
      'the name must match',
    );
  });
});

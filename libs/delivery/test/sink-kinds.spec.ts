import { buildConfig } from '@svc/common';
import { type Client, WorkflowExecutionAlreadyStartedError, WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, TerminatedFailure, TimeoutFailure } from '@temporalio/common';
import {
  builtInSinkKinds,
  checkAgainstSchema,
  type ServiceWorkflows,
  type SinkSendContext,
  SinkRegistry,
  type SinkServices,
  taskQueueMatches,
  TemporalWorkflowSinkKind,
  WebhookSinkKind,
  workflowFailureMessage,
  workflowUiUrl,
} from '@svc/delivery';

const config = buildConfig(
  { sinks: { temporal_workflow: { namespaces: ['reports'], task_queues: { reports: ['reports-*', 'etl'] } } } },
  {},
);
/** What libs/orchestration `serviceWorkflows` derives for the default `svc-jobs` (its own spec pins that). */
const serviceWorkflows: ServiceWorkflows = {
  taskQueues: ['svc-jobs', 'svc-jobs-runs', 'svc-jobs-alerts', 'svc-jobs-parked'],
  workflowTypes: [
    'alertWorkflow',
    'bulkOperationWorkflow',
    'channelVerificationWorkflow',
    'jobWorkflow',
    'parkedJob',
    'runWorkflow',
  ],
  workflowIdPrefixes: ['ws_', 'usr_', 'key_', 'job_', 'run_', 'ch_', 'rule_', 'aud_', 'op_', 'evt_', 'verify-'],
};
const services: SinkServices = {
  config,
  serviceWorkflows,
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
        workflow_id: 'svc-{{workspace.id}}-{{run.id}}',
        wait: 'started',
      },
    });
  });

  it("refuses the service's own task queues and workflow types, in every namespace", async () => {
    for (const namespace of ['default', 'reports']) {
      for (const queue of [...serviceWorkflows.taskQueues, 'svc-jobs-anything-later']) {
        const out = await temporal.normalize({ workflow_type: 'Report', task_queue: queue, namespace }, ctx);
        expect(out).toEqual({
          fields: {
            'sink.config.task_queue': `task queue "${queue}" belongs to the service itself; a job may not use it`,
          },
        });
      }
      for (const type of serviceWorkflows.workflowTypes) {
        const out = await temporal.normalize({ workflow_type: type, task_queue: 'reports-1', namespace }, ctx);
        expect(out).toEqual({
          fields: {
            'sink.config.workflow_type': `workflow type "${type}" belongs to the service itself; a job may not start it`,
          },
        });
      }
    }
    // Only exact names are the service's: a team's own look-alikes are theirs.
    expect(await temporal.normalize({ workflow_type: 'jobWorkflowV2', task_queue: 'svc-jobs2' }, ctx)).toHaveProperty(
      'config',
    );
  });

  it('refuses workflow id templates that could collide with the service ids or another workspace', async () => {
    const refused = [
      '{{run.id}}',
      '{{job.id}}-x',
      'job_01ARZ3NDEKTSV4RRFFQ69G5FAV',
      'run_{{run.attempt}}',
      'evt_x',
      'verify-{{run.id}}',
      'ws_{{run.id}}',
      'svc-ws_01ARZ3NDEKTSV4RRFFQ69G5FAV-{{run.id}}',
    ];
    const wsCtx = { ...ctx, workspace: { id: 'ws_01HZZZZZZZZZZZZZZZZZZZZZZZ' } };
    for (const workflowId of refused) {
      const out = await temporal.normalize({ workflow_type: 'R', task_queue: 'q', workflow_id: workflowId }, wsCtx);
      expect({ workflowId, fields: Object.keys((out as { fields?: object }).fields ?? {}) }).toEqual({
        workflowId,
        fields: ['sink.config.workflow_id'],
      });
    }
    for (const workflowId of [
      'svc-{{workspace.id}}-{{run.id}}',
      'svc-{{run.id}}',
      'svc-ws_01HZZZZZZZZZZZZZZZZZZZZZZZ-report',
      'nightly-{{job.id}}',
      'report',
    ]) {
      expect(
        await temporal.normalize({ workflow_type: 'R', task_queue: 'q', workflow_id: workflowId }, wsCtx),
      ).toHaveProperty('config.workflow_id', workflowId);
    }
  });

  it("limits task queues to the server's list for the namespace, narrowed by the workspace's", async () => {
    const accepts = async (queue: string, namespace: string, narrowed: string[] | null = null) =>
      'config' in
      (await temporal.normalize(
        { workflow_type: 'R', task_queue: queue, namespace },
        { ...ctx, workspace: { id: 'ws_1', temporalWorkflowTaskQueues: narrowed } },
      ));
    expect(await accepts('reports-daily', 'reports')).toBe(true);
    expect(await accepts('etl', 'reports')).toBe(true);
    expect(await accepts('etl-2', 'reports')).toBe(false);
    expect(await accepts('anything', 'default')).toBe(true); // no list for the namespace: any but the service's
    expect(await accepts('reports-daily', 'reports', ['reports-d*'])).toBe(true);
    expect(await accepts('reports-weekly', 'reports', ['reports-d*'])).toBe(false);
    // A workspace cannot widen: its pattern passes, the server's list still refuses.
    expect(await accepts('payroll', 'reports', ['*'])).toBe(false);
    expect(await accepts('payroll', 'default', ['reports-*'])).toBe(false);
    const out = await temporal.normalize(
      { workflow_type: 'R', task_queue: 'etl-2', namespace: 'reports' },
      { ...ctx, workspace: { id: 'ws_1' } },
    );
    expect(out).toEqual({
      fields: {
        'sink.config.task_queue':
          'task queue "etl-2" is not allowed in namespace "reports" on this server; allowed: reports-*, etl',
      },
    });
  });

  it('matches task-queue patterns with * only', () => {
    expect(taskQueueMatches('reports-1', 'reports-*')).toBe(true);
    expect(taskQueueMatches('a.b', 'a.b')).toBe(true);
    expect(taskQueueMatches('axb', 'a.b')).toBe(false);
    expect(taskQueueMatches('team/etl:nightly', 'team/*:nightly')).toBe(true);
    expect(taskQueueMatches('reports', 'reports-*')).toBe(false);
  });

  it('refuses the search attributes that say who started an execution', async () => {
    const out = await temporal.normalize(
      { workflow_type: 'R', task_queue: 'q', search_attributes: { SvcJobId: 'job_x', SvcWorkspaceId: 'ws_x' } },
      ctx,
    );
    expect(Object.keys((out as { fields: object }).fields).sort()).toEqual([
      'sink.config.search_attributes.SvcJobId',
      'sink.config.search_attributes.SvcWorkspaceId',
    ]);
  });

  it('allows the configured namespaces only, no secrets in the workflow id, timeouts of 1s or more', async () => {
    expect(
      await temporal.normalize({ workflow_type: 'R', task_queue: 'etl', namespace: 'reports' }, ctx),
    ).toHaveProperty('config.namespace', 'reports');
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

describe('temporal_workflow send', () => {
  /** A Temporal client that records every call; `existing` is what the id already names, if anything. */
  function fakeClient(existing: { memo: Record<string, unknown>; runId: string } | null) {
    const calls: string[] = [];
    const handle = (workflowId: string) => ({
      describe: async () => {
        calls.push(`describe ${workflowId}`);
        return { runId: existing!.runId, memo: existing!.memo };
      },
      result: async () => calls.push('result'),
      signal: async () => calls.push('signal'),
      cancel: async () => calls.push('cancel'),
      terminate: async () => calls.push('terminate'),
    });
    const client = {
      connection: {
        operatorService: {
          listSearchAttributes: async () => ({
            customAttributes: { SvcJobId: 2, SvcWorkspaceId: 2 },
            systemAttributes: {},
          }),
        },
      },
      workflow: {
        start: async (type: string, options: Record<string, unknown>) => {
          calls.push(`start ${type} ${JSON.stringify(options.memo)} ${JSON.stringify(options.searchAttributes)}`);
          if (existing) {
            throw new WorkflowExecutionAlreadyStartedError('already', String(options.workflowId), type);
          }
          return { firstExecutionRunId: 'new-run' };
        },
        getHandle: (workflowId: string) => handle(workflowId),
      },
      withAbortSignal: (_signal: AbortSignal, fn: () => Promise<unknown>) => fn(),
    };
    return { client: client as unknown as Client, calls };
  }

  function sendContext(client: Client, wait: 'started' | 'completed' = 'started'): [SinkSendContext, typeof wait] {
    return [
      {
        workspace: { id: 'ws_B' },
        run: { id: 'run_B1', scheduledAt: 0, attempt: 0 },
        job: { id: 'job_B', name: 'b' },
        secrets: {},
        signingSecrets: [],
        nowMs: 0,
        timeoutMs: 5_000,
        rules: {} as SinkSendContext['rules'],
        test: false,
        signal: new AbortController().signal,
        services: { ...services, temporal: () => client },
      },
      wait,
    ];
  }

  it('marks what it starts with the workspace, job and run (memo, and the registered search attributes)', async () => {
    const { client, calls } = fakeClient(null);
    const [ctx] = sendContext(client);
    const result = await temporal.send(
      { workflow_type: 'R', task_queue: 'q', workflow_id: 'svc-{{workspace.id}}-{{run.id}}' },
      ctx,
    );
    expect(result).toMatchObject({
      outcome: 'success',
      startedWorkflow: { workflow_id: 'svc-ws_B-run_B1', run_id: 'new-run' },
    });
    expect(calls).toEqual([
      'start R {"svc_workspace_id":"ws_B","svc_job_id":"job_B","svc_run_id":"run_B1","svc_attempt":0} {"SvcWorkspaceId":["ws_B"],"SvcJobId":["job_B"]}',
    ]);
  });

  it('attaches to an execution another job started never: fatal, nothing signalled, cancelled or read', async () => {
    for (const memo of [
      { svc_workspace_id: 'ws_A', svc_job_id: 'job_A', svc_run_id: 'run_A1' },
      { svc_workspace_id: 'ws_A', svc_job_id: 'job_B' }, // same job id, other workspace: forged
      {}, // not started by this service at all
    ]) {
      for (const wait of ['started', 'completed'] as const) {
        const { client, calls } = fakeClient({ memo, runId: 'their-run' });
        const [ctx] = sendContext(client, wait);
        const result = await temporal.send(
          { workflow_type: 'R', task_queue: 'q', workflow_id: 'shared-id', wait },
          ctx,
        );
        expect(result).toMatchObject({ outcome: 'fatal', error: 'workflow id shared-id belongs to another job' });
        expect(result.startedWorkflow).toBeUndefined();
        expect(calls.filter((c) => !c.startsWith('start ') && !c.startsWith('describe '))).toEqual([]);
      }
    }
  });

  it('attaches to what this job started (a retried attempt), the memo of an older release included', async () => {
    for (const memo of [
      { svc_workspace_id: 'ws_B', svc_job_id: 'job_B' },
      { svc_job_id: 'job_B', svc_run_id: 'run_B1' },
    ]) {
      const { client } = fakeClient({ memo, runId: 'mine' });
      const [ctx] = sendContext(client);
      const result = await temporal.send({ workflow_type: 'R', task_queue: 'q', workflow_id: 'svc-{{run.id}}' }, ctx);
      expect(result).toMatchObject({
        outcome: 'success',
        startedWorkflow: { workflow_id: 'svc-run_B1', run_id: 'mine' },
      });
    }
  });

  it('refuses a stored job that names the service itself at send time, starting nothing', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ workflow_type: 'jobWorkflow', task_queue: 'q' }, 'workflow type "jobWorkflow" belongs to the service itself'],
      [{ workflow_type: 'R', task_queue: 'svc-jobs-runs' }, 'task queue "svc-jobs-runs" belongs to the service itself'],
      [{ workflow_type: 'R', task_queue: 'q', workflow_id: '{{run.id}}' }, 'could collide with the service'],
      [{ workflow_type: 'R', task_queue: 'q', workflow_id: '{{job.name}}' }, 'could collide with the service'],
      [{ workflow_type: 'R', task_queue: 'etl-2', namespace: 'reports' }, 'not allowed in namespace "reports"'],
      [
        { workflow_type: 'R', task_queue: 'q', workflow_id: 'svc-ws_A-{{run.id}}' },
        'svc-ws_A-run_B1 belongs to another job',
      ],
    ];
    for (const [config, error] of cases) {
      const { client, calls } = fakeClient(null);
      const [ctx] = sendContext(client);
      const result = await temporal.send(config as never, { ...ctx, job: { id: 'job_B', name: 'run_forged' } });
      expect(result.outcome).toBe('fatal');
      expect(result.error).toContain(error);
      expect(calls).toEqual([]);
    }
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

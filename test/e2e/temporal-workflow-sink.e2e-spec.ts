import { apiClient, startStack, type Stack } from '../utils/stack';
import { waitFor } from '../utils/receiver';
import { startTargetWorker, type TargetWorker } from '../utils/target-worker';

type Attempt = {
  n: number;
  outcome: string | null;
  error: string | null;
  response_body: string | null;
  started_workflow: { namespace: string; workflow_id: string; run_id: string; ui_url: string | null } | null;
};
type Run = {
  id: string;
  status: string;
  last_error: string | null;
  attempts: Attempt[];
  started_workflow: Attempt['started_workflow'];
};

/**
 * The `temporal_workflow` sink (issue 28) against the real dev server: a team's own worker on its
 * own task queue runs the workflows the jobs start.
 */
describe('temporal_workflow sink', () => {
  let stack: Stack;
  let target: TargetWorker;
  let api: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    stack = await startStack({ config: { temporal: { ui_url: 'http://127.0.0.1:8233' } } });
    target = await startTargetWorker();
    api = apiClient(stack.baseUrl, stack.apiKey);
  });

  afterAll(async () => {
    await stack?.stop();
    await target?.stop();
  });

  function sinkConfig(config: Record<string, unknown>) {
    return { kind: 'temporal_workflow', config: { task_queue: target.taskQueue, ...config } };
  }

  async function createJob(config: Record<string, unknown>, extra: Record<string, unknown> = {}) {
    const created = await api('POST', '/api/v1/jobs', {
      name: `workflow ${String(config.workflow_type)}`,
      schedule: { expr: 'every day at 3am' },
      sink: sinkConfig(config),
      ...extra,
    });
    expect(created.status).toBe(201);
    return created.body as { id: string; sink: { config: Record<string, unknown> } };
  }

  async function triggerAndWait(
    jobId: string,
    done = (run: Run) => ['succeeded', 'failed'].includes(run.status),
    body?: unknown,
  ) {
    const triggered = await api('POST', `/api/v1/jobs/${jobId}/trigger`, body);
    expect(triggered.status).toBe(202);
    return waitFor(async () => {
      const run = (await api('GET', `/api/v1/runs/${triggered.body.run_id}`)).body as Run;
      return done(run) ? run : null;
    }, 40_000);
  }

  it('wait: started — succeeds once the workflow runs, records it and links to it', async () => {
    const job = await createJob({ workflow_type: 'succeeds', args: ['{{job.name}}', { run: '{{run.id}}' }] });
    expect(job.sink.config).toMatchObject({
      namespace: 'default',
      wait: 'started',
      workflow_id: 'svc-{{workspace.id}}-{{run.id}}',
      args: ['{{job.name}}', { run: '{{run.id}}' }],
    });
    const run = await triggerAndWait(job.id);
    expect(run.status).toBe('succeeded');
    const started = run.started_workflow!;
    expect(started).toMatchObject({ namespace: 'default', workflow_id: `svc-${stack.workspaceId}-${run.id}` });
    expect(started.ui_url).toBe(
      `http://127.0.0.1:8233/namespaces/default/workflows/svc-${stack.workspaceId}-${run.id}/${started.run_id}/history`,
    );
    expect(run.attempts[0].started_workflow).toEqual(started);
    // The workflow got the rendered arguments and is marked with the run and attempt it serves.
    const handle = target.client.workflow.getHandle(started.workflow_id, started.run_id);
    expect(await handle.result()).toEqual({ echoed: ['workflow succeeds', { run: run.id }] });
    const described = await handle.describe();
    expect(await described.memo).toMatchObject({
      svc_workspace_id: stack.workspaceId,
      svc_run_id: run.id,
      svc_attempt: 0,
      svc_job_id: job.id,
    });
  });

  it('per-run overrides (issue 45): one run starts with other args, memo fields and no change to the job', async () => {
    const job = await createJob({ workflow_type: 'succeeds', args: ['own'], memo: { team: 'reports' } });
    expect(job.sink.config).toMatchObject({ memo: { team: 'reports' } });
    const run = await triggerAndWait(job.id, undefined, {
      overrides: { args: ['once', '{{run.id}}'], memo: { reason: 'replay' } },
    });
    expect(run.status).toBe('succeeded');
    const handle = target.client.workflow.getHandle(run.started_workflow!.workflow_id, run.started_workflow!.run_id);
    expect(await handle.result()).toEqual({ echoed: ['once', run.id] });
    expect((await handle.describe()).memo).toMatchObject({ team: 'reports', reason: 'replay', svc_run_id: run.id });
    // The job's own args on the next run; a memo field of the service's is refused, nothing opened.
    const plain = await triggerAndWait(job.id);
    const plainHandle = target.client.workflow.getHandle(plain.started_workflow!.workflow_id);
    expect(await plainHandle.result()).toEqual({ echoed: ['own'] });
    const refused = await api('POST', `/api/v1/jobs/${job.id}/trigger`, { overrides: { memo: { svc_run_id: 'x' } } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.fields).toEqual({
      'overrides.memo.svc_run_id': expect.stringMatching(/set by the service/),
    });
  });

  it('wait: completed — the attempt carries the workflow result', async () => {
    const job = await createJob({ workflow_type: 'succeeds', args: 42, wait: 'completed' });
    const run = await triggerAndWait(job.id);
    expect(run.status).toBe('succeeded');
    expect(run.attempts[0]).toMatchObject({ outcome: 'success', error: null });
    const result = await target.client.workflow
      .getHandle(run.started_workflow!.workflow_id, run.started_workflow!.run_id)
      .result();
    expect(result).toEqual({ echoed: [42] });
  });

  it('retries into a failed workflow: each attempt is one execution, the run fails with its message', async () => {
    const job = await createJob(
      { workflow_type: 'fails', args: ['no report today'], wait: 'completed' },
      { retry: { max_attempts: 2, initial_interval: '100ms', backoff: 'fixed' } },
    );
    const run = await triggerAndWait(job.id);
    expect(run.status).toBe('failed');
    expect(run.attempts.map((a) => [a.outcome, a.error])).toEqual([
      ['retryable', 'workflow failed: no report today'],
      ['retryable', 'workflow failed: no report today'],
    ]);
    const runIds = run.attempts.map((a) => a.started_workflow!.run_id);
    expect(new Set(runIds).size).toBe(2);
    const executions = await waitFor(async () => {
      const found = await target.executions(`svc-${stack.workspaceId}-${run.id}`);
      return found.length >= 2 ? found : null;
    });
    expect(executions.map((e) => e.runId).sort()).toEqual([...runIds].sort());
  });

  it('a workflow that outlives the sink timeout is a failed attempt "workflow timed out"', async () => {
    const job = await createJob(
      { workflow_type: 'sleeps', args: [60_000], wait: 'completed', timeout: '1s' },
      { retry: { max_attempts: 1 }, timeout: '20s' },
    );
    const run = await triggerAndWait(job.id);
    expect(run.status).toBe('failed');
    expect(run.attempts[0].error).toBe('workflow timed out');
  });

  it('cancel_previous cancels the run and the workflow it started', async () => {
    const job = await createJob(
      { workflow_type: 'blocks', wait: 'completed' },
      { schedule: { expr: '*/3 * * * * ?', kind: 'quartz' }, overlap_policy: 'cancel_previous', timeout: '60s' },
    );
    const cancelled = await waitFor(
      async () => {
        const page = (await api('GET', `/api/v1/jobs/${job.id}/runs?limit=50`)).body.data as Run[];
        return page.find((r) => r.status === 'cancelled') ?? null;
      },
      40_000,
      300,
    );
    await api('DELETE', `/api/v1/jobs/${job.id}`);
    const full = (await api('GET', `/api/v1/runs/${cancelled.id}`)).body as Run;
    const ref = full.attempts[0].started_workflow ?? full.started_workflow;
    const workflowId = ref?.workflow_id ?? `svc-${stack.workspaceId}-${cancelled.id}`;
    const status = await waitFor(async () => {
      const description = await target.client.workflow.getHandle(workflowId).describe();
      return description.status.name === 'RUNNING' ? null : description.status.name;
    });
    expect(status).toBe('CANCELLED');
  });

  it('refuses bad configs with 400 validation_failed naming sink.config fields', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ workflow_type: 'succeeds', task_queue: 'has spaces in it' }, 'sink.config.task_queue'],
      [{ workflow_type: 'succeeds', args: [{ x: '{{run.idx}}' }] }, 'sink.config.args.0.x'],
      [{ workflow_type: 'succeeds', args: ['{{secret.NOT_THERE}}'] }, 'sink.config.args.0'],
      [{ workflow_type: 'succeeds', namespace: 'elsewhere' }, 'sink.config.namespace'],
      [{ workflow_type: 'succeeds', workflow_id: 'x-{{secret.TOKEN}}' }, 'sink.config.workflow_id'],
      [
        { workflow_type: 'succeeds', search_attributes: { NoSuchAttribute: 'x' } },
        'sink.config.search_attributes.NoSuchAttribute',
      ],
      [{ workflow_type: 'succeeds', search_attributes: { SvcJobId: 7 } }, 'sink.config.search_attributes.SvcJobId'],
      [{ workflow_type: 'succeeds', wait: 'finished' }, 'sink.config.wait'],
      [{ workflow_type: 'succeeds', surprise: true }, 'sink.config.surprise'],
      [{ task_queue: 'q' }, 'sink.config.workflow_type'],
    ];
    for (const [config, field] of cases) {
      const response = await api('POST', '/api/v1/jobs', {
        name: 'bad',
        schedule: { expr: 'every day at 3am' },
        sink: { kind: 'temporal_workflow', config: { task_queue: target.taskQueue, ...config } },
      });
      expect({ config, status: response.status, code: response.body.error?.code }).toEqual({
        config,
        status: 400,
        code: 'validation_failed',
      });
      expect(Object.keys(response.body.error.fields)).toContain(field);
    }
    // A search attribute of the namespace with a value of its type is accepted.
    const ok = await createJob({ workflow_type: 'succeeds', search_attributes: { SvcTrigger: 'from-a-sink' } });
    const run = await triggerAndWait(ok.id);
    expect(run.status).toBe('succeeded');
  });

  it('POST /jobs/test starts one marked execution and records nothing', async () => {
    const before = (await api('GET', '/api/v1/runs?limit=200')).body.data.length;
    const tested = await api('POST', '/api/v1/jobs/test', {
      name: 'try it',
      schedule: { expr: 'every day at 3am' },
      sink: sinkConfig({ workflow_type: 'succeeds', args: ['{{run.id}}'], wait: 'completed' }),
    });
    expect(tested.status).toBe(200);
    expect(tested.body).toMatchObject({ outcome: 'success', error: null });
    const { workflow_id: workflowId, run_id: runId } = JSON.parse(tested.body.response_body) as {
      workflow_id: string;
      run_id: string;
    };
    const executions = await waitFor(async () => {
      const found = await target.executions(workflowId);
      return found.length > 0 ? found : null;
    });
    expect(executions).toHaveLength(1);
    expect(executions[0].runId).toBe(runId);
    expect(await executions[0].memo).toMatchObject({ svc_test: true });
    expect((await api('GET', '/api/v1/runs?limit=200')).body.data.length).toBe(before);
  });
});

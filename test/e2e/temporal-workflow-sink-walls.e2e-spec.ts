import { serviceWorkflows } from '@svc/orchestration';
import { releaseSignal } from '../fixtures/target-workflows/workflows';
import { waitFor } from '../utils/receiver';
import { apiClient, startStack, type Stack } from '../utils/stack';
import { startTargetWorker, type TargetWorker } from '../utils/target-worker';

type Attempt = {
  outcome: string | null;
  error: string | null;
  response_body: string | null;
  started_workflow: { workflow_id: string; run_id: string } | null;
};
type Run = { id: string; status: string; attempts: Attempt[]; started_workflow: Attempt['started_workflow'] };
type Api = ReturnType<typeof apiClient>;

/**
 * Tenant walls of the `temporal_workflow` sink (issue 41, docs/security.md) with two workspaces of
 * one deployment against the real dev server: workspace B cannot start the service's workflows or
 * use its task queues, cannot attach to (or read) an execution A's job started, and is held to the
 * server's and its own task-queue allowlists.
 */
describe('temporal_workflow sink walls between workspaces', () => {
  let stack: Stack;
  let target: TargetWorker;
  let a: Api;
  let b: Api;
  let bWorkspaceId: string;
  let aWorkspaceId: string;

  beforeAll(async () => {
    const queue = `walls-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    target = await startTargetWorker(queue);
    // The server allows only the walls-* queues in its namespace.
    stack = await startStack({ config: { sinks: { temporal_workflow: { task_queues: { default: ['walls-*'] } } } } });
    a = apiClient(stack.baseUrl, stack.apiKey);
    aWorkspaceId = stack.workspaceId;
    const other = await stack.newWorkspaceKey('team-b');
    b = apiClient(stack.baseUrl, other.apiKey);
    bWorkspaceId = other.workspaceId;
  });

  afterAll(async () => {
    await stack?.stop();
    await target?.stop();
  });

  const body = (config: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    name: `walls ${String(config.workflow_type ?? '')}`,
    schedule: { expr: 'every day at 3am' },
    sink: { kind: 'temporal_workflow', config: { task_queue: target.taskQueue, workflow_type: 'succeeds', ...config } },
    retry: { max_attempts: 1 },
    ...extra,
  });

  async function create(api: Api, config: Record<string, unknown>, extra: Record<string, unknown> = {}) {
    const created = await api('POST', '/api/v1/jobs', body(config, extra));
    expect(created.status).toBe(201);
    return created.body as { id: string };
  }

  async function trigger(api: Api, jobId: string, done = (run: Run) => ['succeeded', 'failed'].includes(run.status)) {
    const triggered = await api('POST', `/api/v1/jobs/${jobId}/trigger`);
    expect(triggered.status).toBe(202);
    return waitFor(async () => {
      const run = (await api('GET', `/api/v1/runs/${triggered.body.run_id}`)).body as Run;
      return done(run) ? run : null;
    }, 40_000);
  }

  /** Every write path refuses the config with 400 naming `field`, and writes nothing. */
  async function expectRefusedEverywhere(config: Record<string, unknown>, field: string) {
    const jobIds = async () =>
      ((await b('GET', '/api/v1/jobs?limit=200')).body.data as Array<{ id: string }>).map((job) => job.id).sort();
    const jobsBefore = await jobIds();
    const created = await b('POST', '/api/v1/jobs', body(config));
    const tested = await b('POST', '/api/v1/jobs/test', body(config));
    const victim = await create(b, {});
    const patched = await b('PATCH', `/api/v1/jobs/${victim.id}`, {
      sink: {
        kind: 'temporal_workflow',
        config: { task_queue: target.taskQueue, workflow_type: 'succeeds', ...config },
      },
    });
    for (const [path, response] of [
      ['create', created],
      ['test', tested],
      ['patch', patched],
    ] as const) {
      expect({ config, path, status: response.status, code: response.body.error?.code }).toEqual({
        config,
        path,
        status: 400,
        code: 'validation_failed',
      });
      expect(Object.keys(response.body.error.fields)).toEqual([field]);
    }
    const after = (await b('GET', `/api/v1/jobs/${victim.id}`)).body;
    expect(after.sink.config).toMatchObject({ task_queue: target.taskQueue, workflow_type: 'succeeds' });
    expect((await jobIds()).filter((id) => id !== victim.id)).toEqual(jobsBefore);
    await b('DELETE', `/api/v1/jobs/${victim.id}`);
  }

  it('refuses every service workflow type and task queue, on create, PATCH and test', async () => {
    const service = serviceWorkflows(stack.config);
    expect(service.taskQueues).toContain(stack.config.temporal.task_queue);
    for (const type of service.workflowTypes) {
      await expectRefusedEverywhere({ workflow_type: type }, 'sink.config.workflow_type');
    }
    for (const queue of [...service.taskQueues, `${stack.config.temporal.task_queue}-next`]) {
      await expectRefusedEverywhere({ task_queue: queue }, 'sink.config.task_queue');
    }
    // Outside the server's allowlist, and workflow ids of the service's scheme or A's default ones.
    await expectRefusedEverywhere({ task_queue: 'payroll' }, 'sink.config.task_queue');
    for (const workflowId of ['{{run.id}}', '{{job.id}}', 'evt_X', `svc-${aWorkspaceId}-{{run.id}}`]) {
      await expectRefusedEverywhere({ workflow_id: workflowId }, 'sink.config.workflow_id');
    }
  });

  it('a job stored before the walls cannot start the service workflows: a fatal attempt, nothing started', async () => {
    const service = serviceWorkflows(stack.config);
    for (const [config, error] of [
      [{ workflow_type: 'jobWorkflow' }, 'workflow type "jobWorkflow" belongs to the service itself'],
      [{ task_queue: stack.config.temporal.task_queue }, 'belongs to the service itself'],
      [{ workflow_id: 'run_{{run.attempt}}' }, "could collide with the service's own workflow ids"],
    ] as const) {
      const job = await create(b, {});
      // What an older release let through, written as it would have stored it.
      await stack.dataSource.query(`UPDATE jobs SET sink_config = sink_config || $2::jsonb WHERE id = $1`, [
        job.id,
        JSON.stringify(config),
      ]);
      const run = await trigger(b, job.id);
      expect(run.status).toBe('failed');
      expect(run.attempts).toHaveLength(1);
      expect(run.attempts[0].outcome).toBe('fatal');
      expect(run.attempts[0].error).toContain(error);
      expect(run.started_workflow).toBeNull();
      expect(await target.executions(`svc-${bWorkspaceId}-${run.id}`)).toEqual([]);
      expect(await target.executions('run_0')).toEqual([]);
    }
    // Nothing started: no service workflow type on the team's queue, no team workflow on the service's.
    const count = async (query: string) => {
      let n = 0;
      for await (const execution of target.client.workflow.list({ query })) {
        n += execution ? 1 : 0;
      }
      return n;
    };
    expect(await count(`TaskQueue = '${target.taskQueue}' AND WorkflowType = 'jobWorkflow'`)).toBe(0);
    for (const queue of service.taskQueues) {
      expect(await count(`TaskQueue = '${queue}' AND WorkflowType = 'succeeds'`)).toBe(0);
    }
  });

  it('marks what it starts with the workspace, job and run, under a workspace-namespaced id', async () => {
    const job = await create(b, {});
    const run = await trigger(b, job.id);
    expect(run.status).toBe('succeeded');
    expect(run.started_workflow?.workflow_id).toBe(`svc-${bWorkspaceId}-${run.id}`);
    const described = await target.client.workflow.getHandle(run.started_workflow!.workflow_id).describe();
    expect(described.memo).toMatchObject({ svc_workspace_id: bWorkspaceId, svc_job_id: job.id, svc_run_id: run.id });
    expect(described.searchAttributes).toMatchObject({ SvcWorkspaceId: [bWorkspaceId], SvcJobId: [job.id] });
  });

  it("cannot attach to A's running execution: the attempt fails, A's execution is untouched", async () => {
    const aJob = await create(
      a,
      { workflow_type: 'blocks', workflow_id: 'shared-report', wait: 'completed' },
      { timeout: '2m' },
    );
    const aTriggered = await a('POST', `/api/v1/jobs/${aJob.id}/trigger`);
    const [aExecution] = await waitFor(async () => {
      const found = await target.executions('shared-report');
      return found.length > 0 ? found : null;
    });
    const aHandle = target.client.workflow.getHandle('shared-report', aExecution.runId);
    const historyBefore = (await aHandle.fetchHistory()).events?.length;

    const bJob = await create(b, { workflow_type: 'blocks', workflow_id: 'shared-report', wait: 'completed' });
    const bRun = await trigger(b, bJob.id);
    expect(bRun.status).toBe('failed');
    expect(bRun.attempts.map((x) => [x.outcome, x.error])).toEqual([
      ['fatal', 'workflow id shared-report belongs to another job'],
    ]);
    expect(bRun.started_workflow).toBeNull();
    // No signal, no cancel, no second execution: A's run still waits on its own.
    expect((await aHandle.describe()).status.name).toBe('RUNNING');
    expect((await aHandle.fetchHistory()).events?.length).toBe(historyBefore);
    expect((await target.executions('shared-report')).map((e) => e.runId)).toEqual([aExecution.runId]);
    const aRun = (await a('GET', `/api/v1/runs/${aTriggered.body.run_id}`)).body as Run;
    expect(aRun.status).toBe('running');
    // B cannot see A's run through the API either.
    expect((await b('GET', `/api/v1/runs/${aRun.id}`)).status).toBe(404);

    await aHandle.signal(releaseSignal);
    const done = await waitFor(async () => {
      const run = (await a('GET', `/api/v1/runs/${aRun.id}`)).body as Run;
      return run.status === 'succeeded' ? run : null;
    }, 30_000);
    expect(done.started_workflow).toMatchObject({ workflow_id: 'shared-report', run_id: aExecution.runId });
  });

  it("cannot reach A's default-id execution: refused when written, a fatal attempt when stored before", async () => {
    const aJob = await create(a, { workflow_type: 'blocks', wait: 'completed' }, { timeout: '2m' });
    const aRunId = (await a('POST', `/api/v1/jobs/${aJob.id}/trigger`)).body.run_id as string;
    const aWorkflowId = `svc-${aWorkspaceId}-${aRunId}`;
    const [aExecution] = await waitFor(async () => {
      const found = await target.executions(aWorkflowId);
      return found.length > 0 ? found : null;
    });
    const aHandle = target.client.workflow.getHandle(aWorkflowId, aExecution.runId);
    const historyBefore = (await aHandle.fetchHistory()).events?.length;

    const refused = await b('POST', '/api/v1/jobs', body({ workflow_id: aWorkflowId }));
    expect(refused.status).toBe(400);
    expect(Object.keys(refused.body.error.fields)).toEqual(['sink.config.workflow_id']);
    const bJob = await create(b, { workflow_type: 'blocks', wait: 'completed' });
    await stack.dataSource.query(`UPDATE jobs SET sink_config = sink_config || $2::jsonb WHERE id = $1`, [
      bJob.id,
      JSON.stringify({ workflow_id: aWorkflowId }),
    ]);
    const bRun = await trigger(b, bJob.id);
    expect(bRun.attempts.map((x) => [x.outcome, x.error, x.started_workflow])).toEqual([
      ['fatal', `workflow id ${aWorkflowId} belongs to another job`, null],
    ]);
    expect((await aHandle.describe()).status.name).toBe('RUNNING');
    expect((await aHandle.fetchHistory()).events?.length).toBe(historyBefore);
    await aHandle.signal(releaseSignal);
    await waitFor(async () => ((await a('GET', `/api/v1/runs/${aRunId}`)).body as Run).status === 'succeeded', 30_000);
  });

  it("cannot read A's result: a completed execution of another job is not attached to", async () => {
    const aJob = await create(a, { workflow_id: 'a-result', args: ['A private result'], wait: 'completed' });
    const aRun = await trigger(a, aJob.id);
    expect(aRun.status).toBe('succeeded');

    const bJob = await create(b, { workflow_id: 'a-result', wait: 'completed' });
    const bRun = await trigger(b, bJob.id);
    expect(bRun.attempts.map((x) => [x.outcome, x.error])).toEqual([
      ['fatal', 'workflow id a-result belongs to another job'],
    ]);
    expect(JSON.stringify(bRun)).not.toContain('A private result');
    expect((await target.executions('a-result')).map((e) => e.runId)).toEqual([aRun.started_workflow!.run_id]);
    // A sink test of the same config is refused the same way, and shows nothing of A's either.
    const tested = await b('POST', '/api/v1/jobs/test', body({ workflow_id: 'a-result', wait: 'completed' }));
    expect(tested.status).toBe(200);
    expect(tested.body).toMatchObject({ outcome: 'fatal', error: 'workflow id a-result belongs to another job' });
    expect(JSON.stringify(tested.body)).not.toContain('A private result');
  });

  it("a workspace admin narrows the server's task queues for its own jobs only, never widens them", async () => {
    const job = await create(b, {});
    const narrowed = await b('PATCH', `/api/v1/workspaces/${bWorkspaceId}`, {
      temporal_workflow_task_queues: ['walls-reports-*', '*'],
    });
    expect(narrowed.status).toBe(200);
    expect(narrowed.body.temporal_workflow_task_queues).toEqual(['walls-reports-*', '*']);
    // `*` passes the workspace's list, the server's list still refuses.
    expect((await b('POST', '/api/v1/jobs', body({ task_queue: 'payroll' }))).status).toBe(400);

    await b('PATCH', `/api/v1/workspaces/${bWorkspaceId}`, { temporal_workflow_task_queues: ['walls-reports-*'] });
    const refused = await b('POST', '/api/v1/jobs', body({}));
    expect(refused.status).toBe(400);
    expect(refused.body.error.fields['sink.config.task_queue']).toBe(
      `task queue "${target.taskQueue}" is not allowed in this workspace; allowed: walls-reports-*`,
    );
    // A job written before the narrowing is held to it at its next attempt.
    const run = await trigger(b, job.id);
    expect(run.attempts[0]).toMatchObject({ outcome: 'fatal', started_workflow: null });
    expect(run.attempts[0].error).toContain('is not allowed in this workspace');
    // A's jobs are not affected.
    expect((await a('POST', '/api/v1/jobs', body({}))).status).toBe(201);
    // Bad patterns are refused with the field named; null clears the list.
    const bad = await b('PATCH', `/api/v1/workspaces/${bWorkspaceId}`, {
      temporal_workflow_task_queues: ['has space'],
    });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.error.fields)).toEqual(['temporal_workflow_task_queues']);
    const cleared = await b('PATCH', `/api/v1/workspaces/${bWorkspaceId}`, { temporal_workflow_task_queues: null });
    expect(cleared.body.temporal_workflow_task_queues).toBeNull();
    expect((await trigger(b, job.id)).status).toBe('succeeded');
    // B cannot touch A's workspace settings.
    expect(
      (await b('PATCH', `/api/v1/workspaces/${aWorkspaceId}`, { temporal_workflow_task_queues: ['x'] })).status,
    ).toBe(404);
  });
});

import { releaseSignal } from '../fixtures/target-workflows/workflows';
import { waitFor } from '../utils/receiver';
import { apiClient, startStack, type Stack } from '../utils/stack';
import { startTargetWorker, type TargetWorker } from '../utils/target-worker';

/**
 * A worker killed (SIGKILL) after a `temporal_workflow` attempt started its workflow: the attempt
 * retried by the next worker attaches to the execution already running (workflow id derived from
 * the workspace and the run; its memo says this job started it), so the run has exactly one execution.
 */
describe('temporal_workflow sink across a worker crash', () => {
  let stack: Stack;
  let target: TargetWorker;

  beforeAll(async () => {
    stack = await startStack({ worker: false });
    target = await startTargetWorker();
  });

  afterAll(async () => {
    await stack?.stop();
    await target?.stop();
  });

  it('starts no second execution for the attempt after the worker dies', async () => {
    const api = apiClient(stack.baseUrl, stack.apiKey);
    const first = await stack.spawnWorker();
    const job = (
      await api('POST', '/api/v1/jobs', {
        name: 'crash',
        schedule: { expr: 'every day at 3am' },
        sink: {
          kind: 'temporal_workflow',
          config: { workflow_type: 'blocks', task_queue: target.taskQueue, wait: 'completed' },
        },
        timeout: '2m',
      })
    ).body;
    const runId = (await api('POST', `/api/v1/jobs/${job.id}/trigger`)).body.run_id as string;
    const workflowId = `svc-${stack.workspaceId}-${runId}`;
    const [started] = await waitFor(async () => {
      const found = await target.executions(workflowId);
      return found.length > 0 ? found : null;
    }, 30_000);
    expect(started.status.name).toBe('RUNNING');
    // Recorded as soon as it started: the run links to it while the attempt still waits.
    const waiting = await waitFor(async () => {
      const run = (await api('GET', `/api/v1/runs/${runId}`)).body;
      return run.started_workflow ? run : null;
    });
    expect(waiting.status).toBe('running');
    expect(waiting.started_workflow).toMatchObject({ workflow_id: workflowId, run_id: started.runId });

    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    await stack.spawnWorker();
    // The retried attempt (after the heartbeat timeout) waits on the same execution.
    await waitFor(async () => {
      const run = (await api('GET', `/api/v1/runs/${runId}`)).body;
      return run.attempts.length >= 2 ? run : null;
    }, 60_000);
    await target.client.workflow.getHandle(workflowId).signal(releaseSignal);
    const run = await waitFor(async () => {
      const body = (await api('GET', `/api/v1/runs/${runId}`)).body;
      return body.status === 'succeeded' ? body : null;
    }, 30_000);

    expect(run.attempts.map((a: { outcome: string; error: string | null }) => [a.outcome, a.error])).toEqual([
      ['retryable', 'interrupted'],
      ['success', null],
    ]);
    expect(run.started_workflow).toMatchObject({ workflow_id: workflowId, run_id: started.runId });
    const executions = await target.executions(workflowId);
    expect(executions.map((e) => e.runId)).toEqual([started.runId]);
  });
});

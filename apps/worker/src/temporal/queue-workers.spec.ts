import { buildConfig } from '@svc/common';
import { noopMetricMeter } from '@temporalio/common';
import { DefaultLogger } from '@temporalio/worker';
import { compileWorkerOptions } from '@temporalio/worker/lib/worker-options';
import { pollOptions } from './queue-workers';

/** What the SDK makes of the options: the poll counts core is given. */
function compiled(options: ReturnType<typeof pollOptions>, slots: number) {
  const compiledOptions = compileWorkerOptions(
    {
      taskQueue: 'q',
      maxConcurrentWorkflowTaskExecutions: slots,
      maxConcurrentActivityTaskExecutions: slots,
      ...options,
    },
    new DefaultLogger('ERROR'),
    noopMetricMeter,
  );
  return {
    workflow: compiledOptions.workflowTaskPollerBehavior,
    activity: compiledOptions.activityTaskPollerBehavior,
    ratio: compiledOptions.nonStickyToStickyPollRatio,
  };
}

describe('pollOptions', () => {
  it('should have the SDK open 50 workflow and 50 activity polls by default, half of the workflow polls on the shared queue', () => {
    const worker = buildConfig({}, {}).worker;
    expect(compiled(pollOptions(worker), worker.max_concurrent_workflow_tasks)).toEqual({
      workflow: { type: 'simple-maximum', maximum: 50 },
      activity: { type: 'simple-maximum', maximum: 50 },
      ratio: 0.5,
    });
  });

  it('should never open more polls than the slots they fill, nor fewer than the SDK accepts', () => {
    const worker = buildConfig(
      {},
      { WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: '1', WORKER_MAX_CONCURRENT_ACTIVITIES: '5' },
    ).worker;
    expect(pollOptions(worker)).toMatchObject({
      workflowTaskPollerBehavior: { maximum: 2 },
      activityTaskPollerBehavior: { maximum: 5 },
    });
  });

  it('should follow worker.max_concurrent_*_task_polls', () => {
    const worker = buildConfig(
      {},
      { WORKER_MAX_CONCURRENT_WORKFLOW_TASK_POLLS: '8', WORKER_MAX_CONCURRENT_ACTIVITY_TASK_POLLS: '4' },
    ).worker;
    expect(compiled(pollOptions(worker), 100)).toMatchObject({
      workflow: { maximum: 8 },
      activity: { maximum: 4 },
    });
  });
});

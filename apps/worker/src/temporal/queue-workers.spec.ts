import { buildConfig } from '@svc/common';
import { noopMetricMeter } from '@temporalio/common';
import { DefaultLogger } from '@temporalio/worker';
import { compileWorkerOptions } from '@temporalio/worker/lib/worker-options';
import { LIGHT_POLLS, pollOptions, STREAMS_KEPT_FREE } from './queue-workers';

/** What the SDK makes of the options: the poll counts core is given. */
function compiled(
  options: Pick<ReturnType<typeof pollOptions>, 'workflowTaskPollerBehavior' | 'activityTaskPollerBehavior'>,
  slots: number,
) {
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
  it('should have the SDK open 50 workflow and 50 activity polls where a connection allows them, half of the workflow polls on the shared queue', () => {
    const worker = buildConfig({}, { WORKER_MAX_STREAMS_PER_CONNECTION: '1000' }).worker;
    expect(compiled(pollOptions(worker), worker.max_concurrent_workflow_tasks)).toEqual({
      workflow: { type: 'simple-maximum', maximum: 50 },
      activity: { type: 'simple-maximum', maximum: 50 },
      ratio: 0.5,
    });
  });

  it('should keep a connection 25 streams under its limit by default (100), scaling both kinds of polls alike', () => {
    const worker = buildConfig({}, {}).worker;
    const polls = compiled(pollOptions(worker), worker.max_concurrent_workflow_tasks);
    expect(polls).toMatchObject({ workflow: { maximum: 37 }, activity: { maximum: 37 } });
    // The light worker that shares the connection fits in what is kept free, with room for calls.
    const light = compiled(LIGHT_POLLS, 20);
    const held = polls.workflow.maximum + polls.activity.maximum + light.workflow.maximum + light.activity.maximum;
    expect(held).toBeLessThanOrEqual(worker.max_streams_per_connection - 20);
  });

  it('should fit any stream limit it accepts', () => {
    for (const streams of [30, 64, 100, 128, 250]) {
      const worker = buildConfig({}, { WORKER_MAX_STREAMS_PER_CONNECTION: String(streams) }).worker;
      const polls = compiled(pollOptions(worker), worker.max_concurrent_workflow_tasks);
      expect(polls.workflow.maximum + polls.activity.maximum).toBeLessThanOrEqual(streams - STREAMS_KEPT_FREE);
    }
    expect(() => buildConfig({}, { WORKER_MAX_STREAMS_PER_CONNECTION: '29' })).toThrow(/max_streams_per_connection/);
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

import { buildConfig } from '@svc/common';
import { pollOptions } from './queue-workers';

describe('pollOptions', () => {
  it('should open 50 workflow and 50 activity polls by default, half of the workflow polls on the shared queue', () => {
    expect(pollOptions(buildConfig({}, {}).worker)).toEqual({
      maxConcurrentWorkflowTaskPolls: 50,
      nonStickyToStickyPollRatio: 0.5,
      maxConcurrentActivityTaskPolls: 50,
    });
  });

  it('should never open more polls than the slots they fill, nor fewer than the SDK accepts', () => {
    const worker = buildConfig(
      {},
      { WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: '1', WORKER_MAX_CONCURRENT_ACTIVITIES: '5' },
    ).worker;
    expect(pollOptions(worker)).toMatchObject({ maxConcurrentWorkflowTaskPolls: 2, maxConcurrentActivityTaskPolls: 5 });
  });
});

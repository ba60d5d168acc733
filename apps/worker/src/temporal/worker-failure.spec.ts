import type { State } from '@temporalio/worker';
import { watchWorkerFailure } from './worker-failure';

describe('watchWorkerFailure', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('should report a worker once, as soon as its state is FAILED, without waiting for run() to settle', () => {
    let state: State = 'RUNNING';
    const onFailed = jest.fn();
    watchWorkerFailure({ getState: () => state }, onFailed, 1_000);

    jest.advanceTimersByTime(5_000);
    expect(onFailed).not.toHaveBeenCalled();
    state = 'STOPPING';
    jest.advanceTimersByTime(5_000);
    expect(onFailed).not.toHaveBeenCalled();

    state = 'FAILED';
    jest.advanceTimersByTime(1_000);
    expect(onFailed).toHaveBeenCalledTimes(1);
    jest.advanceTimersByTime(10_000);
    expect(onFailed).toHaveBeenCalledTimes(1);
  });

  it('should not report a worker it stopped watching (its run() settled first)', () => {
    let state: State = 'RUNNING';
    const onFailed = jest.fn();
    const stop = watchWorkerFailure({ getState: () => state }, onFailed, 1_000);
    stop();
    state = 'FAILED';
    jest.advanceTimersByTime(10_000);
    expect(onFailed).not.toHaveBeenCalled();
  });
});

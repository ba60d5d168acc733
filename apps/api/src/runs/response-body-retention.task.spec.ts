import { buildConfig } from '@svc/common';
import type { RunsRepository, Transactions } from '@svc/persistence';
import { BODY_PURGE_FIRST_DELAY_MS, ResponseBodyRetentionTask } from './response-body-retention.task';

/** The timer, skip and failure behaviour is PeriodicPurge's (audit-retention.task.spec.ts covers it, and
 * libs/common/src/periodic-task.spec.ts the timers under it). */
describe('ResponseBodyRetentionTask', () => {
  const config = buildConfig({ runs: { body_retention: '7d' } }, {});
  let clear: jest.Mock<Promise<number>, [Date, number]>;
  let task: ResponseBodyRetentionTask;

  beforeEach(() => {
    jest.useFakeTimers();
    clear = jest.fn(async (_cutoff: Date, _batch: number) => 2);
    task = new ResponseBodyRetentionTask(
      { connected: true } as unknown as Transactions,
      { clearResponseBodiesFinishedBefore: clear } as unknown as RunsRepository,
      config,
    );
  });

  afterEach(async () => {
    await task.onApplicationShutdown();
    jest.useRealTimers();
  });

  it('should clear the bodies of attempts finished before runs.body_retention', async () => {
    expect(await task.runOnce(new Date('2030-03-31T12:00:00Z'))).toBe(2);
    expect(clear).toHaveBeenCalledWith(new Date('2030-03-24T12:00:00Z'), expect.any(Number));
  });

  it('should first run two minutes after start-up', async () => {
    task.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(BODY_PURGE_FIRST_DELAY_MS - 1);
    expect(clear).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(1);
    expect(clear).toHaveBeenCalledTimes(1);
  });
});

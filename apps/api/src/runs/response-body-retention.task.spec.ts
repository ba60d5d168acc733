import { buildConfig } from '@svc/common';
import type { RunsRepository } from '@svc/persistence';
import { expectFirstPurgeAfter, useRetentionTask } from '../common/test/retention-task';
import { BODY_PURGE_FIRST_DELAY_MS, ResponseBodyRetentionTask } from './response-body-retention.task';

/** The timer, skip and failure behaviour is PeriodicPurge's (audit-retention.task.spec.ts covers it, and
 * libs/common/src/periodic-task.spec.ts the timers under it). */
describe('ResponseBodyRetentionTask', () => {
  const config = buildConfig({ runs: { body_retention: '7d' } }, {});
  let clear: jest.Mock<Promise<number>, [Date, number]>;
  const subject = useRetentionTask((database) => {
    clear = jest.fn(async (_cutoff: Date, _batch: number) => 2);
    return new ResponseBodyRetentionTask(
      database,
      { clearResponseBodiesFinishedBefore: clear } as unknown as RunsRepository,
      config,
    );
  });

  it('should clear the bodies of attempts finished before runs.body_retention', async () => {
    expect(await subject.task.runOnce(new Date('2030-03-31T12:00:00Z'))).toBe(2);
    expect(clear).toHaveBeenCalledWith(new Date('2030-03-24T12:00:00Z'), expect.any(Number));
  });

  it('should first run two minutes after start-up', async () => {
    await expectFirstPurgeAfter(subject.task, BODY_PURGE_FIRST_DELAY_MS, clear);
  });
});

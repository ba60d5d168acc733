import { buildConfig } from '@svc/common';
import type { RunPurgeScope, RunsRepository } from '@svc/persistence';
import { expectFirstPurgeAfter, useRetentionTask } from '../common/test/retention-task';
import { RUN_PURGE_FIRST_DELAY_MS, RunRetentionTask } from './run-retention.task';

/** The timer, skip and failure behaviour is PeriodicPurge's (audit-retention.task.spec.ts covers it, and
 * libs/common/src/periodic-task.spec.ts the timers under it). */
describe('RunRetentionTask', () => {
  const config = buildConfig({ runs: { retention: '30d' }, plans: { free: { run_retention: '7d' } } }, {});
  let remove: jest.Mock<Promise<number>, [Date, number, RunPurgeScope?]>;
  const subject = useRetentionTask((database) => {
    remove = jest.fn(async (_cutoff: Date, _batch: number, _scope?: RunPurgeScope) => 2);
    return new RunRetentionTask(database, { deleteFinishedBefore: remove } as unknown as RunsRepository, config);
  });

  it("should delete runs finished before runs.retention, and before their plan's own retention", async () => {
    expect(await subject.task.runOnce(new Date('2030-03-31T12:00:00Z'))).toBe(4);
    expect(remove).toHaveBeenCalledWith(new Date('2030-03-24T12:00:00Z'), expect.any(Number), {
      plans: ['free'],
      exceptPlans: undefined,
    });
    expect(remove).toHaveBeenCalledWith(new Date('2030-03-01T12:00:00Z'), expect.any(Number), {
      plans: undefined,
      exceptPlans: ['free'],
    });
  });

  it('should first run three minutes after start-up', async () => {
    // One pass purges twice: the plans with their own retention, then the rest.
    await expectFirstPurgeAfter(subject.task, RUN_PURGE_FIRST_DELAY_MS, remove, 2);
  });
});

import { buildConfig } from '@svc/common';
import type { AuditRepository } from '@svc/persistence';
import { PURGE_INTERVAL_MS } from '../common/periodic-purge';
import { expectFirstPurgeAfter, useRetentionTask } from '../common/test/retention-task';
import { AUDIT_PURGE_FIRST_DELAY_MS, AuditRetentionTask } from './audit-retention.task';

describe('AuditRetentionTask', () => {
  const config = buildConfig({ audit: { retention: '30d' } }, {});
  let deleteOlderThan: jest.Mock<Promise<number>, [Date]>;
  const subject = useRetentionTask((database) => {
    deleteOlderThan = jest.fn(async (_cutoff: Date) => 3);
    return new AuditRetentionTask(database, { deleteOlderThan } as unknown as AuditRepository, config);
  });

  it('should delete entries older than audit.retention before now', async () => {
    const now = new Date('2030-03-31T12:00:00Z');
    expect(await subject.task.runOnce(now)).toBe(3);
    expect(deleteOlderThan).toHaveBeenCalledWith(new Date('2030-03-01T12:00:00Z'));
  });

  it('should run a minute after start-up, then hourly, and stop at shutdown', async () => {
    await expectFirstPurgeAfter(subject.task, AUDIT_PURGE_FIRST_DELAY_MS, deleteOlderThan);
    await jest.advanceTimersByTimeAsync(PURGE_INTERVAL_MS);
    expect(deleteOlderThan).toHaveBeenCalledTimes(2);
    await subject.task.onApplicationShutdown();
    await jest.advanceTimersByTimeAsync(3 * PURGE_INTERVAL_MS);
    expect(deleteOlderThan).toHaveBeenCalledTimes(2);
  });

  it('should stop its timers before the listener closes and await the purge in flight at shutdown', async () => {
    let finish!: (n: number) => void;
    deleteOlderThan.mockImplementationOnce(() => new Promise((resolve) => (finish = resolve)));
    const purge = subject.task.runOnce();
    subject.task.beforeApplicationShutdown();
    let closed = false;
    const shutdown = subject.task.onApplicationShutdown().then(() => (closed = true));
    await jest.advanceTimersByTimeAsync(3 * PURGE_INTERVAL_MS);
    expect(closed).toBe(false);
    expect(deleteOlderThan).toHaveBeenCalledTimes(1);
    finish(1);
    await shutdown;
    expect(await purge).toBe(1);
    expect(await subject.task.runOnce()).toBe(0);
  });

  it('should not keep the process alive', () => {
    const unref = jest.spyOn(global, 'setInterval');
    subject.task.onApplicationBootstrap();
    const timer = unref.mock.results[0].value as NodeJS.Timeout;
    expect(timer.hasRef()).toBe(false);
  });

  it('should skip while the database is unreachable and survive a failed purge', async () => {
    subject.database.connected = false;
    expect(await subject.task.runOnce()).toBe(0);
    expect(deleteOlderThan).not.toHaveBeenCalled();
    subject.database.connected = true;
    deleteOlderThan.mockRejectedValueOnce(new Error('connection reset'));
    expect(await subject.task.runOnce()).toBe(0);
    expect(await subject.task.runOnce()).toBe(3);
  });

  it('should not start a purge while one is running', async () => {
    let finish!: (n: number) => void;
    deleteOlderThan.mockImplementationOnce(() => new Promise((resolve) => (finish = resolve)));
    const first = subject.task.runOnce();
    expect(await subject.task.runOnce()).toBe(0);
    finish(5);
    expect(await first).toBe(5);
    expect(deleteOlderThan).toHaveBeenCalledTimes(1);
  });
});

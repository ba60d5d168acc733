import { buildConfig } from '@svc/common';
import type { AuditRepository, Transactions } from '@svc/persistence';
import { PURGE_INTERVAL_MS } from '../common/periodic-purge';
import { AUDIT_PURGE_FIRST_DELAY_MS, AuditRetentionTask } from './audit-retention.task';

describe('AuditRetentionTask', () => {
  const config = buildConfig({ audit: { retention: '30d' } }, {});
  let deleteOlderThan: jest.Mock<Promise<number>, [Date]>;
  let database: { connected: boolean };
  let task: AuditRetentionTask;

  beforeEach(() => {
    jest.useFakeTimers();
    deleteOlderThan = jest.fn(async (_cutoff: Date) => 3);
    database = { connected: true };
    task = new AuditRetentionTask(
      database as unknown as Transactions,
      { deleteOlderThan } as unknown as AuditRepository,
      config,
    );
  });

  afterEach(async () => {
    await task.onApplicationShutdown();
    jest.useRealTimers();
  });

  it('should delete entries older than audit.retention before now', async () => {
    const now = new Date('2030-03-31T12:00:00Z');
    expect(await task.runOnce(now)).toBe(3);
    expect(deleteOlderThan).toHaveBeenCalledWith(new Date('2030-03-01T12:00:00Z'));
  });

  it('should run a minute after start-up, then hourly, and stop at shutdown', async () => {
    task.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(AUDIT_PURGE_FIRST_DELAY_MS - 1);
    expect(deleteOlderThan).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(1);
    expect(deleteOlderThan).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(PURGE_INTERVAL_MS);
    expect(deleteOlderThan).toHaveBeenCalledTimes(2);
    await task.onApplicationShutdown();
    await jest.advanceTimersByTimeAsync(3 * PURGE_INTERVAL_MS);
    expect(deleteOlderThan).toHaveBeenCalledTimes(2);
  });

  it('should stop its timers before the listener closes and await the purge in flight at shutdown', async () => {
    let finish!: (n: number) => void;
    deleteOlderThan.mockImplementationOnce(() => new Promise((resolve) => (finish = resolve)));
    const purge = task.runOnce();
    task.beforeApplicationShutdown();
    let closed = false;
    const shutdown = task.onApplicationShutdown().then(() => (closed = true));
    await jest.advanceTimersByTimeAsync(3 * PURGE_INTERVAL_MS);
    expect(closed).toBe(false);
    expect(deleteOlderThan).toHaveBeenCalledTimes(1);
    finish(1);
    await shutdown;
    expect(await purge).toBe(1);
    expect(await task.runOnce()).toBe(0);
  });

  it('should not keep the process alive', () => {
    const unref = jest.spyOn(global, 'setInterval');
    task.onApplicationBootstrap();
    const timer = unref.mock.results[0].value as NodeJS.Timeout;
    expect(timer.hasRef()).toBe(false);
  });

  it('should skip while the database is unreachable and survive a failed purge', async () => {
    database.connected = false;
    expect(await task.runOnce()).toBe(0);
    expect(deleteOlderThan).not.toHaveBeenCalled();
    database.connected = true;
    deleteOlderThan.mockRejectedValueOnce(new Error('connection reset'));
    expect(await task.runOnce()).toBe(0);
    expect(await task.runOnce()).toBe(3);
  });

  it('should not start a purge while one is running', async () => {
    let finish!: (n: number) => void;
    deleteOlderThan.mockImplementationOnce(() => new Promise((resolve) => (finish = resolve)));
    const first = task.runOnce();
    expect(await task.runOnce()).toBe(0);
    finish(5);
    expect(await first).toBe(5);
    expect(deleteOlderThan).toHaveBeenCalledTimes(1);
  });
});

import type { Transactions } from '@svc/persistence';
import type { PeriodicPurge } from '../periodic-purge';

/** What a retention task's spec works with: the task under test and the database's state it reads. */
export interface RetentionTaskUnderTest<T extends PeriodicPurge> {
  readonly task: T;
  readonly database: { connected: boolean };
}

/**
 * Builds the task before each test (fake timers, a connected database; `make` builds its repository
 * fake) and shuts it down after each; the returned object holds the current task.
 */
export function useRetentionTask<T extends PeriodicPurge>(
  make: (database: Transactions) => T,
): RetentionTaskUnderTest<T> {
  const current = {} as { task: T; database: { connected: boolean } };
  beforeEach(() => {
    jest.useFakeTimers();
    current.database = { connected: true };
    current.task = make(current.database as unknown as Transactions);
  });
  afterEach(async () => {
    await current.task.onApplicationShutdown();
    jest.useRealTimers();
  });
  return current;
}

/** The first purge comes `firstDelayMs` after start-up, not a millisecond before; one purge makes `callsPerPass` calls. */
export async function expectFirstPurgeAfter(
  task: PeriodicPurge,
  firstDelayMs: number,
  purge: jest.Mock,
  callsPerPass = 1,
): Promise<void> {
  task.onApplicationBootstrap();
  await jest.advanceTimersByTimeAsync(firstDelayMs - 1);
  expect(purge).not.toHaveBeenCalled();
  await jest.advanceTimersByTimeAsync(1);
  expect(purge).toHaveBeenCalledTimes(callsPerPass);
}

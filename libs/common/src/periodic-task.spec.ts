import { PeriodicTask } from './periodic-task';

/** A pass the test finishes by hand. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('PeriodicTask', () => {
  let onError: jest.Mock<void, [unknown]>;

  beforeEach(() => {
    jest.useFakeTimers();
    onError = jest.fn();
  });

  afterEach(() => {
    jest.useRealTimers();
  });

  describe('timers', () => {
    it('should run a pass every intervalMs after start(), and none before', async () => {
      const pass = jest.fn(async () => undefined);
      const task = new PeriodicTask({ intervalMs: 1_000, pass, onError });
      await jest.advanceTimersByTimeAsync(5_000);
      expect(pass).not.toHaveBeenCalled();
      task.start();
      await jest.advanceTimersByTimeAsync(999);
      expect(pass).not.toHaveBeenCalled();
      await jest.advanceTimersByTimeAsync(1);
      expect(pass).toHaveBeenCalledTimes(1);
      await jest.advanceTimersByTimeAsync(2_000);
      expect(pass).toHaveBeenCalledTimes(3);
      await task.stop();
    });

    it('should run once firstDelayMs after start-up (0: at once), then on the interval', async () => {
      const pass = jest.fn(async () => undefined);
      const task = new PeriodicTask({ intervalMs: 10_000, firstDelayMs: 0, pass, onError });
      task.start();
      await jest.advanceTimersByTimeAsync(0);
      expect(pass).toHaveBeenCalledTimes(1);
      await jest.advanceTimersByTimeAsync(10_000);
      expect(pass).toHaveBeenCalledTimes(2);
      await task.stop();
    });

    it('should pass the time the pass started', async () => {
      jest.setSystemTime(new Date('2030-01-01T00:00:00Z'));
      const pass = jest.fn(async (_now: Date) => undefined);
      const task = new PeriodicTask({ intervalMs: 60_000, pass, onError });
      task.start();
      await jest.advanceTimersByTimeAsync(60_000);
      expect(pass).toHaveBeenCalledWith(new Date('2030-01-01T00:01:00Z'));
      await task.stop();
    });

    it('should not keep the process alive', async () => {
      const setInterval = jest.spyOn(global, 'setInterval');
      const setTimeout = jest.spyOn(global, 'setTimeout');
      const task = new PeriodicTask({ intervalMs: 1_000, firstDelayMs: 500, pass: async () => undefined, onError });
      task.start();
      expect((setInterval.mock.results[0].value as NodeJS.Timeout).hasRef()).toBe(false);
      expect((setTimeout.mock.results[0].value as NodeJS.Timeout).hasRef()).toBe(false);
      await task.stop();
    });

    it('should start its timers once however often start() is called', async () => {
      const pass = jest.fn(async () => undefined);
      const task = new PeriodicTask({ intervalMs: 1_000, pass, onError });
      task.start();
      task.start();
      await jest.advanceTimersByTimeAsync(1_000);
      expect(pass).toHaveBeenCalledTimes(1);
      await task.stop();
    });
  });

  describe('never overlapping', () => {
    it('should skip the ticks that come while a pass is in flight, never queue them', async () => {
      const slow = gate();
      const pass = jest
        .fn()
        .mockImplementationOnce(() => slow.promise)
        .mockResolvedValue(undefined);
      const task = new PeriodicTask({ intervalMs: 1_000, pass, onError });
      task.start();
      await jest.advanceTimersByTimeAsync(1_000);
      expect(task.running).toBe(true);
      await jest.advanceTimersByTimeAsync(5_000);
      expect(pass).toHaveBeenCalledTimes(1);
      slow.open();
      await jest.advanceTimersByTimeAsync(0);
      expect(task.running).toBe(false);
      expect(pass).toHaveBeenCalledTimes(1);
      await jest.advanceTimersByTimeAsync(1_000);
      expect(pass).toHaveBeenCalledTimes(2);
      await task.stop();
    });

    it('should answer runNow with the pass’s result, and null while one is in flight', async () => {
      const slow = gate();
      const task = new PeriodicTask<number>({
        intervalMs: 1_000,
        pass: async () => slow.promise.then(() => 7),
        onError,
      });
      const first = task.runNow();
      expect(task.runNow()).toBeNull();
      slow.open();
      await expect(first).resolves.toBe(7);
      expect(task.running).toBe(false);
      await expect(task.runNow()).resolves.toBe(7);
    });
  });

  describe('failures', () => {
    it('should hand a failed tick to onError and run again at the next tick', async () => {
      const pass = jest.fn().mockRejectedValueOnce(new Error('connection reset')).mockResolvedValue(undefined);
      const task = new PeriodicTask({ intervalMs: 1_000, pass, onError });
      task.start();
      await jest.advanceTimersByTimeAsync(1_000);
      expect(onError).toHaveBeenCalledWith(new Error('connection reset'));
      await jest.advanceTimersByTimeAsync(1_000);
      expect(pass).toHaveBeenCalledTimes(2);
      expect(onError).toHaveBeenCalledTimes(1);
      await task.stop();
    });

    it('should reject runNow with the pass’s error and stay usable, also when the pass throws synchronously', async () => {
      const pass = jest
        .fn()
        .mockImplementationOnce(() => {
          throw new Error('sync');
        })
        .mockResolvedValue(undefined);
      const task = new PeriodicTask({ intervalMs: 1_000, pass, onError });
      await expect(task.runNow()).rejects.toThrow('sync');
      expect(task.running).toBe(false);
      await expect(task.runNow()).resolves.toBeUndefined();
      expect(onError).not.toHaveBeenCalled();
    });
  });

  describe('stop()', () => {
    it('should resolve only once the pass in flight has settled, and start none after', async () => {
      const slow = gate();
      const pass = jest.fn(() => slow.promise);
      const task = new PeriodicTask({ intervalMs: 1_000, pass, onError });
      task.start();
      await jest.advanceTimersByTimeAsync(1_000);
      let stopped = false;
      const stopping = task.stop().then(() => (stopped = true));
      await jest.advanceTimersByTimeAsync(10_000);
      expect(stopped).toBe(false);
      slow.open();
      await stopping;
      expect(stopped).toBe(true);
      expect(pass).toHaveBeenCalledTimes(1);
      expect(task.runNow()).toBeNull();
    });

    it('should wait for a failing pass without rejecting', async () => {
      const slow = gate();
      const task = new PeriodicTask({
        intervalMs: 1_000,
        pass: () => slow.promise.then(() => Promise.reject(new Error('late failure'))),
        onError,
      });
      const run = task.runNow()!;
      const stopping = task.stop();
      slow.open();
      await expect(run).rejects.toThrow('late failure');
      await expect(stopping).resolves.toBeUndefined();
    });

    it('should resolve at once when idle, stop the timers, and answer the same promise when called again', async () => {
      const pass = jest.fn(async () => undefined);
      const task = new PeriodicTask({ intervalMs: 1_000, pass, onError });
      task.start();
      const stopping = task.stop();
      await expect(stopping).resolves.toBeUndefined();
      expect(task.stop()).toBe(stopping);
      await jest.advanceTimersByTimeAsync(10_000);
      expect(pass).not.toHaveBeenCalled();
      task.start();
      await jest.advanceTimersByTimeAsync(10_000);
      expect(pass).not.toHaveBeenCalled();
    });
  });
});

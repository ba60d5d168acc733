import { BackgroundWork, FOLLOW_UP_RETRY, type FollowUpRetry } from './background-work';

const settle = () => new Promise((resolve) => setImmediate(resolve));

/** Runs `create` under key job_1, held until the returned release is called; it then records `label` in `order`. */
function heldCreate(background: BackgroundWork, order: string[], label: string): () => void {
  let release!: () => void;
  background.run(
    'create',
    () => new Promise<void>((resolve) => (release = resolve)).then(() => void order.push(label)),
    {
      key: 'job_1',
    },
  );
  return () => release();
}

describe('BackgroundWork', () => {
  it('should run work without the caller waiting, and drain it', async () => {
    const background = new BackgroundWork();
    let release!: () => void;
    let done = false;
    background.run('slow', () => new Promise<void>((resolve) => (release = resolve)).then(() => void (done = true)));
    await settle();
    expect(done).toBe(false);
    const drained = background.drain(10_000);
    release();
    await drained;
    expect(done).toBe(true);
  });

  it('should swallow a failure (logged) so the request that started it is unaffected', async () => {
    const background = new BackgroundWork();
    background.run('failing', async () => {
      throw new Error('temporal unavailable');
    });
    await expect(background.drain(1_000)).resolves.toBeUndefined();
  });

  it('should stop waiting at the drain timeout', async () => {
    const background = new BackgroundWork();
    background.run('stuck', () => new Promise<void>(() => undefined));
    await expect(background.drain(50)).resolves.toBeUndefined();
  });

  it('should run the work of one key in order, and of different keys independently', async () => {
    const background = new BackgroundWork();
    const order: string[] = [];
    const releaseFirst = heldCreate(background, order, 'job_1 create');
    background.run('delete', async () => void order.push('job_1 delete'), { key: 'job_1' });
    background.run('other', async () => void order.push('job_2 create'), { key: 'job_2' });
    await settle();
    expect(order).toEqual(['job_2 create']);
    releaseFirst();
    await background.drain(10_000);
    expect(order).toEqual(['job_2 create', 'job_1 create', 'job_1 delete']);
  });

  it('should let a caller wait for the first try only, in order after the earlier work of the key', async () => {
    const background = new BackgroundWork();
    const order: string[] = [];
    const releaseCreate = heldCreate(background, order, 'create');
    let answered = false;
    const pause = background
      .runAwaitingFirstTry('pause', async () => void order.push('pause'), { key: 'job_1' })
      .then((sent) => {
        answered = true;
        return sent;
      });
    await settle();
    expect(answered).toBe(false);
    releaseCreate();
    await expect(pause).resolves.toBe(true);
    expect(order).toEqual(['create', 'pause']);
    await background.drain(1_000);
  });

  describe('retries (fake timers)', () => {
    beforeEach(() => {
      jest.useFakeTimers();
    });
    afterEach(() => {
      jest.useRealTimers();
    });

    /** A follow-up that fails `failures` times, then succeeds; records when (fake ms) each try started. */
    function flaky(failures: number) {
      const tries: Array<{ attempt: number; at: number }> = [];
      const start = Date.now();
      const work = async (attempt: number) => {
        tries.push({ attempt, at: Date.now() - start });
        if (tries.length <= failures) {
          throw new Error(`temporal unavailable (${tries.length})`);
        }
      };
      return { tries, work };
    }

    it('should retry a failure 1 s doubling to 30 s until it succeeds', async () => {
      const background = new BackgroundWork();
      const { tries, work } = flaky(7);
      background.run('starting the workflow of job_1', work, { key: 'job_1' });
      await jest.advanceTimersByTimeAsync(200_000);
      expect(tries.map((t) => t.attempt)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
      // Waits 1, 2, 4, 8, 16, 30 (capped), 30 s.
      expect(tries.map((t) => t.at)).toEqual([0, 1_000, 3_000, 7_000, 15_000, 31_000, 61_000, 91_000]);
      await jest.advanceTimersByTimeAsync(600_000);
      expect(tries).toHaveLength(8);
    });

    it('should give up when the next try would start after the retry window (the reconciler repairs it)', async () => {
      const retry: FollowUpRetry = { initialDelayMs: 1_000, maxDelayMs: 30_000, giveUpAfterMs: 120_000 };
      const background = new BackgroundWork(retry);
      const { tries, work } = flaky(Infinity);
      background.run('starting the workflow of job_1', work, { key: 'job_1' });
      await jest.advanceTimersByTimeAsync(1_000_000);
      // 0, 1, 3, 7, 15, 31, 61, 91 s; the next would be at 121 s > 120 s.
      expect(tries.map((t) => t.at)).toEqual([0, 1_000, 3_000, 7_000, 15_000, 31_000, 61_000, 91_000]);
      // Nothing is left: a later follow-up of the job starts at once.
      const later = flaky(0);
      background.run('stopping the workflows of job_1', later.work, { key: 'job_1' });
      await jest.advanceTimersByTimeAsync(0);
      expect(later.tries).toHaveLength(1);
    });

    it('should retry for about ten minutes by default', async () => {
      expect(FOLLOW_UP_RETRY).toEqual({ initialDelayMs: 1_000, maxDelayMs: 30_000, giveUpAfterMs: 600_000 });
      const background = new BackgroundWork();
      const { tries, work } = flaky(Infinity);
      background.run('failing', work);
      await jest.advanceTimersByTimeAsync(3_600_000);
      const last = tries[tries.length - 1].at;
      expect(last).toBeLessThanOrEqual(600_000);
      expect(last).toBeGreaterThan(600_000 - 30_000);
    });

    it('should let a later follow-up of the same job supersede one that is waiting to retry', async () => {
      const background = new BackgroundWork();
      const order: string[] = [];
      const create = flaky(Infinity);
      background.run(
        'create',
        async (attempt) => {
          order.push(`create ${attempt}`);
          await create.work(attempt);
        },
        { key: 'job_1' },
      );
      await jest.advanceTimersByTimeAsync(3_500); // tries at 0, 1 s, 3 s; now waiting 4 s
      expect(order).toEqual(['create 0', 'create 1', 'create 2']);
      background.run('delete', async (attempt) => void order.push(`delete ${attempt}`), { key: 'job_1' });
      // The delete does not wait out the create's backoff, and the create tries no more.
      await jest.advanceTimersByTimeAsync(0);
      expect(order).toEqual(['create 0', 'create 1', 'create 2', 'delete 0']);
      await jest.advanceTimersByTimeAsync(600_000);
      expect(order).toEqual(['create 0', 'create 1', 'create 2', 'delete 0']);
    });

    it('should queue later follow-ups after the try in flight, which then does not retry', async () => {
      const background = new BackgroundWork();
      const order: string[] = [];
      let failCreate!: (err: Error) => void;
      background.run(
        'create',
        (attempt) => {
          order.push(`create ${attempt} started`);
          return new Promise<void>((_resolve, reject) => (failCreate = reject));
        },
        { key: 'job_1' },
      );
      await jest.advanceTimersByTimeAsync(0);
      background.run('update', async (attempt) => void order.push(`update ${attempt}`), { key: 'job_1' });
      background.run('delete', async (attempt) => void order.push(`delete ${attempt}`), { key: 'job_1' });
      await jest.advanceTimersByTimeAsync(10_000);
      expect(order).toEqual(['create 0 started']); // the call in flight is never overtaken
      failCreate(new Error('temporal unavailable'));
      await jest.advanceTimersByTimeAsync(600_000);
      // Each makes its first try, in order; none of the superseded ones retries.
      expect(order).toEqual(['create 0 started', 'update 0', 'delete 0']);
    });

    it('should keep retrying the newest follow-up, and other jobs independently', async () => {
      const background = new BackgroundWork();
      const job1 = flaky(2);
      const job2 = flaky(1);
      background.run('job_1', job1.work, { key: 'job_1' });
      background.run('job_2', job2.work, { key: 'job_2' });
      await jest.advanceTimersByTimeAsync(10_000);
      expect(job1.tries.map((t) => t.at)).toEqual([0, 1_000, 3_000]);
      expect(job2.tries.map((t) => t.at)).toEqual([0, 1_000]);
    });

    it('should start after the first wait when the caller already tried once', async () => {
      const background = new BackgroundWork();
      const { tries, work } = flaky(1);
      background.run('updating the workflow of job_1', work, { key: 'job_1', alreadyTried: true });
      await jest.advanceTimersByTimeAsync(999);
      expect(tries).toEqual([]);
      await jest.advanceTimersByTimeAsync(10_000);
      expect(tries).toEqual([
        { attempt: 1, at: 1_000 },
        { attempt: 2, at: 3_000 },
      ]);
    });

    it('should answer a caller waiting for a failed first try at once, and retry after', async () => {
      const background = new BackgroundWork();
      const { tries, work } = flaky(1);
      await expect(background.runAwaitingFirstTry('pausing job_1', work, { key: 'job_1' })).resolves.toBe(false);
      expect(tries.map((t) => t.attempt)).toEqual([0]);
      await jest.advanceTimersByTimeAsync(1_000);
      expect(tries.map((t) => t.attempt)).toEqual([0, 1]);
    });

    it('should stop retrying at shutdown without waiting out the backoff, and still drain tries in flight', async () => {
      const background = new BackgroundWork();
      const waiting = flaky(Infinity);
      background.run('waiting to retry', waiting.work, { key: 'job_1' });
      await jest.advanceTimersByTimeAsync(20_000); // tries at 0, 1, 3, 7, 15 s; next at 31 s
      expect(waiting.tries).toHaveLength(5);
      let finishInFlight!: () => void;
      let inFlightDone = false;
      background.run(
        'in flight',
        () => new Promise<void>((resolve) => (finishInFlight = resolve)).then(() => void (inFlightDone = true)),
        { key: 'job_2' },
      );
      const failing = flaky(Infinity);
      background.run('failed once', failing.work, { key: 'job_3' });
      await jest.advanceTimersByTimeAsync(0);

      let drained = false;
      const drain = background.drain(5_000).then(() => void (drained = true));
      await jest.advanceTimersByTimeAsync(0);
      expect(drained).toBe(false); // the try in flight is waited for …
      finishInFlight();
      await jest.advanceTimersByTimeAsync(0);
      await drain;
      expect(inFlightDone).toBe(true);
      // … the retry windows are not: no further try of the failing work, now or later.
      expect(waiting.tries).toHaveLength(5);
      expect(failing.tries).toHaveLength(1);
      await jest.advanceTimersByTimeAsync(600_000);
      expect(waiting.tries).toHaveLength(5);
      expect(failing.tries).toHaveLength(1);

      // Work asked for during shutdown gets its one try, without retries.
      const late = flaky(Infinity);
      background.run('late', late.work);
      await jest.advanceTimersByTimeAsync(600_000);
      expect(late.tries).toHaveLength(1);
    });
  });
});

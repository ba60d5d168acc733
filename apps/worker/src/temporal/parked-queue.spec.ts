import { ParkedQueue } from './parked-queue';

describe('ParkedQueue (the parked queue worker, started on first need)', () => {
  it('should say no until a worker can be started, then start it once for plans asking together', async () => {
    const queue = new ParkedQueue();
    expect(await queue.serving()).toBe(false);
    let starts = 0;
    let release!: () => void;
    queue.serveWith(() => {
      starts += 1;
      return new Promise<void>((resolve) => (release = resolve));
    });
    const answers = Promise.all([queue.serving(), queue.serving()]);
    release();
    expect(await answers).toEqual([true, true]);
    expect(await queue.serving()).toBe(true);
    expect(starts).toBe(1);
  });

  it('should say no when the start fails, and try again on the next ask', async () => {
    const queue = new ParkedQueue();
    let fail = true;
    let starts = 0;
    queue.serveWith(async () => {
      starts += 1;
      if (fail) {
        throw new Error('shutting down');
      }
    });
    expect(await queue.serving()).toBe(false);
    fail = false;
    expect(await queue.serving()).toBe(true);
    expect(starts).toBe(2);
  });
});

import { eachLimited } from './each-limited';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('eachLimited', () => {
  it('should call every item once with at most `limit` in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const seen: number[] = [];
    await eachLimited([1, 2, 3, 4, 5, 6, 7], 3, async (item) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await tick();
      seen.push(item);
      inFlight--;
    });
    expect(seen.sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(most).toBe(3);
  });

  it('should start no new call after a failure, await those in flight, then throw the first failure', async () => {
    const started: number[] = [];
    const finished: number[] = [];
    const run = eachLimited([0, 1, 2, 3, 4, 5], 2, async (item) => {
      started.push(item);
      await tick();
      if (item === 0) {
        throw new Error('start refused');
      }
      await tick();
      finished.push(item);
    });
    await expect(run).rejects.toThrow('start refused');
    expect(started).toEqual([0, 1]);
    expect(finished).toEqual([1]);
  });

  it('should do nothing for no items', async () => {
    const fn = jest.fn();
    await eachLimited([], 4, fn);
    expect(fn).not.toHaveBeenCalled();
  });
});

import { BackgroundWork } from './background-work';

describe('BackgroundWork', () => {
  it('should run work without the caller waiting, and drain it', async () => {
    const background = new BackgroundWork();
    let release!: () => void;
    let done = false;
    background.run('slow', () => new Promise<void>((resolve) => (release = resolve)).then(() => void (done = true)));
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
});

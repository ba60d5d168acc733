import { BackgroundWork } from './background-work';

describe('BackgroundWork', () => {
  it('should run work without the caller waiting, and drain it', async () => {
    const background = new BackgroundWork();
    let release!: () => void;
    let done = false;
    background.run('slow', () => new Promise<void>((resolve) => (release = resolve)).then(() => void (done = true)));
    await new Promise((resolve) => setImmediate(resolve));
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
    let releaseFirst!: () => void;
    background.run(
      'create',
      () => new Promise<void>((resolve) => (releaseFirst = resolve)).then(() => void order.push('job_1 create')),
      'job_1',
    );
    background.run('delete', async () => void order.push('job_1 delete'), 'job_1');
    background.run('other', async () => void order.push('job_2 create'), 'job_2');
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['job_2 create']);
    releaseFirst();
    await background.drain(10_000);
    expect(order).toEqual(['job_2 create', 'job_1 create', 'job_1 delete']);
  });
});

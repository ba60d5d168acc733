import { parkAboveJobs } from './park-gate';

/** A gate over a job count and a clock the test sets, counting its reads. */
function gateOver(threshold: number, start: number) {
  const world = { count: start, now: 0, reads: 0 };
  const applies = parkAboveJobs({
    threshold,
    countJobs: async () => {
      world.reads += 1;
      return world.count;
    },
    now: () => world.now,
  });
  return { world, applies };
}

describe('parkAboveJobs (worker.park_above_jobs, issue 25)', () => {
  it('should park only while the deployment holds more jobs than the threshold, keeping a "park" for a minute', async () => {
    const { world, applies } = gateOver(1_000, 3);
    expect(await applies()).toBe(false);
    // 997 jobs below the threshold at the read: as many plans are answered without reading again.
    world.count = 1_001;
    world.now = 30_000;
    for (let plan = 0; plan < 996; plan += 1) {
      expect(await applies()).toBe(false);
    }
    expect(world.reads).toBe(1);
    // The next plan could be the 1,001st job's: read again.
    expect(await applies()).toBe(true);
    expect(world.reads).toBe(2);
    // A "park" is kept for a minute, however many plans ask.
    world.count = 3;
    world.now = 89_000;
    expect(await Promise.all([applies(), applies(), applies()])).toEqual([true, true, true]);
    expect(world.reads).toBe(2);
    world.now = 90_000;
    expect(await applies()).toBe(false);
    expect(world.reads).toBe(3);
  });

  it('should cache about the threshold of 10,000 jobs created in a minute, not all of them', async () => {
    // The 10,000 daily jobs, created at 165 a second (the API's rate in bench:load): each
    // job's first plan asks right after its create. A job told "do not park" stays in the cache
    // until its next wake, a day later.
    const { world, applies } = gateOver(1_000, 0);
    let cached = 0;
    for (let job = 0; job < 10_000; job += 1) {
      world.count += 1;
      world.now += 6;
      if (!(await applies())) {
        cached += 1;
      }
    }
    // The threshold, plus at most the jobs created within the second between two reads.
    expect(cached).toBeGreaterThanOrEqual(1_000);
    expect(cached).toBeLessThanOrEqual(1_000 + Math.ceil(1_000 / 6));
    // Once above, the answer is kept for a minute: few reads for 10,000 plans.
    expect(world.reads).toBeLessThan(10);
  });

  it('should read at most once a second at the threshold, however many plans ask', async () => {
    const { world, applies } = gateOver(1_000, 1_000);
    // A top-of-the-hour burst of 1,000 plans over 40 s, the deployment exactly at the threshold.
    for (let plan = 0; plan < 1_000; plan += 1) {
      expect(await applies()).toBe(false);
      world.now += 40;
    }
    expect(world.reads).toBeLessThanOrEqual(41);
    expect(world.reads).toBeGreaterThanOrEqual(39);
  });

  it('should share one read among plans asking at once, each spending headroom', async () => {
    let release!: (n: number) => void;
    let reads = 0;
    let now = 0;
    const applies = parkAboveJobs({
      threshold: 10,
      countJobs: () => {
        reads += 1;
        return new Promise<number>((resolve) => (release = resolve));
      },
      now: () => now,
    });
    const answers = Promise.all([applies(), applies(), applies()]);
    release(5);
    expect(await answers).toEqual([false, false, false]);
    expect(reads).toBe(1);
    // 5 below the threshold, 3 already answered: 2 more without a read, then read again.
    now = 5_000;
    expect(await applies()).toBe(false);
    expect(await applies()).toBe(false);
    expect(reads).toBe(1);
    const next = applies();
    release(11);
    expect(await next).toBe(true);
    expect(reads).toBe(2);
  });

  it('should keep the last answer when the count cannot be read, and say so', async () => {
    let fail = false;
    let now = 0;
    const warnings: string[] = [];
    const applies = parkAboveJobs({
      threshold: 10,
      countJobs: async () => {
        if (fail) {
          throw new Error('connection refused');
        }
        return 50;
      },
      now: () => now,
      warn: (m) => warnings.push(m),
    });
    expect(await applies()).toBe(true);
    fail = true;
    now = 61_000;
    expect(await applies()).toBe(true);
    expect(warnings).toEqual([expect.stringContaining('connection refused')]);
    // Nothing read yet and the read fails: do not park (parking only saves memory).
    const fresh = parkAboveJobs({ threshold: 10, countJobs: () => Promise.reject(new Error('down')), now: () => 0 });
    expect(await fresh()).toBe(false);
  });

  it('should park at any count with a threshold of 0, reading nothing', async () => {
    const applies = parkAboveJobs({
      threshold: 0,
      countJobs: () => Promise.reject(new Error('not read')),
      now: () => 0,
    });
    expect(await applies()).toBe(true);
  });
});

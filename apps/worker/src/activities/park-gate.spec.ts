import { parkAboveJobs } from './park-gate';

describe('parkAboveJobs (worker.park_above_jobs, issue 25)', () => {
  it('should park only while the deployment holds more jobs than the threshold, counting at most once a minute', async () => {
    let count = 1_000;
    let reads = 0;
    let now = 0;
    const applies = parkAboveJobs({
      threshold: 1_000,
      countJobs: async () => {
        reads += 1;
        return count;
      },
      now: () => now,
    });
    expect(await applies()).toBe(false);
    count = 1_001;
    now = 59_000;
    // A burst of plans within the minute: one read, the answer kept.
    expect(await Promise.all([applies(), applies(), applies()])).toEqual([false, false, false]);
    expect(reads).toBe(1);
    now = 60_000;
    expect(await applies()).toBe(true);
    expect(reads).toBe(2);
    count = 3;
    now = 120_000;
    expect(await applies()).toBe(false);
  });

  it('should share one read among plans asking at once', async () => {
    let release!: (n: number) => void;
    let reads = 0;
    const applies = parkAboveJobs({
      threshold: 10,
      countJobs: () => {
        reads += 1;
        return new Promise<number>((resolve) => (release = resolve));
      },
      now: () => 0,
    });
    const answers = Promise.all([applies(), applies()]);
    release(11);
    expect(await answers).toEqual([true, true]);
    expect(reads).toBe(1);
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

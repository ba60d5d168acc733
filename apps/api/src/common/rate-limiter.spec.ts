import { FixedWindowRateLimiter, SharedRateLimiter } from './rate-limiter';

function fakeClock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('FixedWindowRateLimiter', () => {
  describe('hit', () => {
    it('should allow `limit` requests per window and count down `remaining`', () => {
      const clock = fakeClock();
      const limiter = new FixedWindowRateLimiter({ limit: 3, windowMs: 60_000, now: clock.now });
      expect([1, 2, 3].map(() => limiter.hit('a'))).toEqual([
        { allowed: true, limit: 3, remaining: 2, resetMs: 60_000 },
        { allowed: true, limit: 3, remaining: 1, resetMs: 60_000 },
        { allowed: true, limit: 3, remaining: 0, resetMs: 60_000 },
      ]);
    });

    it('should reject past the limit until the window closes, without extending it', () => {
      const clock = fakeClock();
      const limiter = new FixedWindowRateLimiter({ limit: 2, windowMs: 60_000, now: clock.now });
      limiter.hit('a');
      clock.advance(10_000);
      limiter.hit('a');
      clock.advance(20_000);
      expect(limiter.hit('a')).toEqual({ allowed: false, limit: 2, remaining: 0, resetMs: 30_000 });
      clock.advance(29_999);
      expect(limiter.hit('a')).toMatchObject({ allowed: false, resetMs: 1 });
      clock.advance(1);
      expect(limiter.hit('a')).toEqual({ allowed: true, limit: 2, remaining: 1, resetMs: 60_000 });
    });

    it('should keep one bucket per key', () => {
      const clock = fakeClock();
      const limiter = new FixedWindowRateLimiter({ limit: 1, now: clock.now });
      expect(limiter.hit('10.0.0.1').allowed).toBe(true);
      expect(limiter.hit('10.0.0.1').allowed).toBe(false);
      expect(limiter.hit('10.0.0.2').allowed).toBe(true);
      expect(limiter.hit('::1').allowed).toBe(true);
    });

    it('should default to a one-minute window', () => {
      const limiter = new FixedWindowRateLimiter({ limit: 1, now: () => 0 });
      expect(limiter.windowMs).toBe(60_000);
      expect(limiter.hit('a').resetMs).toBe(60_000);
    });
  });

  describe('memory', () => {
    it('should sweep expired windows once a window has passed', () => {
      const clock = fakeClock();
      const limiter = new FixedWindowRateLimiter({ limit: 5, windowMs: 1_000, now: clock.now });
      for (let i = 0; i < 50; i++) {
        limiter.hit(`k${i}`);
      }
      expect(limiter.size).toBe(50);
      clock.advance(1_000);
      limiter.hit('fresh');
      expect(limiter.size).toBe(1);
    });

    it('should evict the oldest window when maxKeys live windows exist', () => {
      const clock = fakeClock();
      const limiter = new FixedWindowRateLimiter({ limit: 1, windowMs: 60_000, now: clock.now, maxKeys: 3 });
      for (const key of ['a', 'b', 'c']) {
        limiter.hit(key);
        clock.advance(1);
      }
      limiter.hit('d');
      expect(limiter.size).toBe(3);
      // 'a' was evicted (its budget starts over); 'b' is still limited
      expect(limiter.hit('b').allowed).toBe(false);
      expect(limiter.hit('a').allowed).toBe(true);
    });
  });

  describe('constructor', () => {
    it.each([0, -1, 1.5, Number.NaN])(
      'should refuse limit %p (0 means "off" and is handled by the caller)',
      (limit) => {
        expect(() => new FixedWindowRateLimiter({ limit })).toThrow(RangeError);
      },
    );
  });
});

describe('SharedRateLimiter', () => {
  function countingWindows() {
    const counts = new Map<string, number>();
    return {
      buckets: counts,
      async hit(bucket: string, windowMs: number) {
        counts.set(bucket, (counts.get(bucket) ?? 0) + 1);
        return { count: counts.get(bucket)!, resetMs: windowMs / 2 };
      },
    };
  }

  it('should allow up to the limit per namespaced bucket and report what is left', async () => {
    const windows = countingWindows();
    const limiter = new SharedRateLimiter(windows, 2, { namespace: 'api' });
    const decisions = [await limiter.hit('k'), await limiter.hit('k'), await limiter.hit('k')];
    expect(decisions.map((d) => [d.allowed, d.remaining])).toEqual([
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    expect(decisions[0]).toMatchObject({ limit: 2, resetMs: 30_000 });
    expect([...windows.buckets.keys()]).toEqual(['api:k']);
  });

  it('should allow the request and report the error when the database cannot count', async () => {
    const errors: unknown[] = [];
    const limiter = new SharedRateLimiter(
      {
        hit: async () => {
          throw new Error('connection refused');
        },
      },
      5,
      { namespace: 'api', onError: (err) => errors.push(err) },
    );
    expect(await limiter.hit('k')).toEqual({ allowed: true, limit: 5, remaining: 5, resetMs: 60_000 });
    expect(errors).toHaveLength(1);
  });

  it('should refuse a limit that is not a positive integer', () => {
    expect(() => new SharedRateLimiter(countingWindows(), 0, { namespace: 'api' })).toThrow(RangeError);
  });
});

import { computeRetryDelayMs, DEFAULT_RETRY_DELAY_POLICY, type RetryDelayPolicy } from './backoff';

const noJitter: RetryDelayPolicy = { ...DEFAULT_RETRY_DELAY_POLICY, jitter: 0 };
const mid = () => 0.5; // jitter factor 1

describe('computeRetryDelayMs (decisions: retry defaults)', () => {
  it('should grow exponentially: initial · multiplier^n, capped at max_interval', () => {
    const delays = [0, 1, 2, 3, 5, 6, 30].map((attemptIndex) =>
      computeRetryDelayMs({ attemptIndex, policy: noJitter, random: mid }),
    );
    expect(delays).toEqual([10_000, 20_000, 40_000, 80_000, 320_000, 600_000, 600_000]);
  });

  it('should grow linearly: initial · (n + 1)', () => {
    const policy: RetryDelayPolicy = { ...noJitter, backoff: 'linear' };
    expect([0, 1, 2].map((attemptIndex) => computeRetryDelayMs({ attemptIndex, policy, random: mid }))).toEqual([
      10_000, 20_000, 30_000,
    ]);
  });

  it('should stay fixed', () => {
    const policy: RetryDelayPolicy = { ...noJitter, backoff: 'fixed' };
    expect(computeRetryDelayMs({ attemptIndex: 7, policy, random: mid })).toBe(10_000);
  });

  it('should apply jitter both ways', () => {
    const policy = DEFAULT_RETRY_DELAY_POLICY; // jitter 0.2
    expect(computeRetryDelayMs({ attemptIndex: 0, policy, random: () => 0 })).toBe(8_000);
    expect(computeRetryDelayMs({ attemptIndex: 0, policy, random: () => 0.5 })).toBe(10_000);
    expect(computeRetryDelayMs({ attemptIndex: 0, policy, random: () => 0.999999 })).toBe(12_000);
  });

  it('should never exceed max_interval, even with jitter', () => {
    const policy = DEFAULT_RETRY_DELAY_POLICY;
    for (const r of [0, 0.3, 0.99]) {
      expect(computeRetryDelayMs({ attemptIndex: 20, policy, random: () => r })).toBeLessThanOrEqual(600_000);
    }
    expect(computeRetryDelayMs({ attemptIndex: 10_000, policy: noJitter, random: mid })).toBe(600_000);
  });

  it('should honour Retry-After but cap it at max_interval', () => {
    expect(computeRetryDelayMs({ attemptIndex: 0, policy: noJitter, retryAfterMs: 45_000, random: mid })).toBe(45_000);
    expect(computeRetryDelayMs({ attemptIndex: 0, policy: noJitter, retryAfterMs: 3_600_000, random: mid })).toBe(
      600_000,
    );
    // a shorter Retry-After does not shorten the backoff
    expect(computeRetryDelayMs({ attemptIndex: 2, policy: noJitter, retryAfterMs: 1_000, random: mid })).toBe(40_000);
    expect(computeRetryDelayMs({ attemptIndex: 0, policy: noJitter, retryAfterMs: null, random: mid })).toBe(10_000);
  });

  it('should reject a negative attempt index', () => {
    expect(() => computeRetryDelayMs({ attemptIndex: -1, policy: noJitter, random: mid })).toThrow(RangeError);
  });
});

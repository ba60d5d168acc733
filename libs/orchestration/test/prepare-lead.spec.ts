import { prepareLeadMs, spreadPosition, type PrepareLeadInput } from '../src/prepare-lead';

const input = (overrides: Partial<PrepareLeadInput> = {}): PrepareLeadInput => ({
  jobId: 'job_01JDX5Y0000000000000000000',
  burst: 1,
  baseMs: 1_000,
  ratePerS: 25,
  maxMs: 60_000,
  gapMs: 60_000,
  ...overrides,
});
const ids = (n: number) => Array.from({ length: n }, (_, i) => `job_01JDX5Y${String(i).padStart(19, '0')}`);

describe('prepareLeadMs', () => {
  it('should keep the base lead for a lone occurrence or with spreading off', () => {
    expect(prepareLeadMs(input({ burst: 1 }))).toBe(1_000);
    expect(prepareLeadMs(input({ burst: 500, ratePerS: 0 }))).toBe(1_000);
  });

  it('should spread a burst over burst / rate seconds before the base lead', () => {
    const leads = ids(1_000).map((jobId) => prepareLeadMs(input({ jobId, burst: 1_000 })));
    // 1 000 at 25 a second: 40 s of preparation, ending 1 s before the instant.
    expect(Math.min(...leads)).toBeGreaterThanOrEqual(1_000);
    expect(Math.max(...leads)).toBeLessThanOrEqual(41_000);
    // Evenly: each 10 s of the spread holds about a quarter of the burst.
    for (let from = 1_000; from < 41_000; from += 10_000) {
      const inSlice = leads.filter((lead) => lead >= from && lead < from + 10_000).length;
      expect(inSlice).toBeGreaterThan(200);
      expect(inSlice).toBeLessThan(300);
    }
  });

  it('should grow with the burst size for the same job', () => {
    const jobId = ids(1)[0]!;
    const small = prepareLeadMs(input({ jobId, burst: 100 }));
    const large = prepareLeadMs(input({ jobId, burst: 1_000 }));
    expect(large).toBeGreaterThan(small);
    expect(large - 1_000).toBeCloseTo((small - 1_000) * 10, -2);
  });

  it('should prepare 10,000 daily jobs due at one instant over 400 s at 25 a second, whatever their timeout', () => {
    const leads = ids(10_000).map((jobId) =>
      prepareLeadMs(input({ jobId, burst: 10_000, maxMs: 900_000, gapMs: 86_400_000 })),
    );
    expect(Math.max(...leads)).toBeGreaterThan(390_000);
    expect(Math.max(...leads)).toBeLessThanOrEqual(401_000);
    // The attempt's start-to-close covers the wait (run workflow), so no timeout caps the lead.
    const beyondOldCap = leads.filter((lead) => lead > 120_000).length;
    expect(beyondOldCap).toBeGreaterThan(6_500); // about 70% of a spread 400 s long
  });

  it('should prepare a burst still being counted as early as the maximum allows, gap or not', () => {
    const growing = (overrides: Partial<PrepareLeadInput>) =>
      prepareLeadMs(input({ burst: 40, maxMs: 600_000, gapMs: 300_000, burstMayGrow: true, ...overrides }));
    expect(growing({})).toBe(600_000);
    // A lone job is no burst; spreading off keeps the base lead too, and so does a burst the
    // base lead prepares in time (25 at 25 a second).
    expect(growing({ burst: 1 })).toBe(1_000);
    expect(growing({ burst: 25 })).toBeLessThanOrEqual(2_000);
    expect(growing({ ratePerS: 0 })).toBe(1_000);
    // Counted before: the spread again, bounded by the gap.
    expect(growing({ burstMayGrow: false })).toBeLessThanOrEqual(1_000 + 1_600);
  });

  it('should give a job the same place every time', () => {
    expect(spreadPosition('job_a')).toBe(spreadPosition('job_a'));
    expect(spreadPosition('job_a')).not.toBe(spreadPosition('job_b'));
    for (const jobId of ids(100)) {
      expect(spreadPosition(jobId)).toBeGreaterThanOrEqual(0);
      expect(spreadPosition(jobId)).toBeLessThan(1);
    }
  });

  it('should stay below the gap to the previous occurrence and the maximum', () => {
    const leads = (overrides: Partial<PrepareLeadInput>) =>
      ids(200).map((jobId) => prepareLeadMs(input({ jobId, burst: 5_000, ...overrides })));
    expect(Math.max(...leads({ gapMs: 10_000 }))).toBe(9_000);
    expect(Math.max(...leads({ maxMs: 20_000 }))).toBe(20_000);
    // Never below the base, even when a cap is below it.
    expect(Math.min(...leads({ gapMs: 500 }))).toBe(1_000);
  });
});

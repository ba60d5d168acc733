import { usageMonth } from './usage-month';

describe('usageMonth', () => {
  it('should name the UTC month and reset at the start of the next one', () => {
    expect(usageMonth(new Date('2026-03-15T12:00:00Z'))).toEqual({
      month: '2026-03',
      resetAt: new Date('2026-04-01T00:00:00Z'),
    });
  });

  it('should roll December over into January of the next year', () => {
    expect(usageMonth(new Date('2026-12-31T23:59:59.999Z'))).toEqual({
      month: '2026-12',
      resetAt: new Date('2027-01-01T00:00:00Z'),
    });
  });

  it('should use UTC, not the local time zone, at a month edge', () => {
    // 2026-02-01T00:30 in UTC is still January in America/New_York: UTC decides.
    expect(usageMonth(new Date('2026-02-01T00:30:00Z')).month).toBe('2026-02');
    expect(usageMonth(new Date('2026-01-31T23:59:59.999Z')).month).toBe('2026-01');
  });

  it('should handle leap years', () => {
    expect(usageMonth(new Date('2028-02-29T10:00:00Z')).resetAt.toISOString()).toBe('2028-03-01T00:00:00.000Z');
  });
});

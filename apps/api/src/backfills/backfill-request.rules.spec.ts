import { backfillOccurrenceProblems, backfillRangeProblems } from './backfill-request.rules';

describe('backfill request rules (issue 45)', () => {
  it('should want `to` after `from`', () => {
    const at = new Date('2026-11-01T00:00:00Z');
    expect(backfillRangeProblems(at, new Date('2026-11-01T01:00:00Z'))).toEqual({});
    expect(Object.keys(backfillRangeProblems(at, at))).toEqual(['to']);
    expect(Object.keys(backfillRangeProblems(new Date('2026-11-02T00:00:00Z'), at))).toEqual(['to']);
  });

  it('should name the cap and where the range passes it', () => {
    const fields = backfillOccurrenceProblems(
      { ok: false, reason: 'over_cap', firstBeyond: new Date('2027-02-10T16:00:00Z') },
      10_000,
    );
    expect(Object.keys(fields)).toEqual(['to']);
    expect(fields.to).toContain('10000');
    expect(fields.to).toContain('2027-02-10T16:00:00.000Z');
  });
});

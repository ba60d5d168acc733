import { formatBackfillAnswer } from './backfill';

describe('svc backfill (issue 45)', () => {
  it('should count a dry run’s occurrences and say nothing was written', () => {
    expect(
      formatBackfillAnswer({
        backfill_id: null,
        dry_run: true,
        occurrences: 24,
        first: '2026-11-27T00:00:00.000Z',
        last: '2026-11-27T23:00:00.000Z',
      }),
    ).toBe('24 occurrence(s) from 2026-11-27T00:00:00.000Z to 2026-11-27T23:00:00.000Z (dry run, nothing written)\n');
  });

  it('should name the accepted backfill and where to follow it', () => {
    expect(
      formatBackfillAnswer({ backfill_id: 'bf_01', dry_run: false, occurrences: 0, first: null, last: null }),
    ).toBe('backfill bf_01 accepted: 0 occurrence(s)\n  progress: GET /api/v1/backfills/bf_01\n');
  });
});

import { formatBulkAnswer } from './bulk';

describe('svc bulk (issue 46)', () => {
  it('should list a dry run’s jobs and say nothing changed', () => {
    expect(
      formatBulkAnswer({
        dry_run: true,
        action: 'pause',
        matched: 1,
        jobs: [{ id: 'job_01', name: 'nightly', state: 'active' }],
      }),
    ).toBe('pause would apply to 1 job(s) (dry run, nothing changed)\n  job_01  active     nightly\n');
  });

  it('should name the accepted operation and when its window ends', () => {
    expect(formatBulkAnswer({ id: 'op_01', action: 'pause', matched: 3, resume_at: '2026-12-01T06:00:00.000Z' })).toBe(
      'pause of 3 job(s) accepted as operation op_01, resumed at 2026-12-01T06:00:00.000Z\n' +
        '  progress: GET /api/v1/operations/op_01\n',
    );
  });
});

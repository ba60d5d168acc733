import { scheduleStartOf } from './job-snapshot-rules';

describe('scheduleStartOf (issue 48)', () => {
  const now = '2026-11-28T13:38:05.000Z';

  it('should start a change at its commit when the workflow hears of it later', () => {
    expect(scheduleStartOf('2026-11-28T13:37:06.000Z', now)).toBe('2026-11-28T13:37:06.000Z');
  });

  it('should never start later than now: a commit clock ahead of the workflow clock counts as now', () => {
    expect(scheduleStartOf('2026-11-28T13:38:07.000Z', now)).toBe(now);
    expect(scheduleStartOf(now, now)).toBe(now);
  });

  it('should start at now for a snapshot written before committedAt existed', () => {
    expect(scheduleStartOf(undefined, now)).toBe(now);
  });
});

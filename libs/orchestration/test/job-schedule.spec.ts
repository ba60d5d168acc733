import { compileSchedule } from '@svc/schedule';
import { compileJobSchedule, nextFireTimes, toScheduleSnapshot, type JobScheduleColumns } from '../src/job-schedule';

const ANCHOR = new Date('2026-01-01T00:00:00.000Z');

const row = (overrides: Partial<JobScheduleColumns> = {}): JobScheduleColumns => ({
  scheduleExpr: 'every 5 minutes',
  scheduleKind: 'natural',
  scheduleCanonical: 'FREQ=MINUTELY;INTERVAL=5',
  scheduleDescription: 'Every 5 minutes (UTC)',
  scheduleTimezone: 'UTC',
  scheduleStartsAt: null,
  scheduleEndsAt: null,
  scheduleCount: null,
  scheduleAnchor: ANCHOR,
  excludeCalendars: [],
  ...overrides,
});

describe('toScheduleSnapshot', () => {
  it('should give the workflow the row’s schedule as plain data with ISO instants', () => {
    const snapshot = toScheduleSnapshot(
      row({
        scheduleKind: 'quartz',
        scheduleExpr: '0 0 9 ? * MON-FRI',
        scheduleTimezone: 'Europe/Berlin',
        scheduleStartsAt: new Date('2026-02-01T00:00:00.000Z'),
        scheduleEndsAt: new Date('2026-03-01T00:00:00.000Z'),
        scheduleCount: 7,
      }),
    );
    expect(snapshot).toEqual({
      expr: '0 0 9 ? * MON-FRI',
      kind: 'quartz',
      timezone: 'Europe/Berlin',
      startsAt: '2026-02-01T00:00:00.000Z',
      endsAt: '2026-03-01T00:00:00.000Z',
      count: 7,
      anchor: '2026-01-01T00:00:00.000Z',
    });
    // Only the data the workflow decodes: the canonical form and description stay in the row.
    expect(Object.keys(snapshot)).toEqual(['expr', 'kind', 'timezone', 'startsAt', 'endsAt', 'count', 'anchor']);
  });
});

describe('compileJobSchedule', () => {
  it('should compile the stored kind with the anchor as the reference', () => {
    const compiled = compileJobSchedule(toScheduleSnapshot(row()));
    expect(compiled.ok && compiled.schedule.kind).toBe('natural');
    // Intervals are phased at the anchor: every 5 minutes from 00:00.
    const next = compiled.ok ? compiled.schedule.next(new Date('2026-01-01T00:07:00.000Z'), 2) : [];
    expect(next.map((d) => d.toISOString())).toEqual(['2026-01-01T00:10:00.000Z', '2026-01-01T00:15:00.000Z']);
  });

  it('should give the same schedule as a compile that detects the kind', () => {
    for (const expr of ['0 */5 * * * ?', '*/10 * * * *', 'every weekday at 9am', 'FREQ=HOURLY;INTERVAL=7']) {
      const detected = compileSchedule({ expr, kind: 'auto', timezone: 'UTC', reference: ANCHOR });
      expect(detected.ok).toBe(true);
      const stored = detected.ok ? row({ scheduleExpr: expr, scheduleKind: detected.schedule.kind }) : row();
      const compiled = compileJobSchedule(toScheduleSnapshot(stored));
      const after = new Date('2026-01-05T12:34:56.000Z');
      expect(compiled.ok && compiled.schedule.next(after, 5)).toEqual(detected.ok && detected.schedule.next(after, 5));
    }
  });
});

describe('nextFireTimes', () => {
  const after = new Date('2026-01-01T00:07:00.000Z');

  it('should compile the row when no compiled schedule is given', () => {
    expect(nextFireTimes(row(), after, 3).map((d) => d.toISOString())).toEqual([
      '2026-01-01T00:10:00.000Z',
      '2026-01-01T00:15:00.000Z',
      '2026-01-01T00:20:00.000Z',
    ]);
  });

  it('should read from the compiled schedule it is given instead of compiling the row again', () => {
    const compiled = compileSchedule({ expr: 'every hour', reference: ANCHOR });
    expect(compiled.ok).toBe(true);
    const given = compiled.ok ? compiled.schedule : undefined;
    expect(nextFireTimes(row(), after, 1, given).map((d) => d.toISOString())).toEqual(['2026-01-01T01:00:00.000Z']);
  });

  it('should give none when the stored schedule no longer compiles or has ended', () => {
    expect(nextFireTimes(row({ scheduleTimezone: 'Mars/Olympus_Mons' }), after, 1)).toEqual([]);
    expect(nextFireTimes(row({ scheduleCount: 1 }), after, 1)).toEqual([]);
  });
});

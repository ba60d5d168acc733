import { compileSchedule } from '@svc/schedule';
import {
  BACKFILL_DEFAULT_MAX_RUNS,
  BACKFILL_MAX_RUNS,
  backfillConcurrency,
  backfillOccurrences,
  backfillSummary,
  decideOccurrence,
} from './backfill-plan';

function compiled(expr: string, timezone: string, reference = new Date('2026-01-01T00:00:00Z')) {
  const result = compileSchedule({ expr, timezone, reference });
  if (!result.ok) {
    throw new Error(JSON.stringify(result));
  }
  return result.schedule;
}

const iso = (dates: Date[]) => dates.map((d) => d.toISOString());
const now = new Date('2026-11-28T12:00:00Z');

/** The backfill occurrences of `expr` in `timezone` over [from, to) at `now`, at most `cap`, less `skipped`. */
function occurrences(
  expr: string,
  timezone: string,
  range: { from: string; to: string },
  cap: number,
  skipped?: Set<string>,
) {
  return backfillOccurrences(
    compiled(expr, timezone),
    { from: new Date(range.from), to: new Date(range.to), now },
    cap,
    skipped,
  );
}

describe('backfillOccurrences (issue 45)', () => {
  it('should list the occurrences of [from, to) in the job’s time zone, oldest first', () => {
    const found = occurrences(
      '0 9 * * *',
      'Europe/Berlin',
      { from: '2026-03-28T00:00:00Z', to: '2026-03-31T00:00:00Z' },
      100,
    );
    // 09:00 in Berlin: UTC+1 before the DST change of 29 March, UTC+2 after.
    expect(found).toEqual({
      ok: true,
      instants: [new Date('2026-03-28T08:00:00Z'), new Date('2026-03-29T07:00:00Z'), new Date('2026-03-30T07:00:00Z')],
    });
  });

  it('should include `from` and exclude `to`', () => {
    const found = occurrences('0 * * * *', 'UTC', { from: '2026-11-01T00:00:00Z', to: '2026-11-02T00:00:00Z' }, 100);
    expect(found.ok && found.instants.length).toBe(24);
    expect(found.ok && iso([found.instants[0], found.instants[23]])).toEqual([
      '2026-11-01T00:00:00.000Z',
      '2026-11-01T23:00:00.000Z',
    ]);
  });

  it('should leave out what is after now (the schedule’s) and what a user skipped', () => {
    const found = occurrences(
      '0 * * * *',
      'UTC',
      { from: '2026-11-28T08:00:00Z', to: '2026-11-29T00:00:00Z' },
      100,
      new Set(['2026-11-28T10:00:00.000Z']),
    );
    expect(found.ok && iso(found.instants)).toEqual([
      '2026-11-28T08:00:00.000Z',
      '2026-11-28T09:00:00.000Z',
      '2026-11-28T11:00:00.000Z',
      '2026-11-28T12:00:00.000Z',
    ]);
  });

  it('should honour EXDATE', () => {
    const found = occurrences(
      'DTSTART:20260101T090000Z\nRRULE:FREQ=DAILY\nEXDATE:20261102T090000Z',
      'UTC',
      { from: '2026-11-01T00:00:00Z', to: '2026-11-04T00:00:00Z' },
      100,
    );
    expect(found.ok && iso(found.instants)).toEqual(['2026-11-01T09:00:00.000Z', '2026-11-03T09:00:00.000Z']);
  });

  it('should stop at the cap and name the first occurrence past it', () => {
    const found = occurrences('*/10 * * * *', 'UTC', { from: '2026-11-01T00:00:00Z', to: '2026-11-02T00:00:00Z' }, 5);
    expect(found).toEqual({ ok: false, reason: 'over_cap', firstBeyond: new Date('2026-11-01T00:50:00Z') });
    // Exactly the cap is fine.
    const exactly = occurrences('*/10 * * * *', 'UTC', { from: '2026-11-01T00:00:00Z', to: '2026-11-01T00:50:00Z' }, 5);
    expect(exactly.ok && exactly.instants.length).toBe(5);
  });

  it('should walk ranges longer than one chunk of fire times', () => {
    const found = occurrences('* * * * *', 'UTC', { from: '2026-11-01T00:00:00Z', to: '2026-11-02T00:00:00Z' }, 10_000);
    expect(found.ok && found.instants.length).toBe(1440);
  });
});

describe('decideOccurrence (issue 45)', () => {
  it('should open the occurrence’s own run when no run holds it', () => {
    expect(decideOccurrence([], true)).toEqual({ kind: 'open' });
  });

  it('should join a run in flight rather than run the occurrence twice', () => {
    expect(
      decideOccurrence(
        [
          { id: 'run_b', status: 'deferred' },
          { id: 'run_a', status: 'succeeded' },
        ],
        true,
      ),
    ).toEqual({ kind: 'join', runId: 'run_b' });
  });

  it('should skip an occurrence that succeeded unless asked not to, and re-run the newest run otherwise', () => {
    const runs = [
      { id: 'run_b', status: 'failed' },
      { id: 'run_a', status: 'succeeded' },
    ];
    expect(decideOccurrence(runs, true)).toEqual({ kind: 'skip_succeeded', runId: 'run_a' });
    expect(decideOccurrence(runs, false)).toEqual({ kind: 'rerun', of: 'run_b' });
    expect(decideOccurrence([{ id: 'run_c', status: 'skipped' }], true)).toEqual({ kind: 'rerun', of: 'run_c' });
  });
});

describe('backfillConcurrency and backfillSummary (issue 45)', () => {
  it('should run one at a time in sequential mode and max_runs (bounded) in parallel', () => {
    expect(backfillConcurrency('sequential', 10)).toBe(1);
    expect(backfillConcurrency('parallel', undefined)).toBe(BACKFILL_DEFAULT_MAX_RUNS);
    expect(backfillConcurrency('parallel', 3)).toBe(3);
    expect(backfillConcurrency('parallel', 1_000)).toBe(BACKFILL_MAX_RUNS);
  });

  it('should say what the backfill covers for the Web UI', () => {
    expect(
      backfillSummary({
        jobName: 'nightly export',
        occurrences: 24,
        firstAt: new Date('2026-11-01T00:00:00Z'),
        lastAt: new Date('2026-11-01T23:00:00Z'),
        mode: 'parallel',
        maxRuns: 4,
      }),
    ).toBe(
      'backfill nightly export · 24 occurrences · 2026-11-01T00:00:00.000Z → 2026-11-01T23:00:00.000Z · parallel ×4',
    );
  });
});

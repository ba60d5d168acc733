/**
 * `cron` kind: classic 5-field Unix cron with Vixie cron's day rule (issue #3).
 */
import { compileSchedule } from '@svc/schedule';
import { errorsOf, fires, firesCases, REF } from './helpers';

describe('cron: detection and canonical form', () => {
  it('auto-detects 5 fields and macros as cron; canonical is unchanged', () => {
    for (const expr of ['*/5 * * * *', '@daily', '0 9 * * MON-FRI']) {
      const r = compileSchedule({ expr, reference: REF });
      expect(r.ok && r.kindDetected).toBe('cron');
      if (r.ok) {
        expect(r.schedule.canonical).toBe(expr);
      }
    }
  });
  it('describes in English', () => {
    const r = compileSchedule({ expr: '0 9 * * 1-5', timezone: 'Europe/Berlin', reference: REF });
    expect(r.ok && r.schedule.description).toBe('At 09:00 every weekday (Europe/Berlin)');
  });
});

describe('cron: fields, names, ranges, lists, steps', () => {
  it('steps and ranges', () => {
    expect(fires('10-30/10 9 * * *', '2026-01-01T00:00:00Z', 3)).toEqual([
      '2026-01-01T09:10:00Z',
      '2026-01-01T09:20:00Z',
      '2026-01-01T09:30:00Z',
    ]);
  });
  it('names are case-insensitive', () => {
    expect(fires('0 0 1 jan,Jul *', '2026-01-02T00:00:00Z', 1)).toEqual(['2026-07-01T00:00:00Z']);
    expect(fires('0 0 * * sun', '2026-01-01T00:00:00Z', 1)).toEqual(['2026-01-04T00:00:00Z']);
  });
  it('day-of-week 7 and 0 are both Sunday', () => {
    expect(fires('0 0 * * 7', '2026-01-01T00:00:00Z', 1)).toEqual(fires('0 0 * * 0', '2026-01-01T00:00:00Z', 1));
  });
  it('a/s means a-max/s', () => {
    expect(fires('5/20 0 * * *', '2026-01-01T00:00:00Z', 3)).toEqual([
      '2026-01-01T00:05:00Z',
      '2026-01-01T00:25:00Z',
      '2026-01-01T00:45:00Z',
    ]);
  });
  it.each([
    ['@hourly', ['2026-01-01T01:00:00Z']],
    ['@daily', ['2026-01-02T00:00:00Z']],
    ['@weekly', ['2026-01-04T00:00:00Z']],
    ['@monthly', ['2026-02-01T00:00:00Z']],
    ['@yearly', ['2027-01-01T00:00:00Z']],
  ])('macro %s', (expr, expected) => {
    expect(fires(expr, '2026-01-01T00:00:00Z', 1)).toEqual(expected);
  });
});

describe("cron: Vixie's day-of-month / day-of-week rule", () => {
  firesCases([
    [
      'both restricted: OR (the 13th OR a Friday)',
      '0 0 13 * 5',
      '2026-03-01T00:00:00Z',
      ['2026-03-06T00:00:00Z', '2026-03-13T00:00:00Z', '2026-03-20T00:00:00Z'],
    ],
    [
      'a field starting with * makes it AND (Vixie DOM_STAR): odd days that are Mondays',
      '0 0 */2 * 1',
      '2026-03-01T00:00:00Z',
      ['2026-03-09T00:00:00Z', '2026-03-23T00:00:00Z'],
    ],
  ]);
});

describe('cron: month ends, leap days, year rollover', () => {
  firesCases([
    ['31st skips short months', '0 0 31 * *', '2026-01-31T00:00:00Z', ['2026-03-31T00:00:00Z', '2026-05-31T00:00:00Z']],
    [
      '29 February only in leap years',
      '0 0 29 2 *',
      '2026-01-01T00:00:00Z',
      ['2028-02-29T00:00:00Z', '2032-02-29T00:00:00Z'],
    ],
    ['rolls over the year', '59 23 31 12 *', '2026-12-31T23:58:00Z', ['2026-12-31T23:59:00Z', '2027-12-31T23:59:00Z']],
  ]);
});

describe('cron: rejections', () => {
  it.each([
    ['60 * * * *', 'out_of_range'],
    ['* 24 * * *', 'out_of_range'],
    ['* * 0 * *', 'out_of_range'],
    ['* * * 13 *', 'out_of_range'],
    ['* * * * 8', 'out_of_range'],
    ['*/0 * * * *', 'out_of_range'],
    ['5-1 * * * *', 'out_of_range'],
    ['0 0 L * *', 'unsupported'],
    ['0 0 ? * *', 'syntax'],
    ['0 0 * * MONDAY', 'unknown_word'],
    ['1x * * * *', 'syntax'],
    ['@reboot', 'unsupported'],
    ['@dayly', 'unknown_word'],
  ])('%s → %s', (expr, kind) => {
    expect(errorsOf(expr, { kind: 'cron' })[0].kind).toBe(kind);
  });
  it('@dayly suggests @daily', () => {
    expect(errorsOf('@dayly', { kind: 'cron' })[0].suggestion).toBe('@daily');
  });
  it('six fields forced to cron suggest dropping seconds / using quartz', () => {
    const [e] = errorsOf('0 0 12 * * *', { kind: 'cron' });
    expect(e.kind).toBe('field_count');
    expect(e.suggestion).toBe('0 12 * * *');
  });
});

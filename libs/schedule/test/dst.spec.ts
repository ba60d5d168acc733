/**
 * Time zones and DST (issue #3; style.md rule 14: a DST suite walks a year in New York, Berlin and
 * Sydney). Quartz follows Quartz (gap: skipped that day; repeated hour: second instance only);
 * cron follows RFC 5545 (gap: shifted forward by the gap; repeated hour: first instance only).
 */
import {
  classifyWall,
  compileSchedule,
  ScheduleValidationCache,
  UNLIMITED_BUDGET,
  wallToInstant,
  zoneOffsets,
} from '@svc/schedule';
import { wallFromFields } from '../src/civil';
import { fires, firesCases } from './helpers';

const local = (iso: string, tz: string): string => {
  const p = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone: tz,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(new Date(iso))
      .map((x) => [x.type, x.value]),
  );
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}`;
};
const yearOf = (expr: string, tz: string, kind: 'quartz' | 'cron'): string[] => {
  const r = compileSchedule({ expr, kind, timezone: tz, reference: new Date('2026-01-01T00:00:00Z') });
  if (!r.ok) {
    throw new Error(JSON.stringify(r.errors));
  }
  return r.schedule
    .next(new Date('2025-12-30T00:00:00Z'), 400, UNLIMITED_BUDGET)
    .map((d) => d.toISOString())
    .filter((iso) => local(iso, tz).startsWith('2026-'));
};

describe('tz: wall time resolution', () => {
  const cases: Array<[string, number[], 'gap' | 'overlap']> = [
    ['America/New_York', [2026, 3, 8, 2, 30], 'gap'],
    ['America/New_York', [2026, 11, 1, 1, 30], 'overlap'],
    ['Europe/London', [2026, 3, 29, 1, 30], 'gap'],
    ['Europe/London', [2026, 10, 25, 1, 30], 'overlap'],
    ['Australia/Sydney', [2026, 10, 4, 2, 30], 'gap'],
    ['Australia/Sydney', [2026, 4, 5, 2, 30], 'overlap'],
    ['Pacific/Chatham', [2026, 9, 27, 3, 0], 'gap'],
    ['Pacific/Chatham', [2026, 4, 5, 3, 0], 'overlap'],
  ];
  it.each(cases)('%s %j is a %s', (tz, f, kind) => {
    const z = zoneOffsets(tz);
    const wall = wallFromFields(f[0], f[1], f[2], f[3], f[4]);
    expect(classifyWall(z, wall).kind).toBe(kind);
    if (kind === 'gap') {
      expect(wallToInstant(z, wall, 'quartz')).toBeNull();
      const shifted = wallToInstant(z, wall, 'rfc5545') as number;
      // shifted forward by the gap length (1 h everywhere here)
      expect(local(new Date(shifted).toISOString(), tz)).toBe(
        `${f[0]}-${String(f[1]).padStart(2, '0')}-${String(f[2]).padStart(2, '0')} ${String(f[3] + 1).padStart(2, '0')}:${String(f[4]).padStart(2, '0')}`,
      );
    } else {
      const first = wallToInstant(z, wall, 'rfc5545') as number;
      const second = wallToInstant(z, wall, 'quartz') as number;
      expect(second - first).toBe(3_600_000);
    }
  });
  it('Asia/Kolkata (no DST, +05:30) never has gaps or overlaps', () => {
    const z = zoneOffsets('Asia/Kolkata');
    for (let d = 0; d < 365; d++) {
      expect(classifyWall(z, wallFromFields(2026, 1, 1 + d, 2, 30)).kind).toBe('unique');
    }
  });
});

describe('dst: walking a year, daily at 02:30', () => {
  it.each(['America/New_York', 'Europe/Berlin', 'Australia/Sydney', 'Europe/London', 'Pacific/Chatham'])(
    '%s: quartz skips the missing 02:30 (if any) and fires 02:30 local on every other day',
    (tz) => {
      const q = yearOf('0 30 2 * * ?', tz, 'quartz');
      const locals = q.map((x) => local(x, tz));
      expect(locals.every((l) => l.endsWith('02:30'))).toBe(true);
      // Chatham's gap is 02:45-03:45, so 02:30 exists every day there; London's gap is 01:00-02:00
      const expectedDays = tz === 'Pacific/Chatham' || tz === 'Europe/London' ? 365 : 364;
      expect(new Set(locals.map((l) => l.slice(0, 10))).size).toBe(expectedDays);
      expect(q.length).toBe(expectedDays);
    },
  );
  it.each(['America/New_York', 'Europe/Berlin', 'Australia/Sydney'])(
    '%s: cron fires every day, the missing 02:30 shifted to 03:30',
    (tz) => {
      const c = yearOf('30 2 * * *', tz, 'cron');
      expect(c.length).toBe(365);
      const locals = c.map((x) => local(x, tz));
      expect(locals.filter((l) => l.endsWith('03:30')).length).toBe(1);
      expect(locals.filter((l) => l.endsWith('02:30')).length).toBe(364);
    },
  );
  it('Asia/Tokyo: 365 fires at 02:30 local with both kinds', () => {
    expect(yearOf('0 30 2 * * ?', 'Asia/Tokyo', 'quartz').length).toBe(365);
    expect(yearOf('30 2 * * *', 'Asia/Tokyo', 'cron').length).toBe(365);
  });
});

describe('dst: repeated hour', () => {
  firesCases([
    [
      'America/New_York quartz 0 30 1 * * ? fires only the second (EST) 01:30 on 2026-11-01',
      '0 30 1 * * ?',
      '2026-10-31T12:00:00Z',
      ['2026-11-01T06:30:00Z', '2026-11-02T06:30:00Z'],
      'America/New_York',
    ],
    [
      'America/New_York cron 30 1 * * * fires only the first (EDT) 01:30',
      '30 1 * * *',
      '2026-10-31T12:00:00Z',
      ['2026-11-01T05:30:00Z', '2026-11-02T06:30:00Z'],
      'America/New_York',
    ],
    [
      'Quartz every 20 minutes in the repeated hour: only standard-time instances',
      '0 */20 1 * * ?',
      '2026-11-01T04:00:00Z',
      ['2026-11-01T06:00:00Z', '2026-11-01T06:20:00Z', '2026-11-01T06:40:00Z'],
      'America/New_York',
    ],
  ]);
  it('Quartz with after inside the first (EDT) 01:xx continues from the next wall time in EST, cached or not', () => {
    // after = 01:20:00 EDT (05:20Z): Quartz reads 01:20:01, resolves it as 01:20:01 EST (06:20:01Z)
    // and goes on from there, so 01:00 and 01:10 EST (06:00Z, 06:10Z) are not next.
    const expected = ['2026-11-01T06:30:00Z', '2026-11-01T06:40:00Z'];
    expect(fires('0 */10 * * * ?', '2026-11-01T05:20:00Z', 2, 'America/New_York')).toEqual(expected);
    const cache = new ScheduleValidationCache();
    const preview = (after: string): string[] => {
      const input = { expr: '0 */10 * * * ?', timezone: 'America/New_York', reference: new Date(after) };
      const sample = cache.validate(input, { sampleCount: 2 }).sample ?? [];
      return sample.slice(0, 2).map((ms) => new Date(ms).toISOString().replace('.000Z', 'Z'));
    };
    // the first two previews fill a window of fire times from 04:00Z on (01:00-01:50 EDT never fire)
    preview('2026-11-01T04:00:00Z');
    expect(preview('2026-11-01T04:00:00Z')).toEqual(['2026-11-01T04:10:00Z', '2026-11-01T04:20:00Z']);
    expect(preview('2026-11-01T05:20:00Z')).toEqual(expected);
    expect(preview('2026-11-01T06:05:00Z')).toEqual(['2026-11-01T06:10:00Z', '2026-11-01T06:20:00Z']);
  });
  it('Australia/Sydney quartz 0 30 2 * * ? on 2026-04-05 fires at the second (AEST) 02:30', () => {
    expect(fires('0 30 2 * * ?', '2026-04-04T00:00:00Z', 1, 'Australia/Sydney')).toEqual(['2026-04-04T16:30:00Z']);
  });
});

describe('dst: Pacific/Chatham (+12:45/+13:45, gap 02:45-03:45)', () => {
  it('quartz 0 0 3 * * ? is skipped on the spring-forward day (03:00 does not exist)', () => {
    const q = fires('0 0 3 * * ?', '2026-09-25T00:00:00Z', 3, 'Pacific/Chatham').map((x) =>
      local(x, 'Pacific/Chatham'),
    );
    expect(q).toEqual(['2026-09-26 03:00', '2026-09-28 03:00', '2026-09-29 03:00']);
  });
  it('quartz 0 50 3 * * ?: Quartz also skips 03:50 that day although it exists (Quartz 2.5 quirk, reproduced)', () => {
    const q = fires('0 50 3 * * ?', '2026-09-25T00:00:00Z', 3, 'Pacific/Chatham').map((x) =>
      local(x, 'Pacific/Chatham'),
    );
    expect(q).toEqual(['2026-09-26 03:50', '2026-09-28 03:50', '2026-09-29 03:50']);
  });
  it('cron 0 3 * * * shifts to 04:00 (+1 h, the gap length)', () => {
    const c = fires('0 3 * * *', '2026-09-25T00:00:00Z', 3, 'Pacific/Chatham').map((x) => local(x, 'Pacific/Chatham'));
    expect(c).toEqual(['2026-09-26 03:00', '2026-09-27 04:00', '2026-09-28 03:00']);
  });
  it('cron every 15 minutes across the gap has no duplicates and no backwards steps', () => {
    const c = fires('*/15 * * * *', '2026-09-26T13:30:00Z', 8, 'Pacific/Chatham');
    for (let i = 1; i < c.length; i++) {
      expect(c[i] > c[i - 1]).toBe(true);
    }
  });
});

describe('dst: month ends, leap days and year rollovers in a DST zone', () => {
  it('quartz L at 02:30 in Sydney across the year boundary', () => {
    expect(
      fires('0 30 2 L * ?', '2026-11-15T00:00:00Z', 3, 'Australia/Sydney').map((x) => local(x, 'Australia/Sydney')),
    ).toEqual(['2026-11-30 02:30', '2026-12-31 02:30', '2027-01-31 02:30']);
  });
  firesCases([
    [
      'leap day in New York',
      '0 0 0 29 2 ?',
      '2026-01-01T00:00:00Z',
      ['2028-02-29T05:00:00Z', '2032-02-29T05:00:00Z'],
      'America/New_York',
    ],
    [
      'cron New Year midnight in Berlin',
      '0 0 1 1 *',
      '2026-06-01T00:00:00Z',
      ['2026-12-31T23:00:00Z', '2027-12-31T23:00:00Z'],
      'Europe/Berlin',
    ],
  ]);
});

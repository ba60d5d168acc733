/**
 * Descriptions without holes (issue #24): over generated schedules of every kind (natural, Quartz,
 * 5-field cron, RRULE), with input bounds and time zones, every accepted schedule's description
 * is a sentence with no empty slot (`on  at`, `on at`, a preposition before punctuation), no
 * double space and no placeholder (`undefined`, `NaN`, `null`, `[object`), and ends with its zone.
 */
import fc from 'fast-check';
import { compileSchedule, type ScheduleInput } from '@svc/schedule';

const REF = new Date('2026-11-30T10:17:23.456Z');
const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Pacific/Chatham', 'Asia/Kolkata', 'Australia/Lord_Howe'];

const PLACEHOLDER = /\b(undefined|NaN|null|Infinity)\b|\[object|\$\{/;
/** A preposition or joiner with nothing after it: `on  at`, `on at`, `at (`, `and ,`, `of )`. */
const EMPTY_SLOT =
  /\b(on|at|in|of|from|between|every|the|until|starting)\s*(?=$|[,()]|\s(on|at|in|of|from|between|until|starting)\b)|\b(and)\s*(?=$|[,()])/i;

export function descriptionHoles(description: string, zone: string): string[] {
  const out: string[] = [];
  if (!description.endsWith(` (${zone})`)) {
    out.push('does not end with the zone');
  }
  const text = description.slice(0, description.length - zone.length - 3);
  if (/\s{2,}/.test(description) || description !== description.trim()) {
    out.push('double or stray space');
  }
  if (PLACEHOLDER.test(description)) {
    out.push('placeholder');
  }
  const slot = EMPTY_SLOT.exec(text);
  if (slot) {
    out.push(`empty slot after "${slot[1] ?? slot[3]}" at ${slot.index}`);
  }
  if (!/^[A-Z]/.test(text)) {
    out.push('does not start with a capital letter');
  }
  if (/\s[,.)]|\(\s|,,/.test(text)) {
    out.push('space before punctuation');
  }
  return out;
}

const pick = <T>(xs: readonly T[]): fc.Arbitrary<T> => fc.constantFrom(...xs);
const join = (parts: string[]): string => parts.filter((p) => p !== '').join(' ');

const UNITS = ['second', 'minute', 'hour', 'day', 'week', 'month', 'year'];
const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const interval = fc.oneof(
  fc.tuple(fc.integer({ min: 1, max: 2000 }), pick(UNITS)).map(([n, u]) => `every ${n} ${u}${n === 1 ? '' : 's'}`),
  pick(['hourly', 'daily', 'weekly', 'monthly', 'yearly', 'fortnightly', 'quarterly', 'every other day']),
  fc.tuple(fc.integer({ min: 1, max: 500 }), pick(['minutes', 'hours', 'days'])).map(([n, u]) => `rate(${n} ${u})`),
);
const time = fc
  .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
  .map(([h, m]) => `${h}:${String(m).padStart(2, '0')}`);
const days = fc.oneof(
  pick(['on weekdays', 'on weekends', 'every weekday', 'on mon-fri', 'except weekends', 'except sundays']),
  fc.subarray(DAYS, { minLength: 1, maxLength: 3 }).map((d) => `on ${d.join(' and ')}`),
  fc.subarray(DAYS, { minLength: 1, maxLength: 2 }).map((d) => `except ${d.join(' and ')}`),
);
const monthDays = pick([
  'on the 1st',
  'on the 15th and last day',
  'on the last day of the month',
  'on the first monday of the month',
  'on the last friday',
  'the last weekday of every month',
  'every year on march 15',
  'on the 31st',
  'in march and april',
]);
const bounds = pick(['', 'starting 2027-01-04', 'until 2028-06-30', '5 times', 'starting tomorrow', '']);
const naturalExpr = fc.oneof(
  fc
    .tuple(interval, fc.option(days, { nil: '' }), fc.option(time, { nil: undefined }), bounds)
    .map(([i, d, t, b]) => join([i, d, t === undefined ? '' : `at ${t}`, b])),
  fc
    .tuple(
      fc.integer({ min: 1, max: 300 }),
      pick(['seconds', 'minutes', 'hours']),
      time,
      time,
      fc.option(days, { nil: '' }),
    )
    .map(([n, u, a, b, d]) => join([`every ${n} ${u} between ${a} and ${b}`, d])),
  fc
    .tuple(fc.integer({ min: 1, max: 30 }), pick(['minutes', 'hours', 'seconds']), time, fc.option(days, { nil: '' }))
    .map(([n, u, t, d]) => join([`every ${n} ${u} starting at ${t}`, d])),
  fc
    .tuple(pick(['twice a day', 'three times a day', '4 times a day', 'once a day']), fc.option(days, { nil: '' }))
    .map(([p, d]) => join([p, d])),
  fc
    .tuple(monthDays, fc.option(time, { nil: undefined }), fc.option(interval, { nil: '' }), bounds)
    .map(([m, t, i, b]) => join([i, m, t === undefined ? '' : `at ${t}`, b])),
  fc
    .tuple(fc.subarray(DAYS, { minLength: 1, maxLength: 4 }), fc.array(time, { minLength: 1, maxLength: 3 }))
    .map(([d, ts]) => `every ${d.join(', ')} at ${ts.join(' and ')}`),
  pick(['in 20 minutes', 'tomorrow at 9am', 'next friday at 9am', 'at 2027-03-01 09:00']),
  fc
    .tuple(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 59 }), fc.option(days, { nil: '' }))
    .map(([h, m, d]) => join([`every ${h}h${m}m`, d])),
  fc
    .tuple(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 0, max: 59 }), fc.option(days, { nil: '' }))
    .map(([h, m, d]) => join([`every ${h} hours at ${m} minutes past`, d])),
  fc
    .tuple(fc.integer({ min: 1, max: 12 }), fc.option(days, { nil: '' }))
    .map(([h, d]) => join([`every ${h} hours synchronized`, d])),
  pick([
    'the last business day of the month at 5pm',
    'every business day at 8:30',
    'the first business day of every month',
  ]),
);

/** A field of one of `values` or a step of 1 to `maxStep`. */
const stepField =
  (maxStep: number) =>
  (values: string[]): fc.Arbitrary<string> =>
    fc.oneof(
      pick(values),
      fc.integer({ min: 1, max: maxStep }).map((s) => `*/${s}`),
    );
const quartzField = stepField(70);
const quartzExpr = fc
  .tuple(
    quartzField(['0', '30', '*', '0,30', '10-20']),
    quartzField(['0', '15', '*', '0-30/10', '5/15']),
    quartzField(['0', '12', '*', '9-17', '22-2']),
    fc.constantFrom(
      ['1', '?'],
      ['L', '?'],
      ['15W', '?'],
      ['?', 'MON-FRI'],
      ['?', '6#3'],
      ['?', '5L'],
      ['*/31', '?'],
      ['?', '*/7'],
    ),
    quartzField(['*', '1', 'JAN-MAR', '*/12', '2/12']),
    fc.option(pick(['2027', '2026-2030', '*/5', '2027/100']), { nil: undefined }),
  )
  .map(([s, m, h, [dom, dow], mon, y]) => [s, m, h, dom, mon, dow, ...(y ? [y] : [])].join(' '));
const cronField = stepField(100);
const cronExpr = fc
  .tuple(
    cronField(['0', '*/15', '5', '0,30']),
    cronField(['*', '9', '9-17', '22-2']),
    cronField(['*', '1', '13', '1-7']),
    cronField(['*', '1', 'jan-mar']),
    cronField(['*', '1-5', '0', '7', 'FRI']),
  )
  .map((f) => f.join(' '));
const rruleExpr = fc
  .tuple(
    pick(['SECONDLY', 'MINUTELY', 'HOURLY', 'DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY']),
    fc.integer({ min: 1, max: 100 }),
    fc.option(pick(['BYDAY=MO,FR', 'BYDAY=1MO', 'BYDAY=-1FR', 'BYMONTHDAY=1,-1', 'BYMONTH=3']), { nil: '' }),
    fc.option(pick(['BYHOUR=9;BYMINUTE=0;BYSECOND=0', 'BYHOUR=9,17', 'BYMINUTE=0,30']), { nil: '' }),
    fc.option(pick(['COUNT=5', 'UNTIL=20280101T000000', 'DTSTART=20270101T090000']), { nil: '' }),
  )
  .map(([f, n, a, b, c]) => [`FREQ=${f}`, n > 1 ? `INTERVAL=${n}` : '', a, b, c].filter(Boolean).join(';'));

const inputBounds = fc.record({
  startsAt: fc.option(pick([new Date('2027-01-01T00:00:00Z'), new Date('2026-12-24T18:30:00Z')]), { nil: null }),
  endsAt: fc.option(pick([new Date('2030-01-01T00:00:00Z')]), { nil: null }),
  count: fc.option(fc.integer({ min: 1, max: 50 }), { nil: null }),
});

describe('descriptions have no holes', () => {
  it.each([
    ['natural', naturalExpr],
    ['quartz', quartzExpr],
    ['cron', cronExpr],
    ['rrule', rruleExpr],
  ] as Array<[string, fc.Arbitrary<string>]>)('%s', (kind, exprs) => {
    let accepted = 0;
    fc.assert(
      fc.property(exprs, pick(ZONES), inputBounds, (expr, timezone, b) => {
        const input: ScheduleInput = { expr, kind: kind as ScheduleInput['kind'], timezone, reference: REF, ...b };
        const r = compileSchedule(input);
        if (!r.ok) {
          return true;
        }
        accepted++;
        const holes = descriptionHoles(r.schedule.description, timezone);
        if (holes.length) {
          throw new Error(`${JSON.stringify(expr)} → ${JSON.stringify(r.schedule.description)}: ${holes.join(', ')}`);
        }
        return true;
      }),
      { numRuns: 600, seed: 24 },
    );
    // the generators exercise the accepted forms, not only errors
    expect(accepted).toBeGreaterThan(200);
  });

  it.each([
    ['every 18 months', 'Every 18 months at 00:00 (UTC)'],
    ['monthly', 'Monthly at 00:00 (UTC)'],
    ['FREQ=MONTHLY;INTERVAL=18', 'Every 18 months (UTC)'],
    ['every 90 minutes', 'Every 90 minutes (UTC)'],
  ])('%s → %s', (expr, description) => {
    const r = compileSchedule({ expr, reference: REF });
    expect(r.ok && r.schedule.description).toBe(description);
  });

  it('the hole finder finds the holes it is meant to find', () => {
    for (const bad of ['Every 18 months on  at 00:00 (UTC)', 'Every month on at 00:00 (UTC)', 'At undefined (UTC)']) {
      expect(descriptionHoles(bad, 'UTC')).not.toEqual([]);
    }
    expect(descriptionHoles('Every weekday at 09:00 and 17:00 (UTC)', 'UTC')).toEqual([]);
  });
});

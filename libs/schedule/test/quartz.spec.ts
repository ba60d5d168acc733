/**
 * `quartz` kind (issue #3, decisions.md "Quartz compatibility"). Grouped by the rules of the
 * Quartz 2.5 CronExpression syntax; quartz-oracle.spec.ts compares with fire times produced by the
 * real Quartz 2.5.2 code.
 */
import { compileSchedule } from '@svc/schedule';
import { tokenize, tokenizeLoose } from '../src/grammar/quartz/tokens';
import { errorsOf, fires, firesCases, REF } from './helpers';

describe('quartz: fields and detection', () => {
  it('auto-detects 6 and 7 fields as quartz', () => {
    for (const expr of ['0 0 12 * * ?', '0 0 12 * * ? 2027', '*/10 * * ? * *']) {
      const r = compileSchedule({ expr, reference: REF });
      expect(r.ok && r.kindDetected).toBe('quartz');
    }
  });
  it('canonical is the expression unchanged and a description is English', () => {
    const r = compileSchedule({ expr: '0 15 10 ? * MON-FRI', timezone: 'Europe/Berlin', reference: REF });
    expect(r.ok).toBe(true);
    if (!r.ok) {
      return;
    }
    expect(r.schedule.canonical).toBe('0 15 10 ? * MON-FRI');
    expect(r.schedule.description).toBe('At 10:15 every weekday (Europe/Berlin)');
  });
  firesCases([
    [
      'seconds field is honoured',
      '*/20 * * * * ?',
      '2026-01-01T00:00:00Z',
      ['2026-01-01T00:00:20Z', '2026-01-01T00:00:40Z', '2026-01-01T00:01:00Z', '2026-01-01T00:01:20Z'],
    ],
    [
      'lists, ranges and steps combine',
      '0 0,30 9-10/1 ? * 2-6/2',
      '2026-01-05T00:00:00Z',
      ['2026-01-05T09:00:00Z', '2026-01-05T09:30:00Z', '2026-01-05T10:00:00Z', '2026-01-05T10:30:00Z'],
    ],
  ]);
  it('optional year field restricts years', () => {
    expect(fires('0 0 0 1 1 ? 2027,2029', '2026-06-01T00:00:00Z', 5)).toEqual([
      '2027-01-01T00:00:00Z',
      '2029-01-01T00:00:00Z',
    ]);
  });
  it('names are case-insensitive and ranges wrap around', () => {
    expect(fires('0 0 9 ? nov-feb sat', '2026-02-20T00:00:00Z', 2)).toEqual(
      ['2026-02-21T09:00:00Z', '2026-02-28T09:00:00Z'].slice(0, 2),
    );
    expect(fires('0 0 22-1 * * ?', '2026-01-01T00:30:00Z', 3)).toEqual([
      '2026-01-01T01:00:00Z',
      '2026-01-01T22:00:00Z',
      '2026-01-01T23:00:00Z',
    ]);
  });
});

describe('quartz: day-of-month specials (L, L-n, W, LW)', () => {
  firesCases([
    [
      'L is the last day of every month, leap years included',
      '0 0 0 L * ?',
      '2028-01-15T00:00:00Z',
      ['2028-01-31T00:00:00Z', '2028-02-29T00:00:00Z', '2028-03-31T00:00:00Z'],
    ],
    [
      'L-3 is three days before the last day',
      '0 0 0 L-3 * ?',
      '2027-02-01T00:00:00Z',
      ['2027-02-25T00:00:00Z', '2027-03-28T00:00:00Z'],
    ],
  ]);
  it('LW is the last weekday of the month', () => {
    // 2026-05-31 is a Sunday, 2026-10-31 a Saturday
    expect(fires('0 0 0 LW * ?', '2026-05-01T00:00:00Z', 1)).toEqual(['2026-05-29T00:00:00Z']);
    expect(fires('0 0 0 LW * ?', '2026-10-01T00:00:00Z', 1)).toEqual(['2026-10-30T00:00:00Z']);
  });
  it('15W moves to the nearest weekday without leaving the month', () => {
    // 2026-03-15 is a Sunday -> Monday 16th; 2026-08-15 is a Saturday -> Friday 14th
    expect(fires('0 0 0 15W * ?', '2026-03-01T00:00:00Z', 1)).toEqual(['2026-03-16T00:00:00Z']);
    expect(fires('0 0 0 15W * ?', '2026-08-01T00:00:00Z', 1)).toEqual(['2026-08-14T00:00:00Z']);
  });
  it('1W on a Saturday moves forward to Monday the 3rd, not back into the previous month', () => {
    // 2026-08-01 is a Saturday
    expect(fires('0 0 0 1W * ?', '2026-07-31T00:00:00Z', 1)).toEqual(['2026-08-03T00:00:00Z']);
  });
  it('31W skips months without a 31st and stays in the month when the 31st is a Sunday', () => {
    // 2026-05-31 is a Sunday -> Friday 29th
    expect(fires('0 0 0 31W * ?', '2026-04-01T00:00:00Z', 2)).toEqual(['2026-05-29T00:00:00Z', '2026-07-31T00:00:00Z']);
  });
  it('29 February fires only in leap years', () => {
    expect(fires('0 0 0 29 2 ?', '2026-01-01T00:00:00Z', 3)).toEqual([
      '2028-02-29T00:00:00Z',
      '2032-02-29T00:00:00Z',
      '2036-02-29T00:00:00Z',
    ]);
  });
});

describe('quartz: day-of-week specials (L, nL, #)', () => {
  firesCases([
    [
      '6L is the last Friday of the month',
      '0 15 10 ? * 6L',
      '2026-01-01T00:00:00Z',
      ['2026-01-30T10:15:00Z', '2026-02-27T10:15:00Z'],
    ],
    [
      'a lone L in day-of-week means Saturday (Quartz: L = 7)',
      '0 0 0 ? * L',
      '2026-01-01T00:00:00Z',
      ['2026-01-03T00:00:00Z', '2026-01-10T00:00:00Z'],
    ],
  ]);
  it('MON#2 is the second Monday; 5#5 skips months without a fifth Thursday', () => {
    expect(fires('0 0 10 ? * MON#2', '2026-01-01T00:00:00Z', 1)).toEqual(['2026-01-12T10:00:00Z']);
    expect(fires('0 0 10 ? * 5#5', '2026-01-01T00:00:00Z', 2)).toEqual([
      '2026-01-29T10:00:00Z',
      '2026-04-30T10:00:00Z',
    ]);
  });
  it('1 = Sunday (Quartz numbering, unlike Unix cron)', () => {
    expect(fires('0 0 0 ? * 1', '2026-01-01T00:00:00Z', 1)).toEqual(['2026-01-04T00:00:00Z']);
  });
});

describe('quartz: year rollover', () => {
  it('rolls from December 31 into January 1', () => {
    expect(fires('59 59 23 31 12 ?', '2026-12-31T23:59:58Z', 2)).toEqual([
      '2026-12-31T23:59:59Z',
      '2027-12-31T23:59:59Z',
    ]);
    expect(fires('0 0 0 1 1 ?', '2026-12-31T23:59:59Z', 1)).toEqual(['2027-01-01T00:00:00Z']);
  });
});

describe('quartz: rejections (Quartz errors and the leniencies decisions.md rejects)', () => {
  it('0 0 12 * * * explains the ? rule and offers the fixed expression', () => {
    const [e] = errorsOf('0 0 12 * * *');
    expect(e.kind).toBe('day_fields_conflict');
    expect(e.message).toMatch(/'\?'/);
    expect(e.suggestion).toBe('0 0 12 * * ?');
    expect(e.position).toBe(11);
    expect(e.length).toBe(1);
  });
  it('both day fields ? is rejected with a suggestion', () => {
    expect(errorsOf('0 0 12 ? * ?')[0].suggestion).toBe('0 0 12 * * ?');
  });
  it('both day fields restricted is rejected (Quartz cannot combine them)', () => {
    expect(errorsOf('0 0 12 15 * MON')[0].kind).toBe('day_fields_conflict');
  });
  it.each([
    ['0 0 12 * * ? 99', 'out_of_range'], // 99 is Quartz's internal wildcard
    ['0 0 12 98 * ?', 'out_of_range'], // 98 is Quartz's internal '?'
    ['0 0 12x * * ?', 'syntax'],
    ['0 0 12 ? * MON/2', 'syntax'],
    ['0 0 12 1-15W * ?', 'syntax'],
    ['0 0 12 * L ?', 'syntax'],
    ['0 0 12 ? * 2#1,3', 'unsupported'],
    ['0 0 12 ? * 6L,2', 'unsupported'],
    ['0 0 12 ? * 2#6', 'out_of_range'],
    ['0 0 12 L-31 * ?', 'out_of_range'],
    ['0 */0 12 * * ?', 'out_of_range'],
    ['0 */60 12 * * ?', 'out_of_range'],
    ['0 0 24 * * ?', 'out_of_range'],
    ['0 0 12 ? * 0', 'out_of_range'],
    ['*5 0 12 * * ?', 'syntax'],
    ['0 0 12 ?x * *', 'syntax'],
    ['0 0 12 * * ? 2028-2026', 'out_of_range'],
    ['0 0 0 0 12 * * ?', 'field_count'],
  ])('%s is rejected (%s)', (expr, kind) => {
    expect(errorsOf(expr, { kind: 'quartz' })[0].kind).toBe(kind);
  });
  it.each([
    ['0 0 12 L-0 * ?', 'L'],
    ['0 0 12 l-0w * ?', 'LW'],
    ['0 0 12 L-00 * ?', 'L'],
  ])('%s: L-0 is the last day itself, an error suggesting %s', (expr, suggestion) => {
    const [e] = errorsOf(expr, { kind: 'quartz' });
    expect(e).toMatchObject({ kind: 'out_of_range', position: 7, suggestion });
    expect(e.message).toMatch(/last day itself/);
  });
  it.each([
    ['0 0 9,12 15W * ?', 9, 3],
    ['0 0 9-17 LW * ?', 9, 2],
    ['0 0 * 1W * ?', 6, 2],
    ['0 0 */6 1,L-2W * ?', 10, 4],
  ])('%s: W with several hours is rejected at the W item (Quartz skips the later hours)', (expr, position, length) => {
    const [e] = errorsOf(expr, { kind: 'quartz' });
    expect(e).toMatchObject({ kind: 'unsupported', position, length });
    expect(e.message).toMatch(/several hours/);
  });
  it('W with one hour (and several minutes or seconds) stays Quartz-equal', () => {
    // 2026-03-15 is a Sunday: 15W is Monday the 16th, where Quartz fires 09:00 only, as Quartz 2.5.2 does
    expect(fires('0 0,30 9 15W * ?', '2026-03-01T00:00:00Z', 3)).toEqual([
      '2026-03-16T09:00:00Z',
      '2026-04-15T09:00:00Z',
      '2026-04-15T09:30:00Z',
    ]);
  });
  it.each([
    ['0 0 12 ? * ſun', 11, 2, 'SUN'], // LATIN SMALL LETTER LONG S: Java upper-cases it to S
    ['0 0 12 ? * FRı', 13, 2, 'FRI'], // DOTLESS I: Java upper-cases it to I
    ['0 0 12 ? * MON-FRİ', 17, 2, 'FRI'], // DOTTED CAPITAL I
    ['0 0 12 ? ſep ?', 9, 2, 'SEP'],
    ['0 0 12 ? ſEP,JAN ?', 9, 2, 'SEP'],
  ])(
    '%s: a name with a non-ASCII letter is an error at that letter (bytes %i+%i)',
    (expr, position, length, suggestion) => {
      const [e] = errorsOf(expr);
      expect(e).toMatchObject({ kind: 'unknown_word', position, length, suggestion });
      expect(e.message).toMatch(/is not an ASCII letter/);
    },
  );
  it('a non-ASCII digit or invisible character is a syntax error at its bytes', () => {
    expect(errorsOf('0 0 12 ? * M\u0663N')[0]).toMatchObject({ kind: 'syntax', position: 12, length: 2 });
    expect(errorsOf('0 0 12 ? * 2\u200b')[0]).toMatchObject({ kind: 'syntax', position: 12, length: 3 });
  });
  it('cron names are ASCII too', () => {
    expect(errorsOf('0 12 * * ſun')[0]).toMatchObject({ kind: 'unknown_word', position: 9, length: 2 });
    expect(errorsOf('0 12 * ſep *')[0]).toMatchObject({ kind: 'unknown_word', position: 7, length: 2 });
  });
  it.each([
    ['0 0 12\n* * ?', 6, 1, /a line break \(U\+000A\)/],
    ['0 0 12 * * ?\n', 12, 1, /a line break/],
    ['0 0 12 * * ?\r\n', 12, 2, /a carriage return/],
    ['0 0\v12 * * ?', 3, 1, /a vertical tab/],
    ['0 0 12\f* * ?', 6, 1, /a form feed/],
    ['0\u00a00 12 * * ?', 1, 2, /a no-break space/],
    ['0 0 12 \u2003? * MON', 7, 3, /a space character \(U\+2003\)/],
  ])('%j: only spaces and tabs separate Quartz fields', (expr, position, length, message) => {
    const errors = errorsOf(expr);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ kind: 'syntax', position, length });
    expect(errors[0].message).toMatch(message);
    expect(errors[0].suggestion).toMatch(/^0 0 12 (\* \* \?|\? \* MON)$/);
  });
  it('tabs separate fields, and a separator error comes with the field errors', () => {
    expect(fires('0\t0\t12\t*\t*\t?', '2026-01-01T00:00:00Z', 1)).toEqual(['2026-01-01T12:00:00Z']);
    expect(errorsOf('0 0 25\n* * ?').map((e) => e.kind)).toEqual(['syntax', 'out_of_range']);
  });
  it('a 5-field expression forced to quartz suggests adding seconds', () => {
    const [e] = errorsOf('0 12 * * ?', { kind: 'quartz' });
    expect(e.kind).toBe('field_count');
    expect(e.suggestion).toBe('0 0 12 * * ?');
  });
  it('unknown names suggest the Quartz abbreviation', () => {
    expect(errorsOf('0 0 12 ? * MONDAY')[0].suggestion).toBe('MON');
    expect(errorsOf('0 0 12 ? * MNO')[0].suggestion).toBe('MON');
    expect(errorsOf('0 0 12 ? JANUAR *')[0].suggestion).toBe('JAN');
  });
  it('independent field errors are reported together', () => {
    expect(errorsOf('0 61 25 * * ?').map((e) => e.kind)).toEqual(['out_of_range', 'out_of_range']);
  });
});

describe('quartz: fields parsed once by their text (parse.ts field memo)', () => {
  const AFTER = '2026-03-01T00:00:00Z';
  const valid = (expr: string): boolean => compileSchedule({ expr, reference: REF }).ok;

  it('gives a field seen in another expression the same meaning, and its own error positions', () => {
    expect(fires('0 15 10 ? * MON-FRI', AFTER, 5)).toEqual(fires('0 15 10 ? * 2-6', AFTER, 5));
    expect(fires('30 15 10 ? * MON-FRI', AFTER, 5).map((t) => t.slice(0, 16))).toEqual(
      fires('0 15 10 ? * MON-FRI', AFTER, 5).map((t) => t.slice(0, 16)),
    );
    // the same bad field at two places: each error points at its own bytes
    expect(errorsOf('0 0 12 ? * MON#6')[0].position).toBe('0 0 12 ? * MON#'.length);
    expect(errorsOf('0  0  12  ?  *  MON#6')[0].position).toBe('0  0  12  ?  *  MON#'.length);
  });

  it('keeps the checks across fields for fields that came from the memo', () => {
    expect(valid('0 0 9 15W * ?')).toBe(true);
    expect(valid('0 0 9,12 * * *')).toBe(false); // both day fields given
    expect(valid('0 0 9,12 ? * *')).toBe(true);
    expect(errorsOf('0 0 9,12 15W * ?').map((e) => e.kind)).toEqual(['unsupported']);
    expect(fires('0 0 9 ? * 6L', AFTER, 2)).toEqual(['2026-03-27T09:00:00Z', '2026-04-24T09:00:00Z']);
    expect(fires('0 0 9 ? * 6#2', AFTER, 1)).toEqual(['2026-03-13T09:00:00Z']);
    expect(errorsOf('0 0 9 15W * 6L').map((e) => e.kind)).toEqual(['day_fields_conflict']);
  });
});

describe('quartz: field splitting', () => {
  it('splits on exactly the code units JavaScript calls whitespace (kind detection, Quartz) and on space, tab, CR, LF (cron)', () => {
    for (let c = 0; c <= 0xffff; c++) {
      const ch = String.fromCharCode(c);
      const loose = tokenizeLoose(`a${ch}b`).map((t) => t.text);
      expect(loose).toEqual(/\s/.test(ch) ? ['a', 'b'] : [`a${ch}b`]);
      const strict = tokenize(`a${ch}b`).map((t) => t.text);
      expect(strict).toEqual(/[ \t\r\n]/.test(ch) ? ['a', 'b'] : [`a${ch}b`]);
    }
    expect(tokenizeLoose('  0 \u00a0 1\t2\n')).toEqual([
      { text: '0', start: 2, end: 3 },
      { text: '1', start: 6, end: 7 },
      { text: '2', start: 8, end: 9 },
    ]);
  });
});

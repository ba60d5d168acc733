/**
 * Errors that teach (natural kind): every error is {kind, position, length, message, suggestion}
 * with position/length in UTF-8 BYTES of the original text; independent errors are reported
 * together.
 */
import { byteLen, bytePos, errs, natural, ok } from './natural-helpers';

/** `expr` is refused with one error of `kind` at the bytes of `at` in it, suggesting `suggestion`. */
function expectErrorAt(expr: string, kind: string, at: string, suggestion: string): void {
  expect(errs(natural(expr))).toEqual([
    expect.objectContaining({ kind, position: bytePos(expr, at), length: byteLen(at), suggestion }),
  ]);
}

describe('byte positions', () => {
  test('a multi-byte letter before the error (every mönday at 25:00)', () => {
    const expr = 'every mönday at 25:00';
    const e = errs(natural(expr));
    expect(e).toEqual([
      {
        kind: 'unknown_word',
        position: 6,
        length: byteLen('mönday'),
        message: 'unknown word "mönday"; did you mean "monday"?',
        suggestion: 'monday',
      },
      expect.objectContaining({ kind: 'out_of_range', position: bytePos(expr, '25:00'), length: 5 }),
    ]);
    expect(e[1]!.position).toBe(17); // 16 characters, but ö is 2 bytes
  });

  test('an emoji is reported with its 4 bytes, and the rest still parses', () => {
    const expr = 'every 😀 day at 9';
    const e = errs(natural(expr));
    expect(e).toEqual([expect.objectContaining({ kind: 'unexpected_character', position: 6, length: 4 })]);
  });

  test('positions after an emoji count its 4 bytes (surrogate pair = 2 UTF-16 units)', () => {
    const expr = '🎉 every day at 9:75';
    const e = errs(natural(expr));
    expect(e.map((x) => [x.kind, x.position, x.length])).toEqual([
      ['unexpected_character', 0, 4],
      ['out_of_range', bytePos(expr, '9:75'), 4],
    ]);
    expect(e[1]!.position).toBe(expr.indexOf('9:75') + 2);
  });

  test('CJK text (3 bytes a character)', () => {
    const expr = 'every 日曜日 at 9';
    const e = errs(natural(expr));
    expect(e[0]).toMatchObject({ position: 6, length: 9 });
  });
});

describe('suggestions from what the user probably meant', () => {
  test.each([
    ['every mondy at 9', 'mondy', 'monday'],
    ['evry day at 9', 'evry', 'every'],
    ['every tuesdy', 'tuesdy', 'tuesday'],
    ['every day at 9 in janury', 'janury', 'january'],
    ['every 5 minuts', 'minuts', 'minutes'],
    ['every weekdya at 9', 'weekdya', 'weekday'],
  ])('%s: %s → %s', (expr, word, suggestion) => {
    expectErrorAt(expr, 'unknown_word', word, suggestion);
  });

  test('a word nothing resembles gets no suggestion', () => {
    expect(errs(natural('banana'))).toEqual([
      expect.objectContaining({ kind: 'unknown_word', position: 0, length: 6, suggestion: null }),
    ]);
  });

  describe('intervals of any length are schedules, not mistakes', () => {
    test.each([
      ['every 61 minutes', 'FREQ=MINUTELY;INTERVAL=61'],
      ['every 90 minutes', 'FREQ=MINUTELY;INTERVAL=90'],
      ['every 120 minutes', 'FREQ=HOURLY;INTERVAL=2'],
      ['every 75 seconds', 'FREQ=SECONDLY;INTERVAL=75'],
      ['every 24 hours', 'FREQ=HOURLY;INTERVAL=24'],
    ])('%s → %s', (expr, canonical) => {
      expect(ok(natural(expr)).canonical).toBe(canonical);
    });
    test('an interval of 0 is an error without a guessed interval', () => {
      const expr = 'every 0 minutes';
      const [e] = errs(natural(expr));
      expect(e).toMatchObject({ kind: 'out_of_range', position: 6, length: byteLen(expr) - 6, suggestion: null });
      expect(e!.message).toContain('at least 1');
    });
  });

  describe('times state the valid range', () => {
    test.each([
      ['at 25:00', '25:00', null],
      ['at 9:75', '9:75', null],
      ['at 24:00', '24:00', 'midnight'],
      ['at 13pm', '13pm', '13:00'],
      ['at 0am', '0am', '00:00'],
    ])('%s', (expr, bad, suggestion) => {
      const [e] = errs(natural(expr));
      expect(e).toMatchObject({ kind: 'out_of_range', position: bytePos(expr, bad), length: byteLen(bad), suggestion });
      expect(e!.message).toContain('00:00 to 23:59');
    });
  });

  test('a window without an interval teaches by example but guesses no interval', () => {
    const [e] = errs(natural('between 9am and 5pm'));
    expect(e).toMatchObject({ kind: 'incomplete', suggestion: null });
    expect(e!.message).toContain('`every 15 minutes between 9am and 5pm`');
  });

  test('days beyond the month', () => {
    expect(errs(natural('every month on the 32nd'))[0]).toMatchObject({
      kind: 'out_of_range',
      position: 19,
      length: 2,
      suggestion: null, // `last day` would be another schedule
    });
    expect(errs(natural('every year on feb 30'))[0]).toMatchObject({ kind: 'out_of_range', position: 18, length: 2 });
    expect(errs(natural('every year on feb 30'))[0]!.message).toBe('February has 29 days at most; got 30');
    expect(errs(natural('on the 31st of february'))[0]).toMatchObject({ kind: 'never_fires' });
    expect(errs(natural('every 6th monday'))[0]!.message).toContain('at most 5');
    expect(errs(natural('at 2026-02-30 09:00'))[0]).toMatchObject({ kind: 'out_of_range', suggestion: null });
  });
});

describe('several independent errors at once', () => {
  test('two misspellings and a bad time', () => {
    const expr = 'evry tuesdy at 25:00';
    expect(errs(natural(expr)).map((e) => [e.kind, e.position, e.length, e.suggestion])).toEqual([
      ['unknown_word', 0, 4, 'every'],
      ['unknown_word', 5, 6, 'tuesday'],
      ['out_of_range', 15, 5, null],
    ]);
  });

  test('errors come sorted by position', () => {
    const e = errs(natural('every 0 minutes on mondy 🎉'));
    expect(e.map((x) => x.position)).toEqual([...e.map((x) => x.position)].sort((a, b) => a - b));
    expect(e.map((x) => x.kind)).toEqual(['out_of_range', 'unknown_word', 'unexpected_character']);
  });
});

describe('conflicts and incomplete input', () => {
  test.each([
    ['every day at 9am in 20 minutes', 'conflict'],
    ['every 2 hours at 9am', 'conflict'],
    ['every day at', 'expected_time'],
    ['every', 'incomplete'],
    ['every 5 minutes between 9am and 9am', 'invalid_window'],
    ['every day at 9 until 2026-11-01 starting 2026-12-01', 'out_of_range'],
    ['every day starting soon', 'unknown_word'],
    ['every 2 weeks on the 1st', 'conflict'],
    ['every month on march 15', 'conflict'],
    ['at 9am at 9am', 'conflict'],
    ['every day 10 times 3 times', 'conflict'],
  ])('%s → %s', (expr, kind) => {
    const e = errs(natural(expr));
    expect(e.map((x) => x.kind)).toContain(kind);
    for (const x of e) {
      expect(x.position + x.length).toBeLessThanOrEqual(byteLen(expr));
      expect(x.message.length).toBeGreaterThan(10);
    }
  });

  test('an empty expression', () => {
    expect(errs(natural('   '))[0]).toMatchObject({ kind: 'empty', suggestion: null }); // nothing to keep the meaning of
  });

  test('a suggestion, when followed, compiles', () => {
    for (const expr of ['every mondy at 9', 'every minutes', 'every monday and']) {
      const e = errs(natural(expr))[0]!;
      const fixed =
        e.kind === 'unknown_word'
          ? expr.replace(/mondy/, e.suggestion!)
          : e.kind === 'incomplete'
            ? e.suggestion!
            : e.suggestion!;
      expect(natural(fixed).ok).toBe(true);
    }
    expect(ok(natural('every hour')).canonical).toBe('FREQ=HOURLY');
  });
});

describe('next and fractions of an hour', () => {
  test('`next` without a weekday says what it needs', () => {
    const expr = 'next week at 9am';
    expect(errs(natural(expr))).toEqual([
      {
        kind: 'incomplete',
        position: 0,
        length: bytePos(expr, 'week') + 4,
        message: '`next` must be followed by a day of the week, e.g. `next friday at 9am`',
        suggestion: null,
      },
    ]);
  });

  test('`every half` without `hour` offers `every half hour`', () => {
    const expr = 'every half';
    expect(errs(natural(expr))).toEqual([
      {
        kind: 'expected_unit',
        position: bytePos(expr, 'half'),
        length: 4,
        message: 'expected "hour" after "half", e.g. `every half hour`',
        suggestion: 'every half hour',
      },
    ]);
  });

  test('`next friday` cannot be combined with a repetition', () => {
    expect(errs(natural('next friday every day'))).toEqual([expect.objectContaining({ kind: 'conflict' })]);
  });
});

describe('contradictions, missing numbers and dangling conjunctions (issue #12)', () => {
  test.each([
    ['every weekday on saturday', 'on saturday', 'every weekday'],
    ['every weekday at 9am on sundays', 'on sundays', 'every weekday at 9am'],
    ['weekends on monday', 'on monday', 'weekends'],
    ['every monday on tuesday at 9', 'on tuesday', 'every monday at 9'],
  ])('%s never fires: an error at the later days, suggesting the text without them', (expr, later, suggestion) => {
    expectErrorAt(expr, 'never_fires', later, suggestion);
  });
  test('a second set of days that overlaps narrows the first', () => {
    expect(ok(natural('every weekday on monday and friday at 9')).canonical).toBe(
      'FREQ=WEEKLY;BYDAY=MO,FR;BYHOUR=9;BYMINUTE=0;BYSECOND=0',
    );
    // joined by `and`, days add up
    expect(ok(natural('every monday and every friday at 9')).canonical).toBe(
      'FREQ=WEEKLY;BYDAY=MO,FR;BYHOUR=9;BYMINUTE=0;BYSECOND=0',
    );
  });
  test.each([
    ['in minutes', 'minutes', 'in a minute'],
    ['in hours', 'hours', 'in an hour'],
    ['every minutes at 9am', 'minutes', 'every minute'],
    ['every hours', 'hours', 'every hour'],
    ['every days on weekdays', 'days', 'every day'],
  ])('%s: a unit without a number is an error at the unit', (expr, unit, suggestion) => {
    expectErrorAt(expr, 'expected_number', unit, suggestion);
  });
  test.each([
    ['every monday and', 13, 'every monday'],
    ['every monday and friday,', 23, 'every monday and friday'],
    ['at 9am &', 7, 'at 9am'],
    ['and every monday', 0, 'every monday'],
  ])('%s: a conjunction that joins nothing is an error at it', (expr, position, suggestion) => {
    expect(errs(natural(expr))).toEqual([expect.objectContaining({ kind: 'incomplete', position, suggestion })]);
  });
  test.each([
    ['30 february', '30', 'February has 29 days at most; got 30'],
    ['on 31 april at 9am', '31', 'April has 30 days at most; got 31'],
  ])('%s: a day the month never has is an error at the day, as month first', (expr, day, message) => {
    expect(errs(natural(expr))).toEqual([
      expect.objectContaining({ kind: 'out_of_range', position: bytePos(expr, day), length: byteLen(day), message }),
    ]);
  });
});

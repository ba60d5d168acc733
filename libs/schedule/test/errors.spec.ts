/**
 * Errors that teach (issue #3): UTF-8 byte positions, suggestions, several errors at once.
 */
import { compileSchedule, errorAt, levenshtein, suggest, utf8Length, utf8Offset } from '@svc/schedule';
import { errorsOf, REF } from './helpers';

const enc = new TextEncoder();
const bytes = (s: string): number => enc.encode(s).length;

describe('errors: UTF-8 byte positions', () => {
  it('counts ü as two bytes (every mönday at 9)', () => {
    const expr = 'every mönday at 9';
    const start = expr.indexOf('mönday');
    const e = errorAt(expr, start, start + 'mönday'.length, 'unknown_word', 'x');
    expect(e.position).toBe(6);
    expect(e.length).toBe(7);
    expect(e.length).toBe(bytes('mönday'));
  });
  it('counts an emoji (surrogate pair) as four bytes', () => {
    const expr = '🎉 every mondy';
    const start = expr.indexOf('mondy');
    const e = errorAt(expr, start, start + 5, 'unknown_word', 'x');
    expect(e.position).toBe(bytes('🎉 every '));
    expect(e.position).toBe(11);
    expect(e.length).toBe(5);
  });
  it('matches TextEncoder for mixed scripts', () => {
    const s = 'aé€𝄞中🙂z';
    for (let i = 0; i <= s.length; i++) {
      // only at code point boundaries
      if (i > 0 && i < s.length && /[\udc00-\udfff]/.test(s[i])) {
        continue;
      }
      expect(utf8Offset(s, i)).toBe(bytes(s.slice(0, i)));
    }
    expect(utf8Length(s)).toBe(bytes(s));
  });
  it('quartz field errors are in bytes of the original text (leading emoji)', () => {
    const expr = '0 0 25 * * ?';
    const r = compileSchedule({ expr, kind: 'quartz', reference: REF });
    expect(!r.ok && r.errors[0]).toMatchObject({ kind: 'out_of_range', position: 4, length: 2 });
  });
  it('cron name error after a multi-byte character in a previous token is positioned in bytes', () => {
    const [e] = errorsOf('0 0 * * MONDAY', { kind: 'cron' });
    expect(e).toMatchObject({ position: 8, length: 6, suggestion: 'MON' });
  });
});

describe('errors: suggestions', () => {
  it('levenshtein with transpositions', () => {
    expect(levenshtein('mondy', 'monday')).toBe(1);
    expect(levenshtein('mnoday', 'monday')).toBe(1);
    expect(levenshtein('', 'abc')).toBe(3);
    expect(levenshtein('🙂a', '🙂b')).toBe(1);
  });
  it('suggest picks the closest word, case-insensitively, or null', () => {
    const days = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
    expect(suggest('mondy', days)).toBe('monday');
    expect(suggest('THURSDY', days)).toBe('thursday');
    expect(suggest('wedn', days)).toBe('wednesday');
    expect(suggest('banana', days)).toBeNull();
    expect(suggest('', days)).toBeNull();
  });
  it('unknown time zones suggest the IANA name', () => {
    const r = compileSchedule({ expr: '0 0 12 * * ?', timezone: 'Europe/Berln', reference: REF });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.errors[0]).toMatchObject({ kind: 'unknown_timezone', suggestion: 'Europe/Berlin' });
    }
  });
  it('0 0 12 * * * offers the fixed Quartz expression', () => {
    expect(errorsOf('0 0 12 * * *')[0].suggestion).toBe('0 0 12 * * ?');
  });
  it("cron '?' offers the fixed expression", () => {
    expect(errorsOf('0 12 ? * MON', { kind: 'cron' })[0].suggestion).toBe('0 12 * * MON');
  });
});

describe('errors: several at once', () => {
  it('reports independent field errors together, plus a bad time zone', () => {
    const r = compileSchedule({ expr: '0 61 25 * * ?', timezone: 'Mars/Base', reference: REF });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.errors.map((e) => e.kind).sort()).toEqual(['out_of_range', 'out_of_range', 'unknown_timezone']);
    }
  });
  it('rejects an expression over 4096 bytes', () => {
    expect(errorsOf('0 '.repeat(2100))[0].kind).toBe('too_long');
  });
  it('rejects an empty expression', () => {
    expect(errorsOf('   ')[0].kind).toBe('empty');
  });
  it('rejects invalid bounds', () => {
    expect(errorsOf('0 0 12 * * ?', { count: 0 })[0].kind).toBe('invalid_bounds');
    expect(
      errorsOf('0 0 12 * * ?', {
        startsAt: new Date('2027-01-01T00:00:00Z'),
        endsAt: new Date('2026-01-01T00:00:00Z'),
      })[0].kind,
    ).toBe('invalid_bounds');
  });
});

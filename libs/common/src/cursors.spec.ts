import fc from 'fast-check';
import { ValidationFailedError } from './errors';
import {
  CURSORS,
  idCursor,
  microsOfTimestamp,
  nameCursor,
  readCursor,
  timeIdCursor,
  timestampOfMicros,
} from './cursors';

const ULID_CHARS = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'.split('');
const ulid = fc.string({ unit: fc.constantFrom(...ULID_CHARS), minLength: 26, maxLength: 26 });

describe('cursors', () => {
  it('should round-trip every key and decode exactly the strings its pattern matches', () => {
    const runs = timeIdCursor('run', '[0-9]{1,15}');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 999_999_999_999_999 }), ulid, (at, id) => {
        const key = { at, id: `run_${id}` };
        const cursor = runs.encode(key);
        expect(runs.pattern.test(cursor)).toBe(true);
        expect(runs.decode(cursor)).toEqual(key);
      }),
    );
    fc.assert(
      fc.property(fc.string(), (text) => {
        expect(runs.decode(text) !== null).toBe(runs.pattern.test(text));
        expect(CURSORS.jobs.decode(text) !== null).toBe(CURSORS.jobs.pattern.test(text));
      }),
    );
    expect(idCursor('job').decode('job_01ARZ3NDEKTSV4RRFFQ69G5FAV')).toEqual({ id: 'job_01ARZ3NDEKTSV4RRFFQ69G5FAV' });
    expect(idCursor('job').decode('run_01ARZ3NDEKTSV4RRFFQ69G5FAV')).toBeNull();
    expect(nameCursor(/^[A-Z]+$/).decode('ABC')).toEqual({ name: 'ABC' });
  });

  it('should refuse, as 400 cursor, what is not a cursor of the list, NUL characters included', () => {
    for (const cursor of ['garbage!', '', 'eyJpZCI6ImpvYl8xIn0', 'job_01ARZ3NDEKTSV4RRFFQ69G5FA\u0000', '1.run_x']) {
      expect(() => readCursor(CURSORS.runs, cursor)).toThrow(ValidationFailedError);
    }
    expect(readCursor(CURSORS.runs, undefined)).toBeUndefined();
  });

  it('should keep microseconds exactly between the audit timestamp text and its integer', () => {
    for (const text of ['2026-01-02T03:04:05.123456Z', '1970-01-01T00:00:00.000001Z', '2255-03-14T15:59:59.999999Z']) {
      expect(timestampOfMicros(microsOfTimestamp(text))).toBe(text);
    }
    expect(
      CURSORS.auditLog.pattern.test(
        `${microsOfTimestamp('2255-03-14T15:59:59.999999Z')}.aud_01ARZ3NDEKTSV4RRFFQ69G5FAV`,
      ),
    ).toBe(true);
  });
});

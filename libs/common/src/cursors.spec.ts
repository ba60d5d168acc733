import { decodeCursor, encodeCursor } from './cursors';

describe('cursors', () => {
  const raw = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

  it('should round-trip a key', () => {
    expect(decodeCursor(encodeCursor({ at: '2026-01-01T00:00:00.000Z', id: 'run_1' }), ['at', 'id'])).toEqual({
      at: '2026-01-01T00:00:00.000Z',
      id: 'run_1',
    });
    expect(decodeCursor(encodeCursor({ n: 3 }), ['n'])).toEqual({ n: 3 });
  });

  it('should answer null for anything malformed, so callers answer 400 instead of a database error', () => {
    for (const cursor of [
      'garbage!',
      raw('a string'),
      raw(null),
      raw({}),
      raw({ id: { nested: 1 } }),
      raw({ id: null }),
      raw({ id: 'a\u0000b' }),
    ]) {
      expect({ cursor, decoded: decodeCursor(cursor, ['id']) }).toEqual({ cursor, decoded: null });
    }
  });
});

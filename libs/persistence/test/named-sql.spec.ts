import { namedSql } from '../src/repositories/named-sql';

describe('namedSql', () => {
  it('should number the placeholders in order of first use, one parameter per name', () => {
    const query = namedSql<{ runId: string; at: Date }>(
      'UPDATE runs SET finished_at = :at, updated_at = :at WHERE id = :runId',
    );
    const at = new Date('2026-11-28T12:00:00Z');
    expect(query.text).toBe('UPDATE runs SET finished_at = $1, updated_at = $1 WHERE id = $2');
    expect(query.values({ runId: 'run_1', at })).toEqual([at, 'run_1']);
  });

  it('should leave casts and colons that follow a word alone', () => {
    const query = namedSql<{ n: number | null }>(
      "SELECT :n::int IS NOT NULL, now()::timestamptz, interval '1 millisecond', to_char(now(), 'HH24:MI')",
    );
    expect(query.text).toBe(
      "SELECT $1::int IS NOT NULL, now()::timestamptz, interval '1 millisecond', to_char(now(), 'HH24:MI')",
    );
    expect(query.values({ n: null })).toEqual([null]);
  });

  it('should refuse parameters that lack a named value', () => {
    const query = namedSql<{ a: number; b?: number }>('SELECT :a, :b');
    expect(() => query.values({ a: 1 })).toThrow('namedSql: no value for :b');
  });
});

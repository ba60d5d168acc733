/**
 * A statement written with `:name` placeholders, compiled once to PostgreSQL's positional `$n`
 * (a name used twice is one parameter), so a long statement reads by meaning, not by number.
 */
export interface NamedSql<P> {
  /** The statement with `$1 … $n`. */
  readonly text: string;
  /** The positional values of `params`, in placeholder order. */
  values(params: P): unknown[];
}

/** A placeholder follows neither a colon (`::int` casts) nor a word character; string literals are not parsed. */
const PLACEHOLDER = /(?<![:\w]):([A-Za-z][A-Za-z0-9]*)/g;

export function namedSql<P extends object>(sql: string): NamedSql<P> {
  const names: string[] = [];
  const text = sql.replace(PLACEHOLDER, (_match, name: string) => {
    let index = names.indexOf(name);
    if (index < 0) {
      index = names.push(name) - 1;
    }
    return `$${index + 1}`;
  });
  return {
    text,
    values(params: P): unknown[] {
      const record = params as Record<string, unknown>;
      return names.map((name) => {
        if (!(name in record)) {
          throw new Error(`namedSql: no value for :${name}`);
        }
        return record[name];
      });
    },
  };
}

import { CannotExecuteNotConnectedError, DataSource, EntityManager, QueryFailedError } from 'typeorm';

/** A transaction's handle, passed to repository methods that take part in it. */
export type Tx = EntityManager;

/**
 * The one way code outside this library groups repository calls into a transaction, so services
 * never hold a DataSource or issue SQL themselves (repositories are the only data path).
 */
export class Transactions {
  constructor(private readonly dataSource: DataSource) {}

  /** Whether the database connection pool is up (the API starts before PostgreSQL may be). */
  get connected(): boolean {
    return this.dataSource.isInitialized;
  }

  run<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }
}

/** Database checks for `/readyz`. */
export class DatabaseProbe {
  constructor(private readonly dataSource: DataSource) {}

  /** Whether the pool was ever opened (the API starts while PostgreSQL is down). */
  get connected(): boolean {
    return this.dataSource.isInitialized;
  }

  /** Connected to a primary that accepts writes (not a recovering standby). */
  async writable(): Promise<boolean> {
    if (!this.dataSource.isInitialized) {
      return false;
    }
    const rows: Array<{ recovery: boolean }> = await this.dataSource.query('SELECT pg_is_in_recovery() AS recovery');
    return rows[0]?.recovery === false;
  }
}

/** Whether `err` is PostgreSQL's unique violation of `constraint` (SQLSTATE 23505). */
export function isUniqueViolation(err: unknown, constraint: string): boolean {
  const driverError =
    err instanceof QueryFailedError ? (err.driverError as { code?: string; constraint?: string }) : null;
  return driverError?.code === '23505' && driverError.constraint === constraint;
}

/** SQLSTATEs of a server that is going away or not there yet: class 08 and the shutdown codes. */
const UNAVAILABLE_SQLSTATES = /^(08...|57P01|57P02|57P03)$/;
const UNAVAILABLE_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);
/** node-postgres's own messages for a connection that broke or never came (no code on them). */
const UNAVAILABLE_MESSAGES =
  /Connection terminated|connection error and is not queryable|timeout exceeded when trying to connect/i;

/**
 * Whether `err` says the database could not be reached (down, restarting, connection cut), as
 * opposed to a statement it refused: the same write can succeed once it is back.
 */
export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 5) {
    return false;
  }
  if (err instanceof CannotExecuteNotConnectedError) {
    // The pool never connected (the API started while PostgreSQL was down).
    return true;
  }
  const { code, message, cause, errors } = err as {
    code?: unknown;
    message?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (typeof code === 'string' && (UNAVAILABLE_SQLSTATES.test(code) || UNAVAILABLE_ERRNOS.has(code))) {
    return true;
  }
  if (typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message)) {
    return true;
  }
  // TypeORM wraps the driver's error; Node wraps connection errors (cause, AggregateError).
  const inner = [
    err instanceof QueryFailedError ? err.driverError : null,
    cause,
    ...(Array.isArray(errors) ? errors : []),
  ];
  return inner.some((e) => isDatabaseUnavailable(e, depth + 1));
}

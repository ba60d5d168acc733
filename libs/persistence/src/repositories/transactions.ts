import { DataSource, EntityManager, QueryFailedError } from 'typeorm';

/** A transaction's handle, passed to repository methods that take part in it. */
export type Tx = EntityManager;

/**
 * The one way code outside this library groups repository calls into a transaction, so services
 * never hold a DataSource or issue SQL themselves (issue #14: repositories are the only data path).
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

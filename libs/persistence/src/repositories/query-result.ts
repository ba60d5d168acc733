import type { EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';

/**
 * Rows of a raw `UPDATE … RETURNING` / `DELETE … RETURNING`: TypeORM's PostgreSQL driver answers
 * those with `[rows, affectedCount]`, while SELECT and INSERT answer with the rows alone.
 */
export function returnedRows<T>(result: unknown): T[] {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') {
    return result[0] as T[];
  }
  return result as T[];
}

/** Rows a raw `DELETE` or `UPDATE` without `RETURNING` touched (`[rows, affectedCount]`, as above). */
export function affectedCount(result: unknown): number {
  return Array.isArray(result) && typeof result[1] === 'number' ? result[1] : 0;
}

/** An entity from a raw row of its table (`RETURNING *`): each column's value under its property name. */
export function entityFromRow<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  row: Record<string, unknown>,
): T {
  const entity = manager.create(target);
  for (const column of manager.connection.getMetadata(target).columns) {
    if (column.databaseName in row) {
      (entity as Record<string, unknown>)[column.propertyName] = row[column.databaseName];
    }
  }
  return entity;
}

import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';

/** A time-ordered list's range and keyset: `[from, to)` on its time column, then strictly before `after`. */
export interface TimePage {
  from?: Date;
  to?: Date;
  /** The last row of the previous page (newest first): its time and id. */
  after?: { at: Date | string; id: string };
}

/**
 * Narrows a newest-first list (ordered by `at` then `id`, both descending) to `page`: `at` within
 * `[from, to)` (each bound when given), and rows strictly before `after` in that order.
 * `afterAt` is how the cursor's time reads in SQL (`CAST(:afterAt AS timestamptz)` for a
 * microsecond-exact string).
 */
export function andWhereTimePage<T extends ObjectLiteral>(
  query: SelectQueryBuilder<T>,
  columns: { at: string; id: string },
  page: TimePage,
  afterAt = ':afterAt',
): SelectQueryBuilder<T> {
  if (page.from) {
    query.andWhere(`${columns.at} >= :from`, { from: page.from });
  }
  if (page.to) {
    query.andWhere(`${columns.at} < :to`, { to: page.to });
  }
  if (page.after) {
    query.andWhere(`(${columns.at}, ${columns.id}) < (${afterAt}, :afterId)`, {
      afterAt: page.after.at,
      afterId: page.after.id,
    });
  }
  return query;
}

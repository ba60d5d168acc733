import { type CursorFormat, type Page, PAGE_LIMIT_DEFAULT, readCursor } from './cursors';

/** `limit` and `cursor` of a list request (PageQueryDto), both optional. */
export interface PageRequest {
  limit?: number;
  cursor?: string;
}

/** How one list reads a keyset page: its cursor, its query, and what a row becomes in the response. */
export interface KeysetList<Key, Row, Item> {
  format: CursorFormat<Key>;
  /** Up to `limit` rows strictly after `after` (from the start without it), in the list's order. */
  fetch(after: Key | undefined, limit: number): Promise<Row[]>;
  /** The sort key of a row: what its cursor encodes. */
  keyOf(row: Row): Key;
  toItem(row: Row): Item;
}

/** The page size asked for, or the default (spec → Endpoints). */
export function pageLimit(request: PageRequest): number {
  return request.limit ?? PAGE_LIMIT_DEFAULT;
}

/** A page with nothing after it: an empty list, or one answered in a single page. */
export function finalPage<Item>(data: Item[] = []): Page<Item> {
  return { data, next_cursor: null };
}

/**
 * One page of a keyset list: the rows after the request's cursor (a cursor of another format is
 * 400 `cursor`), fetched one beyond the page size: that extra row only says whether a next page
 * exists, and the next cursor is the key of the page's last row.
 */
export async function readKeysetPage<Key, Row, Item>(
  request: PageRequest,
  list: KeysetList<Key, Row, Item>,
): Promise<Page<Item>> {
  const limit = pageLimit(request);
  const after = readCursor(list.format, request.cursor);
  const rows = await list.fetch(after, limit + 1);
  return keysetPage(rows, limit, list);
}

/** The page of `rows` fetched as `limit + 1` (pure: readKeysetPage's assembly, specified alone). */
export function keysetPage<Key, Row, Item>(
  rows: readonly Row[],
  limit: number,
  list: Pick<KeysetList<Key, Row, Item>, 'format' | 'keyOf' | 'toItem'>,
): Page<Item> {
  const page = rows.slice(0, limit);
  return {
    data: page.map((row) => list.toItem(row)),
    next_cursor: rows.length > limit ? list.format.encode(list.keyOf(page[page.length - 1])) : null,
  };
}

/**
 * Opaque cursors for keyset pagination: base64url JSON of the last row's sort key. Stable while
 * rows are inserted because the next page starts strictly after that key, never at an offset.
 */
export function encodeCursor(key: Record<string, string | number>): string {
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

/**
 * Decodes a cursor; null when it is malformed (callers answer 400 with field `cursor`): not
 * base64url JSON of an object, a key missing, a part neither a string nor a finite number, or a
 * string holding a NUL character (PostgreSQL text cannot hold one: it would end as a 500).
 */
export function decodeCursor<T extends Record<string, string | number>>(
  cursor: string,
  keys: Array<keyof T>,
): T | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (typeof value !== 'object' || value === null) {
      return null;
    }
    for (const key of keys) {
      const part = (value as Record<string, unknown>)[key as string];
      const valid =
        (typeof part === 'string' && !part.includes('\u0000')) || (typeof part === 'number' && Number.isFinite(part));
      if (!valid) {
        return null;
      }
    }
    return value as T;
  } catch {
    return null;
  }
}

/** `fields.cursor` for a cursor this server did not hand out (or one that was altered). */
export const INVALID_CURSOR_MESSAGE = "must be a previous page's next_cursor, unchanged";

export const PAGE_LIMIT_DEFAULT = 50;
export const PAGE_LIMIT_MAX = 200;

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

import { ID_PREFIXES, type IdKind } from '@svc/workflow-contract/ids';
import { ValidationFailedError } from './errors';

/**
 * Cursors for keyset pagination: the last row's sort key, written as a plain string of a fixed
 * format. Stable while rows are inserted because the next page starts strictly after that key,
 * never at an offset. Clients treat them as opaque; the format is exact on purpose: every string
 * matching `pattern` (the OpenAPI document's) decodes to a valid position, and nothing else does,
 * so the document says precisely which cursors the server accepts (docs/api.md → Cursors).
 */
export interface CursorFormat<T> {
  /** Anchored; the whole accepted set. */
  readonly pattern: RegExp;
  encode(key: T): string;
  /** The key, or null when `cursor` does not match `pattern` (callers answer 400 `cursor`). */
  decode(cursor: string): T | null;
}

const ULID = '[0-9A-HJKMNP-TV-Z]{26}';

/** Lists ordered by id alone: the cursor is the last id. */
export function idCursor(kind: IdKind): CursorFormat<{ id: string }> {
  const pattern = new RegExp(`^${ID_PREFIXES[kind]}_${ULID}$`);
  return {
    pattern,
    encode: ({ id }) => id,
    decode: (cursor) => (pattern.test(cursor) ? { id: cursor } : null),
  };
}

/** Lists ordered by a name matching `namePattern` (anchored): the cursor is the last name. */
export function nameCursor(namePattern: RegExp): CursorFormat<{ name: string }> {
  return {
    pattern: namePattern,
    encode: ({ name }) => name,
    decode: (cursor) => (namePattern.test(cursor) ? { name: cursor } : null),
  };
}

/**
 * Lists ordered by (time, id): `<integer>.<id>`, the time as an integer count of some unit since
 * the epoch, matching `integer` (a regular expression bounding it, so that every match is an
 * exact JavaScript number and a representable instant).
 */
export function timeIdCursor(kind: IdKind, integer: string): CursorFormat<{ at: number; id: string }> {
  const pattern = new RegExp(`^(${integer})\\.(${ID_PREFIXES[kind]}_${ULID})$`);
  return {
    pattern,
    encode: ({ at, id }) => `${at}.${id}`,
    decode: (cursor) => {
      const match = pattern.exec(cursor);
      return match ? { at: Number(match[1]), id: match[2] } : null;
    },
  };
}

/** `fields.cursor` for a cursor this server did not hand out (or one that was altered). */
export const INVALID_CURSOR_MESSAGE = "must be a previous page's next_cursor, unchanged";

export const PAGE_LIMIT_DEFAULT = 50;
export const PAGE_LIMIT_MAX = 200;

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/** The cursor of each list ordered by id or time (secrets, ordered by name, define theirs). */
export const CURSORS = {
  jobs: idCursor('job'),
  apiKeys: idCursor('apiKey'),
  alertChannels: idCursor('channel'),
  alertRules: idCursor('rule'),
  /** `scheduled_at` in milliseconds (15 digits reach past year 30000). */
  runs: timeIdCursor('run', '[0-9]{1,15}'),
  /** `created_at` in microseconds, exact: below 9e15 (year 2255), under 2^53. */
  auditLog: timeIdCursor('audit', '[0-8]?[0-9]{1,15}'),
};

/** The key of `cursor` (undefined without one); a cursor of another format is 400 `cursor`. */
export function readCursor<T>(format: CursorFormat<T>, cursor: string | undefined): T | undefined {
  if (cursor === undefined) {
    return undefined;
  }
  const key = format.decode(cursor);
  if (!key) {
    throw new ValidationFailedError({ cursor: 'invalid cursor: pass the next_cursor of the previous page' });
  }
  return key;
}

/** `2026-01-02T03:04:05.123456Z` (UTC, microseconds) → microseconds since the epoch, exactly. */
export function microsOfTimestamp(text: string): number {
  return Date.parse(`${text.slice(0, 23)}Z`) * 1000 + Number(text.slice(23, 26));
}

/** Microseconds since the epoch → `2026-01-02T03:04:05.123456Z`, exactly. */
export function timestampOfMicros(micros: number): string {
  const ms = Math.floor(micros / 1000);
  return `${new Date(ms).toISOString().slice(0, 23)}${String(micros - ms * 1000).padStart(3, '0')}Z`;
}

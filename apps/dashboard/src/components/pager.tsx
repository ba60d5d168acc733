import { useState } from 'preact/hooks';

/**
 * Cursor paging of a list page (the API's `next_cursor`): the cursors of the pages walked so far,
 * so "back" returns to the page before; `cursor` is the shown page's (null: the first).
 */
export function useCursorPages() {
  const [cursors, setCursors] = useState<Array<string | null>>([null]);
  return {
    cursor: cursors[cursors.length - 1],
    hasPrevious: cursors.length > 1,
    previous: () => setCursors(cursors.slice(0, -1)),
    next: (cursor: string) => setCursors([...cursors, cursor]),
    /** Back to the first page (the filters changed). */
    reset: () => setCursors([null]),
  };
}

export type CursorPages = ReturnType<typeof useCursorPages>;

/** The buttons under a paged list: back to the page before, on to `nextCursor`'s (when there is one). */
export function Pager({
  pages,
  nextCursor,
  previousLabel,
  nextLabel,
}: {
  pages: CursorPages;
  nextCursor: string | null | undefined;
  previousLabel: string;
  nextLabel: string;
}) {
  return (
    <div class="pager">
      {pages.hasPrevious && (
        <button type="button" onClick={pages.previous}>
          {previousLabel}
        </button>
      )}
      {nextCursor && (
        <button type="button" onClick={() => pages.next(nextCursor)}>
          {nextLabel}
        </button>
      )}
    </div>
  );
}

import { CURSORS } from './cursors';
import { ValidationFailedError } from './errors';
import { finalPage, keysetPage, pageLimit, readKeysetPage } from './keyset-page';

interface Row {
  id: string;
  name: string;
}
const ID = (n: number) => `job_01ARZ3NDEKTSV4RRFFQ69G5F${String(n).padStart(2, '0')}`;
const rows = (count: number): Row[] => Array.from({ length: count }, (_, i) => ({ id: ID(i), name: `job ${i}` }));
const jobs = { format: CURSORS.jobs, keyOf: ({ id }: Row) => ({ id }), toItem: (row: Row) => row.name };

describe('keyset pages', () => {
  it('should cut the extra row and point the next cursor at the last row of the page', () => {
    expect(keysetPage(rows(4), 3, jobs)).toEqual({ data: ['job 0', 'job 1', 'job 2'], next_cursor: ID(2) });
  });

  it('should end the list when no more than the page size came back', () => {
    expect(keysetPage(rows(3), 3, jobs)).toEqual({ data: ['job 0', 'job 1', 'job 2'], next_cursor: null });
    expect(keysetPage([], 3, jobs)).toEqual({ data: [], next_cursor: null });
    expect(finalPage()).toEqual({ data: [], next_cursor: null });
  });

  it('should fetch one row beyond the page, after the decoded cursor, with the default size without a limit', async () => {
    const fetch = jest.fn(async (_after: { id: string } | undefined, limit: number) => rows(limit));
    expect(pageLimit({})).toBe(50);
    const first = await readKeysetPage({}, { ...jobs, fetch });
    expect(fetch).toHaveBeenLastCalledWith(undefined, 51);
    expect(first.data).toHaveLength(50);
    await readKeysetPage({ limit: 2, cursor: first.next_cursor! }, { ...jobs, fetch });
    expect(fetch).toHaveBeenLastCalledWith({ id: ID(49) }, 3);
  });

  it('should refuse a cursor of another list as 400 cursor, before fetching', async () => {
    const fetch = jest.fn(async () => rows(1));
    await expect(readKeysetPage({ cursor: 'run_01ARZ3NDEKTSV4RRFFQ69G5FAV' }, { ...jobs, fetch })).rejects.toThrow(
      ValidationFailedError,
    );
    expect(fetch).not.toHaveBeenCalled();
  });
});

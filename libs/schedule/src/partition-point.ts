/**
 * Binary search: the first index in [0, length) where `before(i)` is false, `length` when it is
 * true everywhere. `before` must be true for a prefix of the indexes and false after it.
 */
export function partitionPoint(length: number, before: (index: number) => boolean): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (before(mid)) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

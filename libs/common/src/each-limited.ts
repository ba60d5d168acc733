/**
 * Runs `fn` over `items` with at most `limit` calls in flight, in order of start. Every call
 * started is awaited; then the first failure, if any, is thrown (the caller's retry redoes what
 * is idempotent, as a sequential loop would have).
 */
export async function eachLimited<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | null = null;
  const lane = async (): Promise<void> => {
    while (failure === null && next < items.length) {
      const index = next++;
      try {
        await fn(items[index], index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
  if (failure !== null) {
    throw (failure as { error: unknown }).error;
  }
}

import { purgeInBatches } from './batched-purge';

/** A table holding `left` expired rows; each statement removes up to its batch. */
function table(left: number) {
  const calls: number[] = [];
  const purgeBatch = async (batch: number) => {
    calls.push(batch);
    const removed = Math.min(left, batch);
    left -= removed;
    return removed;
  };
  return { calls, purgeBatch };
}

describe('purgeInBatches', () => {
  it('should repeat full batches and stop at the first short one', async () => {
    const { calls, purgeBatch } = table(12);
    expect(await purgeInBatches(purgeBatch, { batch: 5 })).toEqual({ count: 12, batches: 3, truncated: false });
    expect(calls).toEqual([5, 5, 5]);
  });

  it('should run one statement when nothing is due, and one more after an exact multiple', async () => {
    expect(await purgeInBatches(table(0).purgeBatch, { batch: 5 })).toEqual({ count: 0, batches: 1, truncated: false });
    expect(await purgeInBatches(table(10).purgeBatch, { batch: 5 })).toEqual({
      count: 10,
      batches: 3,
      truncated: false,
    });
  });

  it('should stop after maxBatches statements and say rows may be left', async () => {
    const { calls, purgeBatch } = table(100);
    expect(await purgeInBatches(purgeBatch, { batch: 10, maxBatches: 3 })).toEqual({
      count: 30,
      batches: 3,
      truncated: true,
    });
    expect(await purgeInBatches(purgeBatch, { batch: 10, maxBatches: 0 })).toEqual({
      count: 0,
      batches: 0,
      truncated: true,
    });
    expect(calls).toHaveLength(3);
  });

  it('should await beforeBatch before each statement with its index', async () => {
    const order: string[] = [];
    const { purgeBatch } = table(15);
    await purgeInBatches(
      async (batch) => {
        order.push('statement');
        return purgeBatch(batch);
      },
      { batch: 10, beforeBatch: async (index) => void order.push(`before ${index}`) },
    );
    expect(order).toEqual(['before 0', 'statement', 'before 1', 'statement']);
  });
});

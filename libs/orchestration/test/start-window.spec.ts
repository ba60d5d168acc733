import { newId } from '@svc/workflow-contract/ids';
import { shortestGapMs, startOffsetMs, windowPosition } from '../src/start-window';

describe('startOffsetMs (issue 46: a job’s stable offset inside its start window)', () => {
  const ids = Array.from({ length: 1_000 }, (_, i) => newId('job', Date.UTC(2026, 10, 28, 5) + Math.floor(i / 10)));

  it('is 0 without a window', () => {
    expect(startOffsetMs(ids[0], null)).toBe(0);
    expect(startOffsetMs(ids[0], undefined)).toBe(0);
    expect(startOffsetMs(ids[0], 0)).toBe(0);
  });

  it('is the same for the same job every time (derived from its id alone)', () => {
    for (const id of ids.slice(0, 50)) {
      expect(startOffsetMs(id, 60_000)).toBe(startOffsetMs(id, 60_000));
      expect(startOffsetMs(id, 60_000)).toBe(Math.floor(windowPosition(id) * 60_000));
    }
    // a fixed value: a release that changed the hash would move every job's offset
    expect(startOffsetMs('job_01KB4ZQ9XJ8R3YV2M6T0PNA5CW', 300_000)).toBe(42_666);
  });

  it('lies in [0, window) and is a whole number of milliseconds', () => {
    for (const window of [1, 1_000, 60_000, 86_400_000]) {
      for (const id of ids) {
        const offset = startOffsetMs(id, window);
        expect(Number.isInteger(offset)).toBe(true);
        expect(offset).toBeGreaterThanOrEqual(0);
        expect(offset).toBeLessThan(window);
      }
    }
  });

  it('spreads jobs minted in the same milliseconds evenly over the window', () => {
    // 1 000 ids, 10 per millisecond (ULIDs that differ only in their random part): 10 buckets
    const buckets = new Array<number>(10).fill(0);
    for (const id of ids) {
      buckets[Math.floor(startOffsetMs(id, 60_000) / 6_000)] += 1;
    }
    for (const count of buckets) {
      expect(count).toBeGreaterThan(60); // 100 expected; a chi-square of far below 1% chance
      expect(count).toBeLessThan(140);
    }
    expect(new Set(ids.map((id) => startOffsetMs(id, 60_000))).size).toBeGreaterThan(980);
  });
});

describe('shortestGapMs', () => {
  it('is the shortest gap between successive fire times, null with fewer than two', () => {
    expect(shortestGapMs([])).toBeNull();
    expect(shortestGapMs([new Date(0)])).toBeNull();
    expect(shortestGapMs([new Date(0), new Date(60_000), new Date(90_000), new Date(200_000)])).toBe(30_000);
  });
});

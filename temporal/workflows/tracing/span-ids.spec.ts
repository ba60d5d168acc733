import { seededSpanIds } from './span-ids';

describe('seededSpanIds', () => {
  it('should give W3C-shaped ids: 32 and 16 lower-case hex digits, never all zeros', () => {
    const ids = seededSpanIds('2d3b2c9e-0a3f-4c4e-9b1a-5f0e7d6c1b2a');
    for (let i = 0; i < 200; i++) {
      expect(ids.generateTraceId()).toMatch(/^(?!0+$)[0-9a-f]{32}$/);
      expect(ids.generateSpanId()).toMatch(/^(?!0+$)[0-9a-f]{16}$/);
    }
  });

  it('should repeat the same sequence for the same run id (replay) and differ between runs', () => {
    const take = (seed: string) => {
      const ids = seededSpanIds(seed);
      return [ids.generateTraceId(), ids.generateSpanId(), ids.generateSpanId()];
    };
    expect(take('run-a')).toEqual(take('run-a'));
    expect(take('run-a')[0]).not.toBe(take('run-b')[0]);
    const spans = new Set(Array.from({ length: 1000 }, () => 0).map((_, i) => take(`run-${i}`)[1]));
    expect(spans.size).toBe(1000);
  });

  it('should never draw on Math.random (the workflow PRNG that run ids come from)', () => {
    const random = jest.spyOn(Math, 'random');
    try {
      const ids = seededSpanIds('run-a');
      ids.generateTraceId();
      ids.generateSpanId();
      expect(random).not.toHaveBeenCalled();
    } finally {
      random.mockRestore();
    }
  });
});

import { ServiceHealthTracker } from './service-health';

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));

describe('ServiceHealthTracker', () => {
  const tracker = () => new ServiceHealthTracker({ degradedAfterMs: 10_000, cooldownMs: 60_000 });

  it('should tell degraded once a dependency failed for degradedAfterMs, and recovered at its first success', () => {
    const t = tracker();
    expect(t.observe('postgres', 'refused', at(0))).toBeNull();
    expect(t.observe('postgres', 'refused', at(5))).toBeNull();
    expect(t.isDegraded('postgres')).toBe(false);
    expect(t.observe('postgres', 'reset', at(10))).toEqual({
      dependency: 'postgres',
      kind: 'degraded',
      since: at(0),
      at: at(10),
      cause: 'reset',
    });
    expect(t.isDegraded('postgres')).toBe(true);
    expect(t.observe('postgres', 'reset', at(15))).toBeNull();
    expect(t.observe('postgres', null, at(20))).toEqual({
      dependency: 'postgres',
      kind: 'recovered',
      since: at(0),
      at: at(20),
      cause: 'reset',
    });
    expect(t.isDegraded('postgres')).toBe(false);
  });

  it('should tell nothing of a failure shorter than degradedAfterMs', () => {
    const t = tracker();
    expect(t.observe('temporal', 'down', at(0))).toBeNull();
    expect(t.observe('temporal', null, at(9))).toBeNull();
    expect(t.observe('temporal', 'down', at(12))).toBeNull();
    expect(t.observe('temporal', 'down', at(21))).toBeNull();
    expect(t.observe('temporal', 'down', at(22))?.since).toEqual(at(12));
  });

  it('should tell a flapping dependency once per cooldown, while its state follows every flap', () => {
    const t = tracker();
    t.observe('worker_polling', 'none', at(0));
    expect(t.observe('worker_polling', 'none', at(10))?.kind).toBe('degraded');
    expect(t.observe('worker_polling', null, at(11))?.kind).toBe('recovered');
    t.observe('worker_polling', 'none', at(12));
    expect(t.observe('worker_polling', 'none', at(22))).toBeNull(); // 12 s after the last told: cooldown
    expect(t.isDegraded('worker_polling')).toBe(true);
    expect(t.observe('worker_polling', null, at(23))).toBeNull(); // its degradation was not told
    t.observe('worker_polling', 'none', at(70));
    expect(t.observe('worker_polling', 'none', at(80))?.kind).toBe('degraded');
  });

  it('should keep dependencies apart', () => {
    const t = tracker();
    t.observe('postgres', 'down', at(0));
    t.observe('temporal', null, at(0));
    expect(t.observe('postgres', 'down', at(10))?.kind).toBe('degraded');
    expect(t.isDegraded('temporal')).toBe(false);
  });
});

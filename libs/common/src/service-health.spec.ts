import { ServiceAlertOutbox, ServiceHealthTracker, type ServiceHealthTransition } from './service-health';

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));

describe('ServiceHealthTracker', () => {
  const tracker = () => new ServiceHealthTracker({ degradedAfterMs: 10_000 });

  it('should tell degraded once a dependency failed for degradedAfterMs, and recovered at its first success', () => {
    const t = tracker();
    expect(t.observe('postgres', 'refused', at(0))).toBeNull();
    expect(t.observe('postgres', 'refused', at(5))).toBeNull();
    expect(t.isDegraded('postgres')).toBe(false);
    expect(t.observe('postgres', 'reset', at(10))).toEqual({
      dependency: 'postgres',
      kind: 'degraded',
      since: at(0),
      degradedAt: at(10),
      at: at(10),
      cause: 'reset',
    });
    expect(t.isDegraded('postgres')).toBe(true);
    expect(t.observe('postgres', 'reset', at(15))).toBeNull();
    expect(t.observe('postgres', 'reset', at(600))).toBeNull();
    expect(t.observe('postgres', null, at(620))).toEqual({
      dependency: 'postgres',
      kind: 'recovered',
      since: at(0),
      degradedAt: at(10),
      at: at(620),
      cause: 'reset',
    });
    expect(t.isDegraded('postgres')).toBe(false);
    expect(t.observe('postgres', null, at(625))).toBeNull();
  });

  it('should tell nothing of a failure shorter than degradedAfterMs', () => {
    const t = tracker();
    expect(t.observe('temporal', 'down', at(0))).toBeNull();
    expect(t.observe('temporal', null, at(9))).toBeNull();
    expect(t.observe('temporal', 'down', at(12))).toBeNull();
    expect(t.observe('temporal', 'down', at(21))).toBeNull();
    expect(t.observe('temporal', 'down', at(22))?.since).toEqual(at(12));
  });

  it('should tell every flap of a flapping dependency (the rules cooldowns hold back the repeats)', () => {
    const t = tracker();
    t.observe('worker_polling', 'none', at(0));
    expect(t.observe('worker_polling', 'none', at(10))?.kind).toBe('degraded');
    expect(t.observe('worker_polling', null, at(11))?.kind).toBe('recovered');
    t.observe('worker_polling', 'none', at(12));
    expect(t.observe('worker_polling', 'none', at(22))?.kind).toBe('degraded');
    expect(t.isDegraded('worker_polling')).toBe(true);
    expect(t.observe('worker_polling', null, at(23))?.since).toEqual(at(12));
  });

  it('should keep dependencies apart', () => {
    const t = tracker();
    t.observe('postgres', 'down', at(0));
    t.observe('temporal', null, at(0));
    expect(t.observe('postgres', 'down', at(10))?.kind).toBe('degraded');
    expect(t.isDegraded('temporal')).toBe(false);
  });

  it('should count schedule lag as degraded after its own duration (alerts.service_lag_after)', () => {
    const t = new ServiceHealthTracker({
      degradedAfterMs: { temporal: 10_000, postgres: 10_000, worker_polling: 10_000, schedule_lag: 120_000 },
    });
    t.observe('schedule_lag', 'waited 90 s', at(0));
    t.observe('temporal', 'down', at(0));
    expect(t.observe('temporal', 'down', at(10))?.kind).toBe('degraded');
    expect(t.observe('schedule_lag', 'waited 100 s', at(60))).toBeNull();
    expect(t.observe('schedule_lag', 'waited 110 s', at(119))).toBeNull();
    expect(t.observe('schedule_lag', 'waited 120 s', at(120))).toMatchObject({
      kind: 'degraded',
      since: at(0),
      cause: 'waited 120 s',
    });
  });
});

describe('ServiceAlertOutbox', () => {
  const degraded = (dependency: 'postgres' | 'temporal', since: number, a: number): ServiceHealthTransition => ({
    dependency,
    kind: 'degraded',
    since: at(since),
    degradedAt: at(a),
    at: at(a),
    cause: 'down',
  });
  const recovered = (dependency: 'postgres' | 'temporal', since: number, d: number, a: number) => ({
    ...degraded(dependency, since, d),
    kind: 'recovered' as const,
    at: at(a),
  });

  it('should keep transitions in order until they are recorded', () => {
    const outbox = new ServiceAlertOutbox();
    outbox.add(degraded('temporal', 0, 30));
    expect(outbox.pending()).toEqual([
      {
        type: 'service.degraded',
        dependency: 'temporal',
        cause: 'down',
        beganAt: at(0),
        degradedAt: at(30),
        endedAt: null,
        at: at(30),
      },
    ]);
    outbox.recorded(1);
    expect(outbox.size).toBe(0);
    outbox.add(recovered('temporal', 0, 30, 300));
    expect(outbox.pending()).toEqual([expect.objectContaining({ type: 'service.recovered', endedAt: at(300) })]);
  });

  it('should give a degradation still waiting (PostgreSQL was out) the time it ended once it recovers', () => {
    const outbox = new ServiceAlertOutbox();
    outbox.add(degraded('postgres', 0, 30));
    outbox.add(degraded('temporal', 5, 35));
    outbox.add(recovered('postgres', 0, 30, 180));
    expect(outbox.pending().map((a) => [a.type, a.dependency, a.beganAt, a.endedAt])).toEqual([
      ['service.degraded', 'postgres', at(0), at(180)],
      ['service.degraded', 'temporal', at(5), null],
      ['service.recovered', 'postgres', at(0), at(180)],
    ]);
    outbox.recorded(2);
    expect(outbox.pending().map((a) => a.type)).toEqual(['service.recovered']);
  });

  it('should keep at most its capacity, dropping the oldest', () => {
    const outbox = new ServiceAlertOutbox(2);
    outbox.add(degraded('postgres', 0, 30));
    outbox.add(recovered('postgres', 0, 30, 40));
    outbox.add(degraded('postgres', 50, 80));
    expect(outbox.size).toBe(2);
    expect(outbox.dropped).toBe(1);
    expect(outbox.pending()[0].type).toBe('service.recovered');
  });
});

import {
  type PendingServiceAlert,
  type ServiceAlertJournal,
  ServiceAlertOutbox,
  ServiceHealthTracker,
  type ServiceHealthTransition,
} from './service-health';

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));

/** A transition of `dependency`, failing since second `since`, degraded at `degradedAt`, told at `told`. */
function transition(
  kind: ServiceHealthTransition['kind'],
  dependency: ServiceHealthTransition['dependency'],
  since: number,
  degradedAt: number,
  told: number,
  cause: string,
): ServiceHealthTransition {
  return { dependency, kind, since: at(since), degradedAt: at(degradedAt), at: at(told), cause };
}

describe('ServiceHealthTracker', () => {
  const tracker = () => new ServiceHealthTracker({ degradedAfterMs: 10_000 });

  it('should tell degraded once a dependency failed for degradedAfterMs, and recovered at its first success', () => {
    const t = tracker();
    expect(t.observe('postgres', 'refused', at(0))).toBeNull();
    expect(t.observe('postgres', 'refused', at(5))).toBeNull();
    expect(t.isDegraded('postgres')).toBe(false);
    expect(t.observe('postgres', 'reset', at(10))).toEqual(transition('degraded', 'postgres', 0, 10, 10, 'reset'));
    expect(t.isDegraded('postgres')).toBe(true);
    expect(t.observe('postgres', 'reset', at(15))).toBeNull();
    expect(t.observe('postgres', 'reset', at(600))).toBeNull();
    expect(t.observe('postgres', null, at(620))).toEqual(transition('recovered', 'postgres', 0, 10, 620, 'reset'));
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

  it('should take up degradations told before a restart: no second degraded, and their recovery with the old start', () => {
    const before = tracker();
    before.observe('postgres', 'refused', at(0));
    before.observe('postgres', 'refused', at(10));
    before.observe('temporal', 'down', at(5));
    expect(before.degradations()).toEqual([
      { dependency: 'postgres', since: at(0), degradedAt: at(10), cause: 'refused' },
    ]);
    const after = tracker();
    after.restore(before.degradations());
    expect(after.isDegraded('postgres')).toBe(true);
    expect(after.observe('postgres', 'refused', at(100))).toBeNull();
    expect(after.observe('postgres', null, at(200))).toEqual(
      transition('recovered', 'postgres', 0, 10, 200, 'refused'),
    );
    expect(after.degradations()).toEqual([]);
  });
});

describe('ServiceAlertOutbox', () => {
  const degraded = (dependency: 'postgres' | 'temporal', since: number, a: number) =>
    transition('degraded', dependency, since, a, a, 'down');
  const recovered = (dependency: 'postgres' | 'temporal', since: number, d: number, a: number) =>
    transition('recovered', dependency, since, d, a, 'down');

  it('should keep transitions in order until they are recorded', () => {
    const outbox = new ServiceAlertOutbox();
    outbox.add(degraded('temporal', 0, 30));
    expect(outbox.pending()).toEqual([
      {
        id: `service.degraded:temporal:${at(0).toISOString()}`,
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

  /** A journal in memory that remembers each call, as the worker's file journal would see them. */
  function journal() {
    const lines: PendingServiceAlert[] = [];
    const calls: string[] = [];
    const j: ServiceAlertJournal = {
      append: (alert) => {
        calls.push(`append ${alert.type}`);
        lines.push({ ...alert });
      },
      replace: (alerts) => {
        calls.push(`replace ${alerts.length}`);
        lines.splice(0, lines.length, ...alerts.map((a) => ({ ...a })));
      },
    };
    return { j, lines, calls };
  }

  it('should append each transition to its journal before anything else, and rewrite it once some are recorded', () => {
    const { j, lines, calls } = journal();
    const outbox = new ServiceAlertOutbox(100, j);
    outbox.add(degraded('postgres', 0, 30));
    outbox.add(recovered('postgres', 0, 30, 180));
    expect(calls).toEqual(['append service.degraded', 'append service.recovered']);
    // The file keeps the degradation as it was appended: its end comes with the recovery's line.
    expect(lines.map((a) => [a.type, a.endedAt])).toEqual([
      ['service.degraded', null],
      ['service.recovered', at(180)],
    ]);
    outbox.recorded(1);
    expect(calls.at(-1)).toBe('replace 1');
    expect(lines.map((a) => a.type)).toEqual(['service.recovered']);
  });

  it('should take up a journal in order (a recovery ends the degradation before it) and leave repeated ids out', () => {
    const { j, lines } = journal();
    const first = new ServiceAlertOutbox(100, j);
    first.add(degraded('postgres', 0, 30));
    first.add(recovered('postgres', 0, 30, 180));
    const kept = [...lines, lines[0]];
    const second = new ServiceAlertOutbox(100, j);
    second.restore(kept);
    expect(second.pending().map((a) => [a.type, a.beganAt, a.endedAt])).toEqual([
      ['service.degraded', at(0), at(180)],
      ['service.recovered', at(0), at(180)],
    ]);
    // Taking up writes nothing.
    expect(lines).toHaveLength(2);
  });

  it('should rewrite its journal when it drops the oldest for capacity', () => {
    const { j, lines, calls } = journal();
    const outbox = new ServiceAlertOutbox(2, j);
    outbox.add(degraded('postgres', 0, 30));
    outbox.add(recovered('postgres', 0, 30, 40));
    outbox.add(degraded('postgres', 50, 80));
    expect(calls.at(-1)).toBe('replace 2');
    expect(lines.map((a) => a.beganAt)).toEqual([at(0), at(50)]);
  });
});

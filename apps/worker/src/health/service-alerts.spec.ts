import { ServiceAlertOutbox } from '@svc/common/service-health';
import { ServiceAlerts } from './service-alerts';

const at = (s: number) => new Date(Date.UTC(2026, 10, 28, 10, 0, s));

describe('ServiceAlerts', () => {
  function setup(failing: () => boolean) {
    const recorded: Array<{ type: string; at: Date; details: unknown }> = [];
    const dispatched: string[][] = [];
    const alerts = new ServiceAlerts({
      events: {
        recordServiceEvent: async (type, when, details) => {
          if (failing()) {
            throw new Error('connect ECONNREFUSED');
          }
          recorded.push({ type, at: when, details });
          return [`evt_${recorded.length}`];
        },
      },
      dispatch: async (ids) => {
        dispatched.push(ids);
      },
      observedBy: 'host:1',
      withTimeout: (p) => p,
    });
    return { alerts, recorded, dispatched };
  }

  it('should keep transitions while recording fails and record them, with the end, once it works', async () => {
    let down = true;
    const { alerts, recorded, dispatched } = setup(() => down);
    const outbox = new ServiceAlertOutbox();
    const since = at(0);
    outbox.add({ dependency: 'postgres', kind: 'degraded', since, degradedAt: at(30), at: at(30), cause: 'refused' });
    expect(await alerts.flush(outbox, true)).toEqual({ recorded: 0, eventIds: [], error: 'connect ECONNREFUSED' });
    expect(outbox.size).toBe(1);
    outbox.add({ dependency: 'postgres', kind: 'recovered', since, degradedAt: at(30), at: at(180), cause: 'refused' });
    down = false;
    expect(await alerts.flush(outbox, true)).toEqual({ recorded: 2, eventIds: ['evt_1', 'evt_2'], error: null });
    expect(outbox.size).toBe(0);
    expect(recorded.map((r) => [r.type, r.at])).toEqual([
      ['service.degraded', at(30)],
      ['service.recovered', at(180)],
    ]);
    expect(recorded[0].details).toEqual({
      service: {
        dependency: 'postgres',
        // The driver's words (hosts, ports) stay in the log; tenants read what is out.
        cause: 'PostgreSQL is unreachable or read-only',
        began_at: at(0).toISOString(),
        degraded_at: at(30).toISOString(),
        ended_at: at(180).toISOString(),
        duration_ms: 180_000,
        observed_by: 'host:1',
      },
    });
    expect(dispatched).toEqual([['evt_1', 'evt_2']]);
  });

  it('should leave starting the workflows to the alert sweep while Temporal is out', async () => {
    const { alerts, dispatched } = setup(() => false);
    const outbox = new ServiceAlertOutbox();
    outbox.add({ dependency: 'temporal', kind: 'degraded', since: at(0), degradedAt: at(30), at: at(30), cause: 'x' });
    expect((await alerts.flush(outbox, false)).recorded).toBe(1);
    expect(dispatched).toEqual([]);
  });
});

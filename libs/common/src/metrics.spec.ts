import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createApiMetrics, createWorkerMetrics, recordRunClosed } from './metrics';

const ROOT = resolve(__dirname, '../../..');

function ownMetricNames(): string[] {
  const api = createApiMetrics();
  const worker = createWorkerMetrics({
    taskQueue: 'q',
    readBacklog: async () => ({ count: 0, oldestSeconds: 0 }),
    readDestinations: async () => [],
  });
  return [...api.registry.getMetricsAsArray(), ...worker.registry.getMetricsAsArray()]
    .map((metric) => metric.name)
    .filter((name) => !/^svc_(api|worker)_/.test(name));
}

describe('metrics', () => {
  it('should list every metric in docs/operations.md', () => {
    const doc = readFileSync(resolve(ROOT, 'docs/operations.md'), 'utf8');
    const names = ownMetricNames();
    expect(names.length).toBeGreaterThanOrEqual(9);
    expect(names.filter((name) => !doc.includes(`\`${name}\``))).toEqual([]);
  });

  it('should chart only metrics that exist in the shipped Grafana dashboard', () => {
    const dashboard = JSON.parse(readFileSync(resolve(ROOT, 'deploy/grafana/svc-dashboard.json'), 'utf8')) as {
      panels: Array<{ targets: Array<{ expr: string }> }>;
    };
    const names = new Set(ownMetricNames());
    const used = dashboard.panels
      .flatMap((panel) => panel.targets.map((target) => target.expr))
      .flatMap((expr) => expr.match(/svc_[a-z_]+/g) ?? [])
      .map((name) => name.replace(/_(bucket|count|sum)$/, ''));
    expect(used.length).toBeGreaterThan(0);
    expect(used.filter((name) => !names.has(name))).toEqual([]);
  });

  it('should count a closed run once with its lags in seconds', async () => {
    const metrics = createWorkerMetrics({ taskQueue: 'q', readBacklog: async () => ({ count: 3, oldestSeconds: 7 }) });
    recordRunClosed(metrics, {
      status: 'succeeded',
      trigger: 'schedule',
      skipReason: null,
      scheduledAt: new Date('2026-01-01T00:00:00Z'),
      startedAt: new Date('2026-01-01T00:00:00.250Z'),
      finishedAt: new Date('2026-01-01T00:00:01Z'),
    });
    const text = await metrics.registry.metrics();
    expect(text).toContain('svc_runs_finished_total{status="succeeded",trigger="schedule",skip_reason=""} 1');
    expect(text).toContain('svc_run_start_lag_seconds_sum{trigger="schedule"} 0.25');
    expect(text).toContain('svc_run_end_to_end_seconds_sum{status="succeeded"} 1');
    expect(text).toContain('svc_runs_backlog{task_queue="q"} 3');
    expect(text).toContain('svc_runs_backlog_oldest_seconds{task_queue="q"} 7');
  });

  it('should show each limited destination in flight, waiting and held until (issue 46), and only those', async () => {
    let states = [
      { destination: 'hooks.example.com:443', inFlight: 3, waiting: 12, heldUntilSeconds: 0 },
      { destination: 'billing-api', inFlight: 0, waiting: 2, heldUntilSeconds: 1_900_000_000 },
    ];
    const metrics = createWorkerMetrics({
      taskQueue: 'q',
      readBacklog: async () => ({ count: 0, oldestSeconds: 0 }),
      readDestinations: async () => states,
    });
    metrics.destinationWaits.inc({ reason: 'destination_limit' });
    const text = await metrics.registry.metrics();
    expect(text).toContain('svc_destination_in_flight{destination="hooks.example.com:443"} 3');
    expect(text).toContain('svc_destination_waiting{destination="hooks.example.com:443"} 12');
    expect(text).toContain('svc_destination_held_until_seconds{destination="billing-api"} 1900000000');
    expect(text).toContain('svc_destination_waits_total{reason="destination_limit"} 1');
    // A destination whose limits were removed leaves no series behind (read at most once a second).
    states = [states[0]!];
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await metrics.registry.metrics()).not.toContain('billing-api');
  });
});

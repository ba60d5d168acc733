import { createServer } from 'node:net';
import { waitFor } from '../utils/receiver';
import { startStack, useStack, useStackAndReceiver } from '../utils/stack';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Prometheus text exposition: the value of one series, or null when absent. */
function seriesValue(text: string, name: string, labels: Record<string, string>): number | null {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    const match = /^([a-z_:]+)\{([^}]*)\} (\S+)$/.exec(line);
    if (match && match[1] === name && wanted.every((pair) => match[2].split(',').includes(pair))) {
      return Number(match[3]);
    }
  }
  return null;
}

/** `GET /metrics` (issue #13): Prometheus text with HTTP metrics labelled by route pattern. */
describe('metrics', () => {
  const e2e = useStack({ worker: false });

  it('should count requests by method, route pattern and status, without ids in labels', async () => {
    const { stack, api } = e2e;
    const created = await api('POST', '/api/v1/jobs', {
      name: 'metrics',
      schedule: { expr: '0 0 12 ? * MON' },
      sink: { kind: 'webhook', config: { url: 'http://127.0.0.1:9/unused' } },
    });
    expect(created.status).toBe(201);
    await api('GET', `/api/v1/jobs/${created.body.id}`);
    await api('GET', '/api/v1/jobs/job_01JUNKNOWN000000000000000');

    const response = await fetch(`${stack.baseUrl}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await response.text();
    expect(seriesValue(text, 'svc_http_requests_total', { method: 'POST', route: '/api/v1/jobs', status: '201' })).toBe(
      1,
    );
    expect(
      seriesValue(text, 'svc_http_requests_total', { method: 'GET', route: '/api/v1/jobs/:id', status: '200' }),
    ).toBe(1);
    expect(
      seriesValue(text, 'svc_http_requests_total', { method: 'GET', route: '/api/v1/jobs/:id', status: '404' }),
    ).toBe(1);
    expect(
      seriesValue(text, 'svc_http_request_duration_seconds_count', {
        method: 'POST',
        route: '/api/v1/jobs',
        status: '201',
      }),
    ).toBe(1);
    expect(text).not.toContain(created.body.id);
    expect(text).toContain('svc_api_process_cpu_seconds_total');
  });
});

/** The worker's own `/metrics` (`metrics.worker_port`): occurrences, runs, attempts, lags, backlog. */
describe('worker metrics', () => {
  let port: number;
  const e2e = useStackAndReceiver(async () => {
    port = await freePort();
    return { config: { metrics: { worker_port: port, temporal_sdk_port: 0 } } };
  });

  it('should count occurrences, attempts and finished runs and observe their lags', async () => {
    const { stack, receiver, api } = e2e;
    const job = await api('POST', '/api/v1/jobs', {
      name: 'metrics worker',
      schedule: { expr: 'every 1 second' },
      sink: { kind: 'webhook', config: { url: `${receiver.url}/metrics` } },
    });
    expect(job.status).toBe(201);
    await waitFor(async () => {
      const runs = await api('GET', `/api/v1/jobs/${job.body.id}/runs?status=succeeded`);
      return runs.body.data.length >= 2;
    }, 20_000);
    await api('POST', `/api/v1/jobs/${job.body.id}/pause`);

    const response = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(seriesValue(text, 'svc_occurrences_total', { action: 'start' })).toBeGreaterThanOrEqual(2);
    expect(seriesValue(text, 'svc_attempts_total', { outcome: 'success' })).toBeGreaterThanOrEqual(2);
    expect(
      seriesValue(text, 'svc_runs_finished_total', { status: 'succeeded', trigger: 'schedule', skip_reason: '' }),
    ).toBeGreaterThanOrEqual(2);
    expect(seriesValue(text, 'svc_run_start_lag_seconds_count', { trigger: 'schedule' })).toBeGreaterThanOrEqual(2);
    expect(seriesValue(text, 'svc_run_end_to_end_seconds_count', { status: 'succeeded' })).toBeGreaterThanOrEqual(2);
    const queue = stack.config.temporal.task_queue;
    expect(seriesValue(text, 'svc_runs_backlog', { task_queue: queue })).not.toBeNull();
    expect(seriesValue(text, 'svc_runs_backlog_oldest_seconds', { task_queue: queue })).not.toBeNull();
    expect(text).not.toContain(job.body.id);
    expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
  }, 30_000);
});

/**
 * Who may read `/metrics` (issue 22; docs/operations.md → Metrics access): without
 * `metrics.token`, loopback peers of a loopback-only API (behind a trusted proxy every client
 * may arrive from loopback, so there nobody is served: issue 41, metrics-proxy.e2e-spec.ts); with
 * a token, its bearers only — on the API and on the worker's own listener alike.
 */
describe('metrics access', () => {
  it('should serve metrics to loopback peers of a loopback-only API only when no token is set', async () => {
    const stack = await startStack({ worker: false });
    const proxied = await startStack({ worker: false, config: { http: { trust_proxy: true } } });
    try {
      expect((await fetch(`${stack.baseUrl}/metrics`)).status).toBe(200);
      for (const headers of [{}, { 'x-forwarded-for': '203.0.113.7' }]) {
        const behindProxy = await fetch(`${proxied.baseUrl}/metrics`, { headers });
        expect(behindProxy.status).toBe(403);
        expect(((await behindProxy.json()) as { error: { code: string } }).error.code).toBe('forbidden');
      }
    } finally {
      await stack.stop();
      await proxied.stop();
    }
  });

  it('should require the bearer token when one is set, on the API and the worker', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as { port: number };
        probe.close(() => resolve(free));
      });
    });
    const token = 'metrics-test-token-0123456789';
    const stack = await startStack({ config: { metrics: { token, worker_port: port, temporal_sdk_port: 0 } } });
    try {
      for (const url of [`${stack.baseUrl}/metrics`, `http://127.0.0.1:${port}/metrics`]) {
        expect((await fetch(url)).status).toBe(401);
        expect((await fetch(url, { headers: { authorization: 'Bearer wrong-token' } })).status).toBe(401);
        const allowed = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
        expect(allowed.status).toBe(200);
        expect(await allowed.text()).toContain('svc_');
      }
    } finally {
      await stack.stop();
    }
  });
});

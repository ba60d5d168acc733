import { apiClient, startStack, type Stack } from '../utils/stack';

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
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ worker: false });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('should count requests by method, route pattern and status, without ids in labels', async () => {
    const api = apiClient(stack.baseUrl, stack.apiKey);
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

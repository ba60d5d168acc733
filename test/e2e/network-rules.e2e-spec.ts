import { corpusRecords, DNS_CASES, DNS_ZONE, URL_CASES } from '../fixtures/ssrf-corpus';
import { TestDnsServer } from '../utils/dns-server';
import { waitFor } from '../utils/receiver';
import { apiClient, startStack, type Stack } from '../utils/stack';

/**
 * Hosted-mode network rules through the real API and worker (issue #9, docs/network-rules.md):
 * the SSRF corpus's URL cases are `400 validation_failed` on `sink.config.url` at create and
 * PATCH; DNS cases are accepted at create and fail their attempt `fatal` with `network_blocked`
 * when the worker resolves them through `sinks.webhook.dns_servers` — here a local test DNS server.
 */
describe('hosted network rules (SSRF corpus, API and worker)', () => {
  let dns: TestDnsServer;
  let stack: Stack;
  let api: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    const records = corpusRecords();
    dns = await TestDnsServer.start(({ name, type }) => {
      const record = records.get(name);
      return record ? record[type] : null;
    });
    stack = await startStack({ config: { mode: 'hosted', sinks: { webhook: { dns_servers: [dns.address] } } } });
    api = apiClient(stack.baseUrl, stack.apiKey);
  });

  afterAll(async () => {
    await stack?.stop();
    await dns?.stop();
  });

  const jobBody = (url: string) => ({
    name: `ssrf ${url}`.slice(0, 100),
    schedule: { expr: '0 0 0 1 1 ? 2031' },
    sink: { kind: 'webhook', config: { url } },
    retry: { max_attempts: 3 },
  });

  it('should refuse every URL case at create with 400 validation_failed naming sink.config.url', async () => {
    const refused: string[] = [];
    for (const { url } of URL_CASES) {
      const res = await api('POST', '/api/v1/jobs', jobBody(url));
      if (
        res.status === 400 &&
        res.body.error.code === 'validation_failed' &&
        /^(destination not allowed: .+|scheme must be http or https)$/.test(res.body.error.fields['sink.config.url'])
      ) {
        refused.push(url);
      }
    }
    expect(refused).toEqual(URL_CASES.map((c) => c.url));
    const [{ n }] = await stack.dataSource.query('SELECT count(*)::int AS n FROM jobs');
    expect(n).toBe(0);
  });

  it('should say why, in the field message', async () => {
    const res = await api('POST', '/api/v1/jobs', jobBody('http://0x7f.1/hook'));
    expect(res.body.error.fields).toEqual({
      'sink.config.url': 'destination not allowed: 127.0.0.1 is a loopback address',
    });
    const metadata = await api('POST', '/api/v1/jobs', jobBody('http://[::ffff:169.254.169.254]/'));
    expect(metadata.body.error.fields['sink.config.url']).toBe(
      'destination not allowed: 169.254.169.254 is a link-local address',
    );
  });

  it('should refuse URL cases on PATCH and leave the job as it was', async () => {
    const created = await api('POST', '/api/v1/jobs', jobBody(`https://public.${DNS_ZONE}/hook`));
    expect(created.status).toBe(201);
    const refused: string[] = [];
    for (const { url } of URL_CASES.filter((_, i) => i % 4 === 0)) {
      const res = await api('PATCH', `/api/v1/jobs/${created.body.id}`, { sink: { kind: 'webhook', config: { url } } });
      if (res.status === 400 && res.body.error.fields['sink.config.url']) {
        refused.push(url);
      }
    }
    expect(refused).toEqual(URL_CASES.filter((_, i) => i % 4 === 0).map((c) => c.url));
    const job = (await api('GET', `/api/v1/jobs/${created.body.id}`)).body;
    expect(job).toMatchObject({
      version: created.body.version,
      sink: { config: { url: `https://public.${DNS_ZONE}/hook` } },
    });
    expect((await api('DELETE', `/api/v1/jobs/${created.body.id}`)).status).toBe(204);
  });

  // Within the hosted free plan's 20 jobs.
  const throughWorker = DNS_CASES.filter((c) =>
    [
      'loopback',
      'private10',
      'metadata',
      'azure-wireserver',
      'v6-mapped',
      'v6-nat64',
      'mixed-a',
      'mixed-families',
    ].includes(c.label),
  );

  it.each(throughWorker.map((c) => [`${c.label}.${DNS_ZONE}`, c.why]))(
    'should accept http://%s/ and fail its run fatal with network_blocked once the worker resolves it (%s)',
    async (host) => {
      const created = await api('POST', '/api/v1/jobs', jobBody(`http://${host}/hook`));
      expect(created.status).toBe(201);
      const { run_id: runId } = (await api('POST', `/api/v1/jobs/${created.body.id}/trigger`)).body;
      const run = await waitFor(async () => {
        const r = (await api('GET', `/api/v1/runs/${runId}`)).body;
        return r.status === 'failed' ? r : null;
      }, 30_000);
      const blocked = `network_blocked: destination not allowed (${host} resolves to `;
      // Fatal: one attempt although max_attempts is 3.
      expect(run.attempts).toHaveLength(1);
      expect(run.attempts[0]).toMatchObject({ outcome: 'fatal', status_code: null });
      expect(run.attempts[0].error.startsWith(blocked)).toBe(true);
      expect(run.last_error.startsWith(blocked)).toBe(true);
      expect(dns.queriesFor(host).length).toBeGreaterThan(0);
    },
  );
});

import { type AddressInfo, connect as netConnect } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { Agent, EnvHttpProxyAgent, getGlobalDispatcher, setGlobalDispatcher } from 'undici';
import {
  checkUrlStatic,
  type DialTarget,
  type Dialer,
  deliverHttp,
  deliverWebhookAttempt,
  generateSigningSecret,
  type NetworkRules,
} from '@svc/delivery';
import {
  corpusRecords,
  DNS_CASES,
  DNS_ZONE,
  PUBLIC_TEST_ADDRESS,
  REDIRECT_TARGETS,
  URL_CASES,
} from '../../../test/fixtures/ssrf-corpus';
import { TestDnsServer } from '../../../test/utils/dns-server';
import { type Receiver, startReceiver } from './receiver';

/**
 * The hosted-mode SSRF corpus through the delivery code (issue #9, docs/network-rules.md), with
 * DNS answers from a local test DNS server reached through `rules.dnsServers` — the code path of
 * `sinks.webhook.dns_servers` — and no external network: the test dialer routes the one public
 * test address to a loopback receiver and records every address a connection was given.
 */
describe('SSRF corpus (hosted mode)', () => {
  let dns: TestDnsServer;
  let rx: Receiver;
  let rules: NetworkRules;
  const dialed: DialTarget[] = [];

  /** Connections may only go to the public test address; it lands on the loopback receiver. */
  const dial: Dialer = (target, callback) => {
    dialed.push(target);
    if (target.addresses.some((a) => a.address !== PUBLIC_TEST_ADDRESS)) {
      callback(new Error(`test dialer: refusing ${JSON.stringify(target.addresses)}`), null);
      return;
    }
    const socket = netConnect(rx.port, '127.0.0.1');
    socket.once('connect', () => callback(null, socket));
    socket.once('error', (err) => callback(err, null));
  };

  const records = corpusRecords();

  beforeAll(async () => {
    dns = await TestDnsServer.start(({ name, type }) => {
      const record = records.get(name);
      return record ? record[type] : null;
    });
    rules = { mode: 'hosted', dnsServers: [dns.address] };
  });

  afterAll(async () => {
    await dns.stop();
  });

  beforeEach(async () => {
    dialed.length = 0;
    rx = await startReceiver();
  });

  afterEach(async () => {
    await rx.close();
  });

  const send = (url: string, extra: Partial<Parameters<typeof deliverHttp>[0]> = {}) =>
    deliverHttp({ url, method: 'POST', headers: {}, body: '{}', timeoutMs: 5_000, rules, dial, ...extra });

  it('should hold more than 60 cases', () => {
    expect(URL_CASES.length + DNS_CASES.length + REDIRECT_TARGETS.length).toBeGreaterThanOrEqual(60);
  });

  describe('the URL alone decides', () => {
    it.each(URL_CASES.map((c) => [c.url, c.why]))('should refuse %s (%s) statically', (url) => {
      const res = checkUrlStatic(url, rules);
      expect(res.ok).toBe(false);
      if (!res.ok) {
        expect(res.reason).toMatch(/^(destination not allowed: .+|scheme must be http or https)$/);
      }
    });

    it.each(URL_CASES.map((c) => [c.url, c.why]))(
      'should refuse %s (%s) at send time with no DNS query and no connection',
      async (url) => {
        const queries = dns.queries.length;
        const r = await send(url);
        expect(r.statusCode).toBeNull();
        expect(r.errorKind === 'destination_not_allowed' || r.errorKind === 'invalid_request').toBe(true);
        if (r.errorKind === 'destination_not_allowed') {
          expect(r.error).toMatch(/^network_blocked: destination not allowed \(.+\)$/);
        }
        expect(dns.queries.length).toBe(queries);
        expect(dialed).toEqual([]);
        expect(rx.requests).toEqual([]);
      },
    );
  });

  describe('the DNS answer decides', () => {
    it.each(DNS_CASES.map((c) => [`${c.label}.${DNS_ZONE}`, c.why]))(
      'should accept http://%s/ at create time and refuse it when it resolves (%s)',
      async (host) => {
        expect(checkUrlStatic(`http://${host}/hook`, rules).ok).toBe(true);
        const r = await send(`http://${host}/hook`);
        expect(r).toMatchObject({
          statusCode: null,
          errorKind: 'destination_not_allowed',
          error: expect.stringMatching(
            new RegExp(`^network_blocked: destination not allowed \\(${host} resolves to .+\\)$`),
          ),
        });
        // The answer came from the local test server, and nothing was connected to.
        expect(dns.queriesFor(host).length).toBeGreaterThan(0);
        expect(dialed).toEqual([]);
        expect(rx.requests).toEqual([]);
      },
    );

    it('should never show the resolved address in the error', async () => {
      const r = await send(`http://private10.${DNS_ZONE}/`);
      expect(r.error).not.toContain('10.0.0.5');
    });

    it('should refuse the whole webhook attempt as fatal', async () => {
      const r = await deliverWebhookAttempt({
        config: { url: `https://metadata.${DNS_ZONE}/latest/meta-data/` },
        run: { id: 'run_1', scheduledAt: 0, attempt: 0 },
        job: { id: 'job_1', name: 'j' },
        signingSecrets: [generateSigningSecret()],
        secrets: {},
        nowMs: 0,
        timeoutMs: 5_000,
        rules,
        serviceName: 'svc',
        version: 'test',
      });
      expect(r).toMatchObject({ outcome: 'fatal', errorKind: 'destination_not_allowed' });
      expect(r.error).toMatch(/^network_blocked: /);
    });
  });

  describe('pinning: the check is on the address connected to', () => {
    it('should connect a public answer through the dialer to exactly the checked addresses, resolving once', async () => {
      const host = `public.${DNS_ZONE}`;
      const before = dns.queriesFor(host).length;
      const r = await send(`http://${host}/ok`);
      expect(r.statusCode).toBe(200);
      expect(dialed).toHaveLength(1);
      expect(dialed[0]).toMatchObject({ hostname: host, addresses: [{ address: PUBLIC_TEST_ADDRESS, family: 4 }] });
      expect(rx.requests[0].headers.host).toBe(host);
      // One resolution: one A and one AAAA query.
      expect(dns.queriesFor(host).length - before).toBe(2);
    });

    it('should refuse a rebinding answer (public first, private second) on the next connection', async () => {
      const host = `rebind-next.${DNS_ZONE}`;
      dns.answerWith(({ name, type, nth }) => {
        if (name === host) {
          return type === 'A' ? [nth === 0 ? PUBLIC_TEST_ADDRESS : '127.0.0.1'] : [];
        }
        const record = records.get(name);
        return record ? record[type] : null;
      });
      const first = await send(`http://${host}/`);
      expect(first.statusCode).toBe(200);
      const second = await send(`http://${host}/`);
      expect(second).toMatchObject({
        errorKind: 'destination_not_allowed',
        error: `network_blocked: destination not allowed (${host} resolves to a loopback address)`,
      });
      expect(dialed.map((d) => d.addresses.map((a) => a.address))).toEqual([[PUBLIC_TEST_ADDRESS]]);
      expect(rx.requests).toHaveLength(1);
    });

    it('should refuse a rebinding answer on a redirect hop to the same name (new origin, new resolution)', async () => {
      const host = `rebind-hop.${DNS_ZONE}`;
      dns.answerWith(({ name, type, nth }) => {
        if (name === host) {
          return type === 'A' ? [nth === 0 ? PUBLIC_TEST_ADDRESS : '169.254.169.254'] : [];
        }
        return null;
      });
      rx.setHandler((_req, res) => {
        res.statusCode = 302;
        res.setHeader('Location', `http://${host}:443/next`);
        res.end();
      });
      const r = await send(`http://${host}/start`, { followRedirects: true });
      expect(r).toMatchObject({
        errorKind: 'destination_not_allowed',
        error: `network_blocked: destination not allowed (${host} resolves to a link-local address)`,
        redirects: 1,
      });
      expect(rx.requests.map((q) => q.path)).toEqual(['/start']);
      expect(dialed).toHaveLength(1);
    });
  });

  describe('TLS to a pinned address', () => {
    it('should still send the host name as SNI (and check the certificate against it)', async () => {
      const seen: string[] = [];
      // No certificate at all: the handshake fails after the ClientHello has named the server.
      const server = createTlsServer({
        SNICallback: (name, done) => {
          seen.push(name);
          done(new Error('no certificate in this test'));
        },
      });
      server.on('tlsClientError', () => undefined);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const port = (server.address() as AddressInfo).port;
        const r = await deliverHttp({
          url: `https://sni-check.${DNS_ZONE}:${port}/`,
          method: 'POST',
          headers: {},
          body: '{}',
          timeoutMs: 5_000,
          rules: { mode: 'self_hosted', dnsServers: [dns.address] },
          resolve: async () => [{ address: '127.0.0.1', family: 4 }],
        });
        expect(r).toMatchObject({ statusCode: null, errorKind: 'network' });
        expect(seen).toEqual([`sni-check.${DNS_ZONE}`]);
      } finally {
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    });
  });

  describe('every redirect hop is re-checked', () => {
    beforeAll(() => {
      dns.answerWith(({ name, type }) => {
        const record = records.get(name);
        return record ? record[type] : null;
      });
    });

    it.each(REDIRECT_TARGETS.map((c) => [c.url, c.why]))(
      'should refuse a redirect to %s (%s) without sending it',
      async (location) => {
        rx.setHandler((_req, res) => {
          res.statusCode = 307;
          res.setHeader('Location', location);
          res.end();
        });
        const r = await send(`http://public.${DNS_ZONE}/start`, { followRedirects: true });
        expect(r).toMatchObject({ statusCode: null, errorKind: 'destination_not_allowed', redirects: 1 });
        expect(r.error).toMatch(/^network_blocked: destination not allowed \(.+\)$/);
        expect(rx.requests.map((q) => q.path)).toEqual(['/start']);
        expect(dialed.every((d) => d.addresses.every((a) => a.address === PUBLIC_TEST_ADDRESS))).toBe(true);
      },
    );
  });

  describe('proxies from the environment', () => {
    const names = ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'http_proxy', 'https_proxy', 'all_proxy'];
    const saved: Record<string, string | undefined> = {};
    let proxy: Receiver;
    let globalDispatcher: ReturnType<typeof getGlobalDispatcher>;

    beforeEach(async () => {
      proxy = await startReceiver((_req, res) => res.end('via proxy'));
      for (const name of names) {
        saved[name] = process.env[name];
        process.env[name] = proxy.origin;
      }
      delete process.env.NO_PROXY;
      delete process.env.no_proxy;
      // Even a process-wide proxy-reading dispatcher must not carry webhook traffic.
      globalDispatcher = getGlobalDispatcher();
      setGlobalDispatcher(new EnvHttpProxyAgent());
    });

    afterEach(async () => {
      setGlobalDispatcher(globalDispatcher ?? new Agent());
      for (const name of names) {
        if (saved[name] === undefined) {
          delete process.env[name];
        } else {
          process.env[name] = saved[name];
        }
      }
      await proxy.close();
    });

    it('should connect directly, never through HTTP_PROXY / HTTPS_PROXY / ALL_PROXY', async () => {
      const r = await send(`http://public.${DNS_ZONE}/direct`);
      expect(r).toMatchObject({ statusCode: 200, body: 'ok' });
      expect(rx.requests.map((q) => q.path)).toEqual(['/direct']);
      expect(proxy.requests).toEqual([]);
      // Self-hosted, straight to the loopback receiver with the default connector too.
      const direct = await deliverHttp({
        url: `${rx.origin}/self-hosted`,
        method: 'POST',
        headers: {},
        body: '{}',
        timeoutMs: 5_000,
        rules: { mode: 'self_hosted' },
      });
      expect(direct.statusCode).toBe(200);
      expect(proxy.requests).toEqual([]);
    });
  });
});

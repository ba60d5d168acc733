import { NetworkRules, checkAddress, checkUrlStatic, networkRulesOf, normalizeAddress } from '@svc/delivery';

const hosted: NetworkRules = { mode: 'hosted' };
const selfHosted: NetworkRules = { mode: 'self_hosted' };
const selfHostedStrict: NetworkRules = { mode: 'self_hosted', allowPrivateNetworks: false };

describe('network rules (spec: Limits → Network rules)', () => {
  describe('checkAddress in hosted mode', () => {
    it.each([
      ['127.0.0.1', 'loopback'],
      ['127.255.0.9', 'loopback'],
      ['10.1.2.3', 'private'],
      ['172.16.0.1', 'private'],
      ['172.31.255.255', 'private'],
      ['192.168.1.1', 'private'],
      ['169.254.169.254', 'link-local'],
      ['100.64.0.1', 'carrier-grade NAT'],
      ['100.127.255.254', 'carrier-grade NAT'],
      ['0.0.0.0', 'unspecified'],
      ['255.255.255.255', 'broadcast'],
      ['224.0.0.1', 'multicast'],
      ['240.0.0.1', 'reserved'],
      ['192.0.2.1', 'documentation'],
      ['::1', 'loopback'],
      ['::', 'unspecified'],
      ['fc00::1', 'unique-local'],
      ['fd12:3456::1', 'unique-local'],
      ['fe80::1', 'link-local'],
      ['fe80::1%eth0', 'link-local with zone'],
      ['ff02::1', 'multicast'],
      ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
      ['::ffff:7f00:1', 'IPv4-mapped loopback, hex'],
      ['::ffff:10.0.0.1', 'IPv4-mapped private'],
      ['::ffff:169.254.169.254', 'IPv4-mapped metadata'],
      ['::127.0.0.1', 'IPv4-compatible loopback'],
      ['64:ff9b::a00:1', 'NAT64 of 10.0.0.1'],
      ['2002:7f00:1::1', '6to4 of 127.0.0.1'],
      ['2001:db8::1', 'documentation'],
      ['2001::1', 'Teredo'],
      ['[::1]', 'bracketed'],
      ['168.63.129.16', 'Azure WireServer'],
      ['3fff::1', 'documentation 3fff::/20'],
      ['4000::1', 'outside global unicast'],
      ['100::1', 'discard'],
      ['::2', 'IPv4-compatible 0.0.0.2'],
    ])('should refuse %s (%s)', (ip) => {
      const res = checkAddress(ip, hosted);
      expect(res.ok).toBe(false);
      if (!res.ok) {
        expect(res.reason).toMatch(/^destination not allowed/);
      }
    });

    it.each([
      '93.184.216.34',
      '8.8.8.8',
      '172.32.0.1',
      '100.128.0.1',
      '2606:4700::1111',
      '::ffff:8.8.8.8',
      '64:ff9b::808:808',
    ])('should allow public %s', (ip) => expect(checkAddress(ip, hosted)).toEqual({ ok: true }));

    it('should refuse what is not an address', () => {
      expect(checkAddress('example.com', hosted).ok).toBe(false);
      expect(checkAddress('example.com', selfHosted).ok).toBe(false);
    });
  });

  describe('checkAddress on self-hosted servers', () => {
    it('should allow everything by default', () => {
      for (const ip of ['127.0.0.1', '10.0.0.1', '::1', '169.254.169.254']) {
        expect(checkAddress(ip, selfHosted).ok).toBe(true);
      }
    });

    it('should apply the address rules when allow_private_networks is false', () => {
      expect(checkAddress('10.0.0.1', selfHostedStrict).ok).toBe(false);
      expect(checkAddress('8.8.8.8', selfHostedStrict).ok).toBe(true);
    });
  });

  describe('networkRulesOf', () => {
    it('should take mode, allow_private_networks and dns_servers from the config', () => {
      expect(
        networkRulesOf({
          mode: 'hosted',
          sinks: { webhook: { allow_private_networks: false, dns_servers: ['127.0.0.1:5353'] } },
        }),
      ).toEqual({ mode: 'hosted', allowPrivateNetworks: false, dnsServers: ['127.0.0.1:5353'] });
    });
  });

  describe('normalizeAddress', () => {
    it('should read all of ::/96 but :: and ::1 as IPv4-compatible', () => {
      expect(normalizeAddress('::2')?.toString()).toBe('0.0.0.2');
      expect(normalizeAddress('::a00:1')?.toString()).toBe('10.0.0.1');
      expect(normalizeAddress('::')?.toString()).toBe('::');
    });

    it('should not unwrap the local-use NAT64 prefix, which is refused whole', () => {
      expect(normalizeAddress('64:ff9b:1::808:808')?.kind()).toBe('ipv6');
      expect(checkAddress('64:ff9b:1::808:808', hosted).ok).toBe(false);
    });

    it('should unwrap IPv4 carried in IPv6', () => {
      expect(normalizeAddress('::ffff:10.0.0.1')?.toString()).toBe('10.0.0.1');
      expect(normalizeAddress('64:ff9b::a00:1')?.toString()).toBe('10.0.0.1');
      expect(normalizeAddress('2002:0a00:0001::')?.toString()).toBe('10.0.0.1');
      expect(normalizeAddress('::1')?.toString()).toBe('::1');
      expect(normalizeAddress('nope')).toBeNull();
    });
  });

  describe('checkUrlStatic', () => {
    it('should accept public http and https URLs on 80 and 443', () => {
      for (const url of ['https://example.com/hook', 'http://example.com:80/x', 'https://93.184.216.34:443/']) {
        expect(checkUrlStatic(url, hosted).ok).toBe(true);
      }
    });

    it.each([
      ['ftp://example.com/', /scheme/],
      ['file:///etc/passwd', /scheme/],
      ['not a url', /absolute/],
      ['https://example.com:8080/', /ports 80 and 443/],
      ['http://127.0.0.1/', /loopback/],
      ['http://[::1]/', /loopback/],
      ['http://[::ffff:127.0.0.1]/', /loopback/],
      ['http://169.254.169.254/latest', /link-local/],
      ['http://0x7f.1/', /loopback/],
      ['http://2130706433/', /loopback/],
      ['http://017700000001/', /loopback/],
      ['http://localhost/', /localhost/],
      ['http://api.localhost./', /localhost/],
      ['https://example.com/{{run.id}}', /templates/],
    ])('should refuse %s in hosted mode', (url, reason) => {
      const res = checkUrlStatic(url, hosted);
      expect(res.ok).toBe(false);
      if (!res.ok) {
        expect(res.reason).toMatch(reason);
      }
    });

    it('should refuse private names only on restricted servers', () => {
      for (const url of ['http://metadata/', 'http://db.internal/', 'http://printer.local/', 'http://nas.home.arpa/']) {
        expect(checkUrlStatic(url, hosted).ok).toBe(false);
        expect(checkUrlStatic(url, selfHostedStrict).ok).toBe(false);
        expect(checkUrlStatic(url, selfHosted).ok).toBe(true);
      }
      // Look-alikes that are ordinary public names.
      for (const url of ['http://internal.example.com/', 'http://local.example.org/', 'https://hooks.example.com./']) {
        expect(checkUrlStatic(url, hosted).ok).toBe(true);
      }
    });

    it('should allow any port and private literals on self-hosted servers', () => {
      expect(checkUrlStatic('http://127.0.0.1:8080/', selfHosted).ok).toBe(true);
      expect(checkUrlStatic('http://localhost:3000/', selfHosted).ok).toBe(true);
      expect(checkUrlStatic('http://10.0.0.1:9000/', selfHostedStrict).ok).toBe(false);
      expect(checkUrlStatic('http://example.com:9000/', selfHostedStrict).ok).toBe(true);
      expect(checkUrlStatic('ftp://example.com/', selfHosted).ok).toBe(false);
    });
  });
});

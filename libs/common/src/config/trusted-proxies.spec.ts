import { isLoopbackHost, metricsAccess } from '../metrics';
import { buildConfig } from './config';

describe('http.trusted_proxies (issue 41)', () => {
  it('trusts no proxy by default', () => {
    expect(buildConfig({}, {}).http).toMatchObject({ trust_proxy: false, trusted_proxies: [] });
  });

  it('reads a list of addresses and CIDRs from the file or TRUSTED_PROXIES, and trusts exactly those', () => {
    expect(buildConfig({ http: { trusted_proxies: ['10.0.0.5', '10.1.0.0/16', 'fd00::/8'] } }, {}).http).toMatchObject({
      trust_proxy: true,
      trusted_proxies: ['10.0.0.5', '10.1.0.0/16', 'fd00::/8'],
    });
    expect(buildConfig({}, { TRUSTED_PROXIES: '192.0.2.10, 198.51.100.0/24' }).http.trusted_proxies).toEqual([
      '192.0.2.10',
      '198.51.100.0/24',
    ]);
  });

  it('reads trust_proxy: true alone as a same-host proxy (loopback), never as "any hop"', () => {
    for (const config of [buildConfig({ http: { trust_proxy: true } }, {}), buildConfig({}, { TRUST_PROXY: 'true' })]) {
      expect(config.http).toMatchObject({ trust_proxy: true, trusted_proxies: ['127.0.0.0/8', '::1/128'] });
    }
    // A list wins over the flag.
    expect(
      buildConfig({ http: { trust_proxy: true, trusted_proxies: ['10.0.0.5'] } }, {}).http.trusted_proxies,
    ).toEqual(['10.0.0.5']);
  });

  it('refuses anything that is not an address or a CIDR, at startup', () => {
    for (const bad of [['proxy.example.com'], ['10.0.0.0/33'], ['*'], [''], [42]]) {
      expect(() => buildConfig({ http: { trusted_proxies: bad } }, {})).toThrow(
        /http\.trusted_proxies: expected a list of proxy addresses or CIDRs/,
      );
    }
    expect(() => buildConfig({}, { TRUSTED_PROXIES: '10.0.0.1,nope' })).toThrow(/http\.trusted_proxies/);
  });
});

describe('metrics without a token', () => {
  it('is for loopback listeners only', () => {
    for (const host of ['127.0.0.1', '127.0.0.2', '::1', '[::1]', 'localhost', 'LOCALHOST']) {
      expect(isLoopbackHost(host)).toBe(true);
    }
    for (const host of ['0.0.0.0', '::', '192.0.2.2', 'api.example.com', '']) {
      expect(isLoopbackHost(host)).toBe(false);
    }
  });

  it('answers token_required to everyone, loopback included, when tokenless access is off', () => {
    expect(metricsAccess(null, undefined, '127.0.0.1', false)).toBe('token_required');
    expect(metricsAccess(null, undefined, '127.0.0.1', true)).toBe('allowed');
    expect(metricsAccess('t0ken', 'Bearer t0ken', '192.0.2.2', false)).toBe('allowed');
    expect(metricsAccess('t0ken', undefined, '127.0.0.1', false)).toBe('unauthorized');
  });
});

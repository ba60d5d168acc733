import { destinationOf, isDestination, webhookDestination } from '@svc/delivery';

/** Destination keys (issue 46): a webhook's host:port with the default port, or a name the sink sets. */
describe('destinations', () => {
  it('should key a webhook by its lowercase host and port, the scheme’s default port filled in', () => {
    expect(webhookDestination('https://Hooks.Example.com/x?y=1')).toBe('hooks.example.com:443');
    expect(webhookDestination('http://10.0.0.5/x')).toBe('10.0.0.5:80');
    expect(webhookDestination('http://127.0.0.1:4000/hook')).toBe('127.0.0.1:4000');
    expect(webhookDestination('https://user:pass@hooks.example.com:8443/')).toBe('hooks.example.com:8443');
    expect(webhookDestination('http://[::1]:9000/')).toBe('[::1]:9000');
    expect(webhookDestination('not a url')).toBeNull();
    expect(webhookDestination('ftp://files.example.com/')).toBeNull();
  });

  it('should prefer the name a sink sets, and limit only webhooks otherwise', () => {
    expect(destinationOf('webhook', { url: 'https://hooks.example.com/x', destination: 'billing-api' })).toBe(
      'billing-api',
    );
    expect(destinationOf('webhook', { url: 'https://hooks.example.com/x', destination: null })).toBe(
      'hooks.example.com:443',
    );
    expect(destinationOf('command', { program: 'backup.sh' })).toBeNull();
  });

  it('should accept host[:port] and names, and refuse anything else', () => {
    for (const good of ['hooks.example.com:443', 'billing-api', 'a', '10.0.0.5:80', '[::1]:9000', 'x_y.z']) {
      expect([good, isDestination(good)]).toEqual([good, true]);
    }
    for (const bad of ['', 'Hooks.example.com', 'a b', 'a:0', 'a:65536', '-a', 'a.', 'a/b', 'a:', 'x'.repeat(262)]) {
      expect([bad, isDestination(bad)]).toEqual([bad, false]);
    }
  });
});

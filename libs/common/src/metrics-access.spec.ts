import { metricsAccess } from './metrics';

describe('metricsAccess', () => {
  it('should allow loopback peers only when no token is set', () => {
    for (const peer of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) {
      expect(metricsAccess(null, undefined, peer)).toBe('allowed');
    }
    for (const peer of ['10.0.0.5', '::ffff:10.0.0.5', '2001:db8::1', '1127.0.0.1', undefined]) {
      expect(metricsAccess(null, undefined, peer)).toBe('forbidden');
    }
  });

  it('should require the exact bearer token when one is set, from any peer', () => {
    expect(metricsAccess('s3cret', 'Bearer s3cret', '10.0.0.5')).toBe('allowed');
    expect(metricsAccess('s3cret', 'bearer s3cret', '10.0.0.5')).toBe('allowed');
    for (const header of [undefined, 'Bearer s3cre', 'Bearer s3cret!', 'Basic s3cret', 's3cret']) {
      expect(metricsAccess('s3cret', header, '127.0.0.1')).toBe('unauthorized');
    }
  });
});

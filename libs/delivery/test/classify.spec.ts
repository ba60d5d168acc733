import { DEFAULT_RETRY_ON, classifyResponse, getRetryAfterMs, parseRetryAfter } from '@svc/delivery';

const defaults = { successCodes: '2xx' as const, retryOn: DEFAULT_RETRY_ON };

describe('classifyResponse (spec: Events → Response classification)', () => {
  it.each([
    [200, 'success'],
    [204, 'success'],
    [299, 'success'],
    [500, 'retryable'],
    [503, 'retryable'],
    [408, 'retryable'],
    [429, 'retryable'],
    [400, 'fatal'],
    [401, 'fatal'],
    [404, 'fatal'],
    [302, 'fatal'],
  ])('should classify %i as %s with the defaults', (statusCode, outcome) => {
    expect(classifyResponse({ statusCode }, defaults)).toBe(outcome);
  });

  it.each([
    ['network', 'retryable'],
    ['timeout', 'retryable'],
    ['destination_not_allowed', 'fatal'],
    ['too_many_redirects', 'fatal'],
    ['invalid_request', 'fatal'],
  ] as const)('should classify error %s as %s with the defaults', (errorKind, outcome) => {
    expect(classifyResponse({ statusCode: null, errorKind }, defaults)).toBe(outcome);
  });

  it('should make network and timeout fatal when retry_on leaves them out', () => {
    const policy = { successCodes: '2xx' as const, retryOn: ['5xx'] as const };
    expect(classifyResponse({ statusCode: null, errorKind: 'network' }, policy)).toBe('fatal');
    expect(classifyResponse({ statusCode: null, errorKind: 'timeout' }, policy)).toBe('fatal');
  });

  it('should use an explicit success code list', () => {
    const policy = { successCodes: [200, 202, 409], retryOn: ['4xx'] as const };
    expect(classifyResponse({ statusCode: 409 }, policy)).toBe('success'); // success wins over 4xx
    expect(classifyResponse({ statusCode: 204 }, policy)).toBe('fatal');
    expect(classifyResponse({ statusCode: 404 }, policy)).toBe('retryable');
  });

  it('should treat a missing status without an error kind as fatal', () => {
    expect(classifyResponse({ statusCode: null }, defaults)).toBe('fatal');
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-03-01T00:00:00Z');

  it('should parse delay-seconds', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
  });

  it('should parse an HTTP date relative to now', () => {
    expect(parseRetryAfter('Sat, 01 Mar 2025 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Fri, 28 Feb 2025 23:00:00 GMT', now)).toBe(0);
  });

  it.each([undefined, null, '', '-5', '1.5', 'soon', '12abc'])('should return null for %p', (v) => {
    expect(parseRetryAfter(v, now)).toBeNull();
  });
});

describe('getRetryAfterMs', () => {
  it('should honour Retry-After only on 429 and 503', () => {
    expect(getRetryAfterMs({ statusCode: 429, headers: { 'retry-after': '5' } }, 0)).toBe(5000);
    expect(getRetryAfterMs({ statusCode: 503, headers: { 'retry-after': '5' } }, 0)).toBe(5000);
    expect(getRetryAfterMs({ statusCode: 500, headers: { 'retry-after': '5' } }, 0)).toBeNull();
    expect(getRetryAfterMs({ statusCode: 429, headers: {} }, 0)).toBeNull();
  });
});

import type { SinkAttemptResult } from '@svc/delivery';
import { REDACTED, redactSecretValues } from '@svc/orchestration';

const result = (over: Partial<SinkAttemptResult> = {}): SinkAttemptResult => ({
  outcome: 'fatal',
  statusCode: 401,
  durationMs: 3,
  error: 'HTTP 401',
  requestSummary: 'POST http://127.0.0.1/hook (10 bytes)',
  body: null,
  retryAfterMs: null,
  ...over,
});

describe('redactSecretValues', () => {
  it('should replace every echo of a secret value in the body and the error', () => {
    const redacted = redactSecretValues(
      result({ body: 'you sent Bearer s3cr3t-token and s3cr3t-token', error: 'bad token s3cr3t-token' }),
      ['s3cr3t-token'],
    );
    expect(redacted.body).toBe(`you sent Bearer ${REDACTED} and ${REDACTED}`);
    expect(redacted.error).toBe(`bad token ${REDACTED}`);
  });

  it('should also catch the JSON-escaped form a receiver echoing JSON writes', () => {
    const value = 'line "one"\nline two';
    const echoed = JSON.stringify({ got: value });
    expect(redactSecretValues(result({ body: echoed }), [value]).body).toBe(`{"got":"${REDACTED}"}`);
  });

  it('should replace a longer value whole when it contains a shorter one', () => {
    expect(redactSecretValues(result({ body: 'abcdefgh' }), ['abcd', 'abcdefgh']).body).toBe(REDACTED);
  });

  it('should leave values shorter than 4 characters and results without secrets alone', () => {
    const plain = result({ body: 'ab ab' });
    expect(redactSecretValues(plain, ['ab'])).toBe(plain);
    expect(redactSecretValues(plain, [])).toBe(plain);
  });

  it('should keep a null body and a null error null', () => {
    expect(redactSecretValues(result({ body: null, error: null }), ['long-secret'])).toMatchObject({
      body: null,
      error: null,
    });
  });
});

import { Webhook } from 'standardwebhooks';
import {
  buildWebhookHeaders,
  formatTimestamp,
  generateSigningSecret,
  isReservedHeader,
  serializeStandardPayload,
  validateCustomHeaders,
} from '@svc/delivery';

describe('payload and headers (spec: Events → Webhook request)', () => {
  describe('serializeStandardPayload', () => {
    it('should serialize {run_id, job_id, job_name, scheduled_at, fired_at, attempt} in order', () => {
      const text = serializeStandardPayload({
        runId: 'run_1',
        jobId: 'job_1',
        jobName: 'nightly "report"',
        scheduledAt: new Date('2025-03-01T02:00:00Z'),
        firedAt: Date.parse('2025-03-01T02:00:00.123Z'),
        attempt: 0,
      });
      expect(text).toBe(
        '{"run_id":"run_1","job_id":"job_1","job_name":"nightly \\"report\\"",' +
          '"scheduled_at":"2025-03-01T02:00:00Z","fired_at":"2025-03-01T02:00:00.123Z","attempt":0}',
      );
    });

    it('should reject a negative or fractional attempt', () => {
      const base = { runId: 'r', jobId: 'j', jobName: 'n', scheduledAt: 0, firedAt: 0 };
      expect(() => serializeStandardPayload({ ...base, attempt: -1 })).toThrow(RangeError);
      expect(() => serializeStandardPayload({ ...base, attempt: 1.5 })).toThrow(RangeError);
    });
  });

  describe('formatTimestamp', () => {
    it('should emit UTC RFC 3339 and drop zero milliseconds', () => {
      expect(formatTimestamp('2025-03-01T03:00:00+01:00')).toBe('2025-03-01T02:00:00Z');
      expect(formatTimestamp(1_000)).toBe('1970-01-01T00:00:01Z');
      expect(formatTimestamp(1_001)).toBe('1970-01-01T00:00:01.001Z');
    });
  });

  describe('buildWebhookHeaders', () => {
    const secret = generateSigningSecret();
    const body = '{"hello":"world"}';
    const input = {
      runId: 'run_01ABC',
      jobId: 'job_01XYZ',
      scheduledAt: '2025-03-01T02:00:00Z',
      attempt: 2,
      timestampSec: Math.floor(Date.now() / 1000),
      body,
      secrets: [secret],
      serviceName: 'scheduled-job-service',
      version: '0.1.0',
    };

    it('should set every service header', () => {
      const h = buildWebhookHeaders(input);
      expect(h).toMatchObject({
        'Content-Type': 'application/json',
        'User-Agent': 'scheduled-job-service/0.1.0',
        'Idempotency-Key': 'run_01ABC',
        'webhook-id': 'run_01ABC',
        'webhook-timestamp': String(input.timestampSec),
        'Svc-Attempt': '2',
        'Svc-Job-Id': 'job_01XYZ',
        'Svc-Scheduled-At': '2025-03-01T02:00:00Z',
      });
      expect(new Webhook(secret).verify(body, h)).toEqual({ hello: 'world' });
    });

    it('should merge custom headers but never let them replace reserved ones', () => {
      const h = buildWebhookHeaders({
        ...input,
        customHeaders: {
          'X-Token': 'abc',
          'content-type': 'text/plain',
          'Webhook-Id': 'evil',
          'idempotency-key': 'evil',
          'svc-attempt': '99',
          Host: 'evil.example',
          traceparent: '00-x',
        },
      });
      expect(h['X-Token']).toBe('abc');
      expect(Object.keys(h).filter((k) => k.toLowerCase() === 'content-type')).toEqual(['Content-Type']);
      expect(Object.values(h)).not.toContain('evil');
      expect(Object.values(h)).not.toContain('evil.example');
      expect(h['Svc-Attempt']).toBe('2');
      expect(h.traceparent).toBeUndefined();
    });
  });

  describe('isReservedHeader', () => {
    it.each([
      'Host',
      'content-length',
      'Transfer-Encoding',
      'connection',
      'webhook-id',
      'Webhook-Signature',
      'webhook-anything',
      'Idempotency-Key',
      'traceparent',
      'tracestate',
      'Svc-Attempt',
      'svc-workspace',
      'Content-Type',
      'user-agent',
    ])('should reserve %s', (name) => expect(isReservedHeader(name)).toBe(true));

    it.each(['Authorization', 'X-Token', 'X-Webhook-Id', 'Accept'])('should allow %s', (name) =>
      expect(isReservedHeader(name)).toBe(false),
    );
  });

  describe('validateCustomHeaders', () => {
    it('should name each bad header by field path', () => {
      expect(
        validateCustomHeaders({ 'X-Ok': 'v', 'Svc-Job-Id': 'x', 'Bad Name': 'x', 'X-Inject': 'a\r\nB: c' }),
      ).toEqual({
        'sink.config.headers.Svc-Job-Id': expect.stringContaining('reserved'),
        'sink.config.headers.Bad Name': 'invalid header name',
        'sink.config.headers.X-Inject': expect.stringContaining('control'),
      });
    });

    it('should refuse more than 50 headers', () => {
      const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`X-H${i}`, 'v']));
      expect(validateCustomHeaders(many)['sink.config.headers']).toMatch(/50/);
    });
  });
});

import { Webhook } from 'standardwebhooks';
import { WebhookAttemptInput, deliverWebhookAttempt, generateSigningSecret } from '@svc/delivery';
import { Receiver, startReceiver } from './receiver';

/**
 * Custom requests (spec: Sink: webhook configuration; decisions.md → Templates): the configured
 * method, custom headers and body with every template variable as sent on the wire.
 */
describe('deliverWebhookAttempt: templates and custom requests', () => {
  let rx: Receiver;
  const secret = generateSigningSecret();
  const nowMs = Date.now();
  beforeEach(async () => {
    rx = await startReceiver();
  });
  afterEach(async () => {
    await rx.close();
  });

  const input = (config: Partial<WebhookAttemptInput['config']>, over: Partial<WebhookAttemptInput> = {}) => ({
    config: { url: `${rx.origin}/hook`, ...config },
    run: { id: 'run_01', scheduledAt: '2025-03-01T02:00:00Z', attempt: 2 },
    job: { id: 'job_01', name: 'nightly report' },
    signingSecrets: [secret],
    secrets: { API_TOKEN: 'tok-123', MULTI: 'line1\r\nX-Injected: yes' },
    nowMs,
    timeoutMs: 5000,
    rules: { mode: 'self_hosted' as const },
    serviceName: 'svc',
    version: '0.1.0',
    ...over,
  });

  const HEADER =
    'id={{run.id}} at={{run.scheduled_at}} n={{run.attempt}} job={{job.id}} name={{job.name}} fired={{fired_at}}';
  const BODY =
    '{"id":"{{run.id}}","at":"{{run.scheduled_at}}","n":{{run.attempt}},"job":"{{job.id}}",' +
    '"name":"{{job.name}}","fired":"{{fired_at}}","token":"{{ secret.API_TOKEN }}"}';

  it.each(['POST', 'PUT', 'PATCH', 'DELETE'] as const)(
    'should send %s with every variable rendered in headers and body, signed over the rendered body',
    async (method) => {
      const sentAt = Date.now();
      const fired = new Date(sentAt).toISOString().replace('.000Z', 'Z');
      const r = await deliverWebhookAttempt(
        input(
          { method, headers: { 'X-All': HEADER, Authorization: 'Bearer {{secret.API_TOKEN}}' }, body: BODY },
          { nowMs: sentAt },
        ),
      );
      expect(r.outcome).toBe('success');
      const [req] = rx.requests;
      expect(req.method).toBe(method);
      expect(req.headers['x-all']).toBe(
        `id=run_01 at=2025-03-01T02:00:00Z n=2 job=job_01 name=nightly report fired=${fired}`,
      );
      expect(req.headers.authorization).toBe('Bearer tok-123');
      expect(req.headers['content-type']).toBe('application/json');
      expect(JSON.parse(req.body)).toEqual({
        id: 'run_01',
        at: '2025-03-01T02:00:00Z',
        n: 2,
        job: 'job_01',
        name: 'nightly report',
        fired,
        token: 'tok-123',
      });
      // The signature covers the exact bytes sent.
      expect(new Webhook(secret).verify(req.body, req.headers as Record<string, string>)).toBeTruthy();
      expect(req.headers['webhook-timestamp']).toBe(String(Math.floor(sentAt / 1000)));
    },
  );

  it('should send GET with rendered headers and no body', async () => {
    const r = await deliverWebhookAttempt(input({ method: 'GET', headers: { 'X-Run': '{{run.id}}' } }));
    expect(r.outcome).toBe('success');
    expect(rx.requests[0]).toMatchObject({ method: 'GET', body: '' });
    expect(rx.requests[0].headers['x-run']).toBe('run_01');
  });

  it('should keep the service headers even if a stored config names them (defence in depth)', async () => {
    await deliverWebhookAttempt(
      input({ headers: { 'Idempotency-Key': 'mine', 'webhook-id': 'mine', 'Svc-Attempt': '9', 'X-Ok': 'ok' } }),
    );
    const { headers } = rx.requests[0];
    expect(headers).toMatchObject({
      'idempotency-key': 'run_01',
      'webhook-id': 'run_01',
      'svc-attempt': '2',
      'x-ok': 'ok',
    });
  });

  it('should fail fatally, sending nothing, when a rendered header value holds CR/LF, without the value in the error', async () => {
    const r = await deliverWebhookAttempt(input({ headers: { 'X-Token': 'Bearer {{secret.MULTI}}' } }));
    expect(r).toMatchObject({
      outcome: 'fatal',
      errorKind: 'invalid_request',
      statusCode: null,
      error: 'header "X-Token": the rendered value contains a line break or another control character',
    });
    expect(r.error).not.toContain('line1');
    expect(rx.requests).toHaveLength(0);
  });

  it('should refuse a job name with a line break rendered into a header', async () => {
    const r = await deliverWebhookAttempt(
      input({ headers: { 'X-Name': '{{job.name}}' } }, { job: { id: 'job_01', name: 'a\nb' } }),
    );
    expect(r).toMatchObject({ outcome: 'fatal', errorKind: 'invalid_request' });
    expect(rx.requests).toHaveLength(0);
  });

  it('should allow CR/LF from a secret in the body (only header values are single lines)', async () => {
    const r = await deliverWebhookAttempt(input({ body: '{{secret.MULTI}}' }));
    expect(r.outcome).toBe('success');
    expect(rx.requests[0].body).toBe('line1\r\nX-Injected: yes');
  });

  it('should name the field and the secret, never a value, when a secret is gone at send time', async () => {
    const r = await deliverWebhookAttempt(input({ body: 'x={{secret.DELETED}}' }));
    expect(r).toMatchObject({ outcome: 'fatal', error: 'body: unknown secret "DELETED"' });
    expect(rx.requests).toHaveLength(0);
  });

  it('should mark sink tests with Svc-Test: true, and only them', async () => {
    await deliverWebhookAttempt(input({}, { test: true }));
    await deliverWebhookAttempt(input({}));
    expect(rx.requests.map((r) => r.headers['svc-test'])).toEqual(['true', undefined]);
  });
});

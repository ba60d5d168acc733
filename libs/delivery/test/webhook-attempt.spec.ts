import { Webhook } from 'standardwebhooks';
import { WebhookAttemptInput, deliverWebhookAttempt, generateSigningSecret } from '@svc/delivery';
import { Receiver, startReceiver } from './receiver';

describe('deliverWebhookAttempt (loopback receiver)', () => {
  let rx: Receiver;
  const secret = generateSigningSecret();
  beforeEach(async () => {
    rx = await startReceiver();
  });
  afterEach(async () => {
    await rx.close();
  });

  const input = (over: Partial<WebhookAttemptInput> = {}): WebhookAttemptInput => ({
    config: { url: `${rx.origin}/hook` },
    run: { id: 'run_01', scheduledAt: '2025-03-01T02:00:00Z', attempt: 1 },
    job: { id: 'job_01', name: 'nightly' },
    signingSecrets: [secret],
    secrets: { API_TOKEN: 'tok' },
    nowMs: Date.now(),
    timeoutMs: 5000,
    rules: { mode: 'self_hosted' },
    serviceName: 'svc',
    version: '0.1.0',
    ...over,
  });

  it('should POST the signed standard payload and classify success', async () => {
    const r = await deliverWebhookAttempt(
      input({ config: { url: `${rx.origin}/hook`, headers: { 'X-Token': '{{secret.API_TOKEN}}' } } }),
    );
    expect(r).toMatchObject({ outcome: 'success', statusCode: 200, retryAfterMs: null });
    const req = rx.requests[0];
    const payload = new Webhook(secret).verify(req.body, req.headers as Record<string, string>);
    expect(payload).toMatchObject({
      run_id: 'run_01',
      job_id: 'job_01',
      job_name: 'nightly',
      scheduled_at: '2025-03-01T02:00:00Z',
      attempt: 1,
    });
    expect(req.headers['svc-attempt']).toBe('1');
    expect(req.headers['x-token']).toBe('tok');
  });

  it('should render a custom body and use the configured method', async () => {
    const r = await deliverWebhookAttempt(
      input({ config: { url: `${rx.origin}/hook`, method: 'PUT', body: '{"run":"{{run.id}}","n":{{run.attempt}}}' } }),
    );
    expect(r.outcome).toBe('success');
    expect(rx.requests[0]).toMatchObject({ method: 'PUT', body: '{"run":"run_01","n":1}' });
  });

  it('should send GET without a body', async () => {
    await deliverWebhookAttempt(input({ config: { url: `${rx.origin}/hook`, method: 'GET' } }));
    expect(rx.requests[0]).toMatchObject({ method: 'GET', body: '' });
    expect(() => new Webhook(secret).verify('', rx.requests[0].headers as Record<string, string>)).not.toThrow();
  });

  it('should apply success_codes and retry_on from the config, and surface Retry-After', async () => {
    rx.setHandler((_req, res) => {
      res.statusCode = 503;
      res.setHeader('Retry-After', '30');
      res.end('later');
    });
    const r = await deliverWebhookAttempt(input());
    expect(r).toMatchObject({ outcome: 'retryable', statusCode: 503, retryAfterMs: 30_000, body: 'later' });
    const custom = await deliverWebhookAttempt(
      input({ config: { url: `${rx.origin}/hook`, success_codes: [503], retry_on: [] } }),
    );
    expect(custom.outcome).toBe('success');
  });

  it('should fail fatally without sending when a secret is missing', async () => {
    const r = await deliverWebhookAttempt(
      input({ config: { url: `${rx.origin}/hook`, headers: { A: '{{secret.GONE}}' } } }),
    );
    expect(r).toMatchObject({
      outcome: 'fatal',
      errorKind: 'invalid_request',
      error: 'header "A": unknown secret "GONE"',
    });
    expect(rx.requests).toHaveLength(0);
  });

  it('should refuse a hosted-mode destination as fatal with no traffic', async () => {
    const r = await deliverWebhookAttempt(input({ rules: { mode: 'hosted' } }));
    expect(r).toMatchObject({
      outcome: 'fatal',
      errorKind: 'destination_not_allowed',
      error: 'network_blocked: destination not allowed (only ports 80 and 443 are allowed)',
    });
    expect(rx.requests).toHaveLength(0);
  });
});

import { context, createTraceState, type SpanContext, SpanKind, trace, TraceFlags } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { buildConfig } from '@svc/common';
import { startTracing, stopTracing } from '@svc/common/tracing';
import {
  type AlertChannelTarget,
  alertLinks,
  AlertSender,
  composeAlert,
  deliverWebhookAttempt,
  generateSigningSecret,
  traceContextHeaders,
  type WebhookAttemptInput,
} from '@svc/delivery';
import { Receiver, startReceiver } from './receiver';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

describe('traceContextHeaders', () => {
  const spanContext: SpanContext = {
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    spanId: '00f067aa0ba902b7',
    traceFlags: TraceFlags.SAMPLED,
  };

  it('should write a version 00 traceparent with the sampled flag', () => {
    expect(traceContextHeaders(spanContext)).toEqual({
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    });
    expect(traceContextHeaders({ ...spanContext, traceFlags: TraceFlags.NONE }).traceparent).toMatch(/-00$/);
  });

  it('should add tracestate only when the trace has one', () => {
    expect(traceContextHeaders({ ...spanContext, traceState: createTraceState('vendor=abc,other=1') })).toEqual({
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      tracestate: 'vendor=abc,other=1',
    });
  });

  it('should give nothing for an invalid span context', () => {
    expect(traceContextHeaders({ ...spanContext, traceId: '0'.repeat(32) })).toEqual({});
    expect(traceContextHeaders({ ...spanContext, spanId: 'not-hex' })).toEqual({});
  });
});

describe('webhook and alert requests and trace context (loopback receiver)', () => {
  let rx: Receiver;
  const exporter = new InMemorySpanExporter();
  beforeEach(async () => {
    rx = await startReceiver();
    exporter.reset();
  });
  afterEach(async () => {
    await rx.close();
  });
  afterAll(async () => {
    await stopTracing();
  });

  const input = (url: string, headers: Record<string, string> = {}): WebhookAttemptInput => ({
    config: { url, headers },
    run: { id: 'run_01', scheduledAt: '2025-03-01T02:00:00Z', attempt: 0 },
    job: { id: 'job_01', name: 'nightly' },
    signingSecrets: [generateSigningSecret()],
    secrets: {},
    nowMs: Date.now(),
    timeoutMs: 5000,
    rules: { mode: 'self_hosted' },
    serviceName: 'svc',
    version: '0.1.0',
  });

  // First, before any SDK runs in this process: tracing off.
  it('should send no trace headers outside a trace, even when the job tries to set them', async () => {
    const r = await deliverWebhookAttempt(
      input(`${rx.origin}/hook`, { traceparent: '00-11111111111111111111111111111111-2222222222222222-01' }),
    );
    expect(r.outcome).toBe('success');
    expect(rx.requests[0].headers.traceparent).toBeUndefined();
    expect(rx.requests[0].headers.tracestate).toBeUndefined();
  });

  // Alerts (webhook and Slack channels) go through the same helper as job webhooks.
  const alertSender = new AlertSender({
    serviceName: 'svc',
    version: '0.1.0',
    smtp: { host: null, port: 587, tls: 'starttls', user: null, password: null, from: null },
    rules: { mode: 'self_hosted' },
    timeoutMs: 5000,
  });
  const alertMessage = composeAlert(
    {
      id: 'evt_01',
      type: 'run.failed',
      occurredAt: new Date(0),
      details: {
        job: { id: 'job_01', name: 'nightly', timezone: 'UTC', tags: [] },
        run: {
          id: 'run_01',
          scheduled_at: '2025-03-01T02:00:00Z',
          trigger: 'schedule',
          status: 'failed',
          attempts: 1,
          last_error: 'HTTP 500',
          finished_at: '2025-03-01T02:00:01Z',
        },
      },
    },
    alertLinks(
      { public_url: 'https://svc.test', temporal: { ui_url: null, namespace: 'default' } },
      'job_01',
      'run_01',
    ),
  );
  const webhookChannel = (url: string): AlertChannelTarget => ({
    id: 'ch_hook',
    name: 'hook',
    kind: 'webhook',
    config: { url },
    signingSecret: generateSigningSecret(),
  });
  const slackChannel = (url: string): AlertChannelTarget => ({
    id: 'ch_slack',
    name: 'slack',
    kind: 'slack',
    config: { webhook_url: url },
    signingSecret: null,
  });
  const sendAlert = (channel: AlertChannelTarget) => alertSender.send(channel, alertMessage, null, Date.now());

  it('should send no trace headers on webhook and Slack alerts outside a trace', async () => {
    expect((await sendAlert(webhookChannel(`${rx.origin}/alert`))).delivered).toBe(true);
    expect((await sendAlert(slackChannel(`${rx.origin}/services/T0/B0/token`))).delivered).toBe(true);
    expect(rx.requests.map((r) => r.path)).toEqual(['/alert', '/services/T0/B0/token']);
    for (const request of rx.requests) {
      expect(request.headers.traceparent).toBeUndefined();
      expect(request.headers.tracestate).toBeUndefined();
    }
  });

  it('should send the traceparent of its own client span, child of the active span', async () => {
    expect(
      startTracing(buildConfig({ tracing: { enabled: true } }, {}), 'test', {
        spanProcessors: [new SimpleSpanProcessor(exporter)],
      }),
    ).toBe(true);
    const tracer = trace.getTracer('test');
    const parent = await tracer.startActiveSpan('attempt', async (span) => {
      // A job's own traceparent never replaces the real one.
      await deliverWebhookAttempt(
        input(`${rx.origin}/hook?token=secret-in-query`, {
          traceparent: '00-11111111111111111111111111111111-2222222222222222-01',
        }),
      );
      span.end();
      return span.spanContext();
    });

    const sent = TRACEPARENT.exec(String(rx.requests[0].headers.traceparent));
    expect(sent).not.toBeNull();
    const [, traceId, spanId, flags] = sent!;
    expect(traceId).toBe(parent.traceId);
    expect(flags).toBe('01');
    const client = exporter.getFinishedSpans().find((span) => span.kind === SpanKind.CLIENT);
    expect(client).toBeDefined();
    expect(client!.spanContext().spanId).toBe(spanId);
    expect(client!.parentSpanContext?.spanId).toBe(parent.spanId);
    expect(client!.name).toBe('POST');
    expect(client!.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.response.status_code': 200,
      'url.full': `${rx.origin}/hook`,
    });
  });

  it('should mark the client span failed for a status that is not a success', async () => {
    rx.setHandler((_req, res) => {
      res.statusCode = 503;
      res.end('busy');
    });
    await trace.getTracer('test').startActiveSpan('attempt', async (span) => {
      await deliverWebhookAttempt(input(`${rx.origin}/hook`));
      span.end();
    });
    const client = exporter.getFinishedSpans().find((span) => span.kind === SpanKind.CLIENT);
    expect(client!.attributes).toMatchObject({ 'http.response.status_code': 503, 'error.type': '503' });
    expect(client!.status.code).toBe(2); // ERROR
    expect(rx.requests[0].headers.traceparent).toMatch(TRACEPARENT);
  });

  it('should send the traceparent and tracestate of its own client span on webhook and Slack alerts', async () => {
    // The sendAlert activity's span, in a trace that came with a tracestate.
    const remote: SpanContext = {
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
      traceFlags: TraceFlags.SAMPLED,
      isRemote: true,
      traceState: createTraceState('vendor=abc'),
    };
    const active = await context.with(trace.setSpanContext(context.active(), remote), () =>
      trace.getTracer('test').startActiveSpan('RunActivity:sendAlert', async (span) => {
        expect((await sendAlert(webhookChannel(`${rx.origin}/alert?key=secret-in-query`))).delivered).toBe(true);
        expect((await sendAlert(slackChannel(`${rx.origin}/services/T0/B0/token`))).delivered).toBe(true);
        span.end();
        return span.spanContext();
      }),
    );
    expect(active.traceId).toBe(remote.traceId);

    const clients = exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.CLIENT);
    expect(clients).toHaveLength(2);
    expect(rx.requests).toHaveLength(2);
    rx.requests.forEach((request, i) => {
      const [, traceId, spanId, flags] = TRACEPARENT.exec(String(request.headers.traceparent)) ?? [];
      expect(traceId).toBe(active.traceId);
      expect(flags).toBe('01');
      expect(request.headers.tracestate).toBe('vendor=abc');
      expect(clients[i].spanContext().spanId).toBe(spanId);
      expect(clients[i].parentSpanContext?.spanId).toBe(active.spanId);
      expect(clients[i].attributes).toMatchObject({ 'http.request.method': 'POST', 'http.response.status_code': 200 });
    });
    // No query string; the Slack URL's path is its credential: only its first segment is recorded.
    expect(clients[0].attributes['url.full']).toBe(`${rx.origin}/alert`);
    expect(clients[1].attributes['url.full']).toBe(`${rx.origin}/services/REDACTED`);
    expect(JSON.stringify(clients.map((span) => span.attributes))).not.toMatch(/token|secret-in-query/);
  });

  it('should send no trace headers on an alert sent outside any span, tracing on', async () => {
    expect((await sendAlert(webhookChannel(`${rx.origin}/alert`))).delivered).toBe(true);
    expect(rx.requests[0].headers.traceparent).toBeUndefined();
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});

import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { buildConfig } from '@svc/common';
import { spanPipeline, startTracing, stopTracing } from '@svc/common/tracing';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor, WebhookReceiver } from '../utils/receiver';
import { apiClient, startStack, type Stack } from '../utils/stack';

/**
 * Traces (issue #13; docs/operations.md → Traces): with tracing on, one trace runs from the API
 * request through the Temporal client, the run workflow and its attempt activity to the webhook
 * request, which carries its W3C `traceparent`, and on to the alert webhook of a failed run; a
 * scheduled occurrence is a trace of its own, started in the job workflow. With tracing off (the
 * default) no SDK runs and no trace header leaves. API and worker run in this process, so one in-memory exporter sees every span,
 * workflow spans included (they leave the sandbox through the worker's sink); then the built
 * worker (`npm run build` first), configured by OTEL_* variables only, exports its spans (the
 * prebuilt traced bundle's workflow spans among them) to a loopback OTLP/HTTP collector.
 */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

describe('traces', () => {
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
  });

  afterAll(async () => {
    await receiver?.stop();
  });

  function webhookJob(path: string, expr = '0 0 0 1 1 ? 2031') {
    return {
      name: `traced ${path}`,
      schedule: { expr },
      sink: { kind: 'webhook', config: { url: `${receiver.url}${path}` } },
    };
  }

  // First: nothing has started an OpenTelemetry SDK in this process yet, as in production.
  describe('tracing off (default)', () => {
    let stack: Stack;
    let api: ReturnType<typeof apiClient>;

    beforeAll(async () => {
      stack = await startStack();
      api = apiClient(stack.baseUrl, stack.apiKey);
    });

    afterAll(async () => {
      await stack?.stop();
    });

    it('should be off without OTEL_* variables, and send no trace header even when the caller sends one', async () => {
      expect(stack.config.tracing.enabled).toBe(false);
      expect(spanPipeline()).toBeNull();
      const job = await api('POST', '/api/v1/jobs', webhookJob('/off'));
      expect(job.status).toBe(201);
      const trigger = await api('POST', `/api/v1/jobs/${job.body.id}/trigger`, undefined, {
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      });
      expect(trigger.status).toBe(202);
      const [delivery] = await waitFor(() => {
        const got = receiver.requests.filter((r) => r.url === '/off');
        return got.length > 0 ? got : null;
      });
      expect(delivery.headers['svc-job-id']).toBe(job.body.id);
      expect(delivery.headers.traceparent).toBeUndefined();
      expect(delivery.headers.tracestate).toBeUndefined();
    });
  });

  describe('tracing on', () => {
    const exporter = new InMemorySpanExporter();

    beforeAll(() => {
      // As main.ts does, with an in-memory exporter in place of the OTEL_* ones.
      expect(
        startTracing(buildConfig({ tracing: { enabled: true } }, {}), 'test', {
          spanProcessors: [new SimpleSpanProcessor(exporter)],
        }),
      ).toBe(true);
    });

    afterAll(async () => {
      await stopTracing();
    });

    const spansOf = (traceId: string) => exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
    const named = (spans: ReadableSpan[], name: string) => spans.find((s) => s.name === name);
    /** The trace's spans once `names` have all ended (workflow spans arrive when the workflow completes). */
    const traceWith = (traceId: string, names: string[]) =>
      waitFor(() => {
        const spans = spansOf(traceId);
        return names.every((name) => named(spans, name)) ? spans : null;
      });
    const deliveryTo = (path: string) => waitFor(() => receiver.requests.find((r) => r.url === path) ?? null, 30_000);

    describe('API and worker in this process', () => {
      let stack: Stack;
      let api: ReturnType<typeof apiClient>;

      beforeAll(async () => {
        stack = await startStack({ config: { tracing: { enabled: true } } });
        api = apiClient(stack.baseUrl, stack.apiKey);
      });

      afterAll(async () => {
        await stack?.stop();
      });

      it('should link a trigger request to its delivery in one trace: API, workflow start, run workflow, attempt, request', async () => {
        const job = await api('POST', '/api/v1/jobs', webhookJob('/on'));
        expect(job.status).toBe(201);
        const trigger = await api('POST', `/api/v1/jobs/${job.body.id}/trigger`);
        expect(trigger.status).toBe(202);
        const runId: string = trigger.body.run_id;

        const delivery = await deliveryTo('/on');
        const [, traceId, parentSpanId] = TRACEPARENT.exec(String(delivery.headers.traceparent)) ?? [];
        expect(traceId).toBeDefined();

        const spans = await traceWith(traceId, [
          'POST /api/v1/jobs/:id/trigger',
          'StartWorkflow:runWorkflow',
          'RunWorkflow:runWorkflow',
          'StartActivity:runAttempt',
          'RunActivity:runAttempt',
        ]);
        const request = named(spans, 'POST /api/v1/jobs/:id/trigger')!;
        expect(request.kind).toBe(SpanKind.SERVER);
        expect(request.parentSpanContext).toBeUndefined(); // the caller sent no traceparent
        expect(request.attributes).toMatchObject({
          'http.request.method': 'POST',
          'http.route': '/api/v1/jobs/:id/trigger',
          'http.response.status_code': 202,
          'url.path': `/api/v1/jobs/${job.body.id}/trigger`,
        });
        const start = named(spans, 'StartWorkflow:runWorkflow')!;
        const run = named(spans, 'RunWorkflow:runWorkflow')!;
        const scheduleAttempt = named(spans, 'StartActivity:runAttempt')!;
        const attempt = named(spans, 'RunActivity:runAttempt')!;
        const webhook = spans.find((s) => s.kind === SpanKind.CLIENT && s.name === 'POST')!;
        expect(start.attributes.temporalWorkflowId).toBe(runId);
        expect(run.attributes).toMatchObject({ temporalWorkflowId: runId, temporalWorkflowType: 'runWorkflow' });
        expect(run.resource.attributes['service.name']).toBe('svc-scheduler-test');
        // Each hop is the child of the one before it, down to the request that carried traceparent.
        expect(start.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
        expect(run.parentSpanContext?.spanId).toBe(start.spanContext().spanId);
        expect(scheduleAttempt.parentSpanContext?.spanId).toBe(run.spanContext().spanId);
        expect(attempt.parentSpanContext?.spanId).toBe(scheduleAttempt.spanContext().spanId);
        expect(webhook.parentSpanContext?.spanId).toBe(attempt.spanContext().spanId);
        expect(webhook.spanContext().spanId).toBe(parentSpanId);
        expect(webhook.attributes).toMatchObject({
          'http.response.status_code': 200,
          'url.full': `${receiver.url}/on`,
        });
      });

      it("should continue the caller's trace when the request carries a traceparent", async () => {
        const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
        const callerSpan = '00f067aa0ba902b7';
        const job = await api('POST', '/api/v1/jobs', webhookJob('/caller'));
        const trigger = await api('POST', `/api/v1/jobs/${job.body.id}/trigger`, undefined, {
          traceparent: `00-${callerTrace}-${callerSpan}-01`,
        });
        expect(trigger.status).toBe(202);
        const delivery = await deliveryTo('/caller');
        expect(TRACEPARENT.exec(String(delivery.headers.traceparent))?.[1]).toBe(callerTrace);
        const spans = await traceWith(callerTrace, ['POST /api/v1/jobs/:id/trigger', 'RunActivity:runAttempt']);
        expect(named(spans, 'POST /api/v1/jobs/:id/trigger')!.parentSpanContext?.spanId).toBe(callerSpan);
      });

      it("should carry the API request's trace on a sink test's request", async () => {
        const job = await api('POST', '/api/v1/jobs', webhookJob('/sink-test'));
        const test = await api('POST', `/api/v1/jobs/${job.body.id}/test`);
        expect(test.status).toBe(200);
        const delivery = await deliveryTo('/sink-test');
        expect(delivery.headers['svc-test']).toBe('true');
        const [, traceId, parentSpanId] = TRACEPARENT.exec(String(delivery.headers.traceparent)) ?? [];
        const spans = await traceWith(traceId, ['POST /api/v1/jobs/:id/test', 'POST']);
        const webhook = spans.find((s) => s.kind === SpanKind.CLIENT)!;
        expect(webhook.spanContext().spanId).toBe(parentSpanId);
        expect(webhook.parentSpanContext?.spanId).toBe(
          named(spans, 'POST /api/v1/jobs/:id/test')!.spanContext().spanId,
        );
      });

      it("should carry a failed run's trace on to its alert webhook: run → alert workflow → sendAlert → request", async () => {
        receiver.respondWith((request) =>
          request.url === '/fails' ? { status: 500, body: 'down' } : { status: 200, body: 'ok' },
        );
        try {
          const channel = await api('POST', '/api/v1/alert-channels', {
            name: 'traced hook',
            kind: 'webhook',
            config: { url: `${receiver.url}/alert` },
          });
          expect(channel.status).toBe(201);
          const job = await api('POST', '/api/v1/jobs', { ...webhookJob('/fails'), retry: { max_attempts: 1 } });
          expect(job.status).toBe(201);
          const rule = await api('POST', '/api/v1/alert-rules', {
            name: 'traced failures',
            channel_ids: [channel.body.id],
            events: ['run.failed'],
            job_ids: [job.body.id],
          });
          expect(rule.status).toBe(201);
          expect((await api('POST', `/api/v1/jobs/${job.body.id}/trigger`)).status).toBe(202);

          const [, traceId] = TRACEPARENT.exec(String((await deliveryTo('/fails')).headers.traceparent)) ?? [];
          expect(traceId).toBeDefined();
          const alert = await deliveryTo('/alert');
          expect(alert.headers['svc-event-type']).toBe('run.failed');
          const [, alertTraceId, alertSpanId] = TRACEPARENT.exec(String(alert.headers.traceparent)) ?? [];
          expect(alertTraceId).toBe(traceId);
          const spans = await traceWith(traceId, [
            'StartWorkflow:alertWorkflow',
            'RunWorkflow:alertWorkflow',
            'StartActivity:sendAlert',
            'RunActivity:sendAlert',
          ]);
          const request = spans.find((s) => s.kind === SpanKind.CLIENT && s.spanContext().spanId === alertSpanId);
          expect(request).toBeDefined();
          expect(request!.parentSpanContext?.spanId).toBe(named(spans, 'RunActivity:sendAlert')!.spanContext().spanId);
          expect(request!.attributes).toMatchObject({
            'http.response.status_code': 200,
            'url.full': `${receiver.url}/alert`,
          });
        } finally {
          receiver.respondWith(() => ({ status: 200, body: 'ok' }));
        }
      });

      it('should start a trace of its own for a scheduled occurrence, in the job workflow', async () => {
        const job = await api('POST', '/api/v1/jobs', webhookJob('/scheduled', 'every 1 second'));
        expect(job.status).toBe(201);
        const created = exporter
          .getFinishedSpans()
          .filter((s) => s.name === 'POST /api/v1/jobs' && s.attributes['http.response.status_code'] === 201)
          .pop()!;
        expect(created).toBeDefined();

        const delivery = await deliveryTo('/scheduled');
        expect(delivery.headers['svc-job-id']).toBe(job.body.id);
        const [, traceId] = TRACEPARENT.exec(String(delivery.headers.traceparent)) ?? [];
        expect(traceId).toBeDefined();
        expect(traceId).not.toBe(created.spanContext().traceId);
        // An `allow` job's plan opens its runs (issue 25): the occurrence's trace starts there.
        const spans = await traceWith(traceId, [
          'job.occurrence',
          'StartActivity:planOccurrences',
          'RunActivity:planOccurrences',
          'StartWorkflow:runWorkflow',
          'RunWorkflow:runWorkflow',
          'RunActivity:runAttempt',
        ]);
        const occurrence = named(spans, 'job.occurrence')!;
        expect(occurrence.parentSpanContext).toBeUndefined();
        expect(occurrence.attributes).toMatchObject({
          'svc.job.id': job.body.id,
          temporalWorkflowId: job.body.id,
          temporalWorkflowType: 'jobWorkflow',
        });
        // Linked to the job workflow's own span, which belongs to the trace of the create request.
        expect(occurrence.links[0]?.context.traceId).toBe(created.spanContext().traceId);
        expect(named(spans, 'RunActivity:planOccurrences')!.parentSpanContext?.spanId).toBe(
          named(spans, 'StartActivity:planOccurrences')!.spanContext().spanId,
        );
        expect(occurrence.attributes['svc.occurrences.due']).toBeGreaterThanOrEqual(1);
        await api('DELETE', `/api/v1/jobs/${job.body.id}`);
      });
    });

    describe('built worker process configured by OTEL_* variables', () => {
      let stack: Stack;
      let api: ReturnType<typeof apiClient>;
      let collector: OtlpCollector;
      const saved: Record<string, string | undefined> = {};

      beforeAll(async () => {
        collector = await OtlpCollector.start();
        const env: Record<string, string> = {
          OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
          OTEL_BSP_SCHEDULE_DELAY: '100',
        };
        // The spawned worker inherits this process's environment (stack.spawnWorker).
        for (const [name, value] of Object.entries(env)) {
          saved[name] = process.env[name];
          process.env[name] = value;
        }
        stack = await startStack({ worker: false, config: { tracing: { enabled: true } } });
        api = apiClient(stack.baseUrl, stack.apiKey);
        await stack.spawnWorker();
      });

      afterAll(async () => {
        await stack?.stop();
        await collector?.stop();
        for (const [name, value] of Object.entries(saved)) {
          if (value === undefined) {
            delete process.env[name];
          } else {
            process.env[name] = value;
          }
        }
      });

      it("should export the worker's workflow, activity and request spans over OTLP, in the request's trace", async () => {
        const job = await api('POST', '/api/v1/jobs', webhookJob('/built'));
        const trigger = await api('POST', `/api/v1/jobs/${job.body.id}/trigger`);
        expect(trigger.status).toBe(202);
        const delivery = await deliveryTo('/built');
        const [, traceId, parentSpanId] = TRACEPARENT.exec(String(delivery.headers.traceparent)) ?? [];
        expect(traceId).toBeDefined();
        // This process's API span opened the trace that the worker's process continued.
        const local = await traceWith(traceId, ['POST /api/v1/jobs/:id/trigger', 'StartWorkflow:runWorkflow']);
        const exported = await waitFor(() => {
          const spans = collector.spans.filter((span) => span.traceId === traceId);
          const names = ['RunWorkflow:runWorkflow', 'StartActivity:runAttempt', 'RunActivity:runAttempt', 'POST'];
          return names.every((name) => spans.some((span) => span.name === name)) ? spans : null;
        });
        expect(new Set(exported.map((span) => span.serviceName))).toEqual(new Set(['svc-scheduler-worker']));
        expect(exported.find((span) => span.name === 'POST')!.spanId).toBe(parentSpanId);
        expect(exported.find((span) => span.name === 'RunWorkflow:runWorkflow')!.parentSpanId).toBe(
          named(local, 'StartWorkflow:runWorkflow')!.spanContext().spanId,
        );
      });
    });
  });
});

interface CollectedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  serviceName: string | undefined;
}

interface OtlpTraceRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: Array<{ key: string; value: { stringValue?: string } }> };
    scopeSpans?: Array<{ spans?: Array<{ traceId: string; spanId: string; parentSpanId?: string; name: string }> }>;
  }>;
}

/** A loopback OTLP/HTTP collector (JSON encoding): records the spans posted to `/v1/traces`. */
class OtlpCollector {
  readonly spans: CollectedSpan[] = [];
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<OtlpCollector> {
    const holder: { collector?: OtlpCollector } = {};
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        if (req.url === '/v1/traces') {
          holder.collector!.record(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpTraceRequest);
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    holder.collector = new OtlpCollector(server, `http://127.0.0.1:${port}`);
    return holder.collector;
  }

  private record(body: OtlpTraceRequest): void {
    for (const resourceSpans of body.resourceSpans ?? []) {
      const serviceName = resourceSpans.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue;
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({
            traceId: hexId(span.traceId),
            spanId: hexId(span.spanId),
            parentSpanId: hexId(span.parentSpanId ?? ''),
            name: span.name,
            serviceName,
          });
        }
      }
    }
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** OTLP/JSON ids are hex; base64 (some encoders) is accepted too. */
function hexId(id: string): string {
  return /^[0-9a-f]*$/.test(id) ? id : Buffer.from(id, 'base64').toString('hex');
}

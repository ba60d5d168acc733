/**
 * The workflow interceptor module of traced bundles (`workflowInterceptorModules`; only bundled
 * when tracing is on, see apps/worker/src/temporal/tracing.ts). It keeps the SDK's OpenTelemetry
 * workflow interceptors (`@temporalio/interceptors-opentelemetry`: context from and into Temporal
 * headers, a span per workflow run, signal and scheduled activity) with two changes:
 * - spans come from a tracer whose ids never draw on the workflow's `Math.random` (span-ids.ts),
 *   so a history replays to the same run ids whether tracing is on or off;
 * - queries make no span: they are not in history, so a span per query would shift the ids a
 *   replay recomputes.
 * Spans leave the sandbox through the `svcTraces` sink.
 */
// First: this module installs the `performance` global the OpenTelemetry SDK reads when loaded.
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow';
import { type Attributes, context, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import {
  type Next,
  proxySinks,
  type QueryInput,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptors,
  workflowInfo,
} from '@temporalio/workflow';
import type { SerializedSpan, SerializedSpanContext, TraceSinks } from './definitions';
import { setNewTrace } from './new-trace';
import { seededSpanIds } from './span-ids';

const INSTRUMENTATION_SCOPE = '@svc/workflows';

/** Hands finished spans to the worker through the sink (not called while replaying). */
class SinkSpanExporter implements SpanExporter {
  private readonly sinks = proxySinks<TraceSinks>();

  export(spans: ReadableSpan[], done: Parameters<SpanExporter['export']>[1]): void {
    this.sinks.svcTraces.export(spans.map(serializeSpan));
    done({ code: 0 });
  }

  async shutdown(): Promise<void> {
    // Nothing buffered here.
  }
}

// Module state is per workflow execution (the bundle's module cache is).
let tracer: Tracer | undefined;

function workflowTracer(): Tracer {
  if (tracer === undefined) {
    const provider = new BasicTracerProvider({
      idGenerator: seededSpanIds(workflowInfo().runId),
      spanProcessors: [new SimpleSpanProcessor(new SinkSpanExporter())],
    });
    tracer = provider.getTracer(INSTRUMENTATION_SCOPE);
  }
  return tracer;
}

class InboundInterceptor extends OpenTelemetryInboundInterceptor {
  protected override readonly tracer = workflowTracer();

  override async handleQuery(
    input: QueryInput,
    next: Next<WorkflowInboundCallsInterceptor, 'handleQuery'>,
  ): Promise<unknown> {
    return next(input);
  }
}

class OutboundInterceptor extends OpenTelemetryOutboundInterceptor {
  protected override readonly tracer = workflowTracer();
}

/** A root span of its own trace, linked to the span that was active (see new-trace.ts). */
async function newTrace<T>(
  name: string,
  attributes: Attributes,
  fn: () => Promise<T>,
  attributesOf?: (result: T) => Attributes,
): Promise<T> {
  const current = trace.getSpanContext(context.active());
  return workflowTracer().startActiveSpan(
    name,
    { root: true, attributes, links: current ? [{ context: current }] : [] },
    async (span) => {
      try {
        const result = await fn();
        if (attributesOf) {
          span.setAttributes(attributesOf(result));
        }
        return result;
      } catch (err) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
        throw err;
      } finally {
        span.end();
      }
    },
  );
}

export const interceptors = (): WorkflowInterceptors => {
  setNewTrace(newTrace);
  return {
    inbound: [new InboundInterceptor()],
    outbound: [new OutboundInterceptor()],
    internals: [new OpenTelemetryInternalsInterceptor()],
  };
};

function serializeContext(ctx: {
  traceId: string;
  spanId: string;
  traceFlags: number;
  isRemote?: boolean;
  traceState?: { serialize(): string };
}): SerializedSpanContext {
  return {
    traceId: ctx.traceId,
    spanId: ctx.spanId,
    traceFlags: ctx.traceFlags,
    isRemote: ctx.isRemote,
    traceState: ctx.traceState?.serialize() || undefined,
  };
}

function serializeSpan(span: ReadableSpan): SerializedSpan {
  return {
    name: span.name,
    kind: span.kind,
    spanContext: serializeContext(span.spanContext()),
    parentSpanContext: span.parentSpanContext ? serializeContext(span.parentSpanContext) : undefined,
    startTime: span.startTime,
    endTime: span.endTime,
    duration: span.duration,
    status: span.status,
    attributes: span.attributes,
    links: span.links.map((link) => ({
      context: serializeContext(link.context),
      attributes: link.attributes,
      droppedAttributesCount: link.droppedAttributesCount,
    })),
    events: span.events.map((event) => ({
      name: event.name,
      time: event.time,
      attributes: event.attributes,
      droppedAttributesCount: event.droppedAttributesCount,
    })),
    instrumentationScope: {
      name: span.instrumentationScope.name,
      version: span.instrumentationScope.version,
      schemaUrl: span.instrumentationScope.schemaUrl,
    },
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}

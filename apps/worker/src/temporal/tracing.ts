/**
 * What tracing adds to the worker (docs/operations.md → Traces): a span per activity, child of
 * the span that scheduled it (context from the Temporal headers; the webhook request inside it
 * carries `traceparent`), and the spans of workflow code, which leave the sandbox through the
 * `svcTraces` sink and join this process's exporters. With tracing off none of it is installed,
 * and the workflow bundle has no interceptors (see `workflowBundleFile`).
 */
import { createTraceState, type SpanContext } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { exportFinishedSpans, spanPipeline } from '@svc/common/tracing';
import type { SerializedSpan, SerializedSpanContext, TraceSinks } from '@svc/workflows/tracing/definitions';
import {
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import type { InjectedSinks, WorkerInterceptors } from '@temporalio/worker';

/** Interceptors and sinks of a worker; empty with tracing off. */
export function workerTracingOptions(traced: boolean): {
  interceptors?: WorkerInterceptors;
  sinks?: InjectedSinks<TraceSinks>;
} {
  if (!traced) {
    return {};
  }
  return {
    interceptors: {
      activity: [
        (ctx) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
          outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
    },
    sinks: {
      svcTraces: {
        export: {
          fn: (info, spans) => {
            const pipeline = spanPipeline();
            if (!pipeline) {
              return;
            }
            const attributes = {
              temporalWorkflowId: info.workflowId,
              temporalRunId: info.runId,
              temporalWorkflowType: info.workflowType,
            };
            exportFinishedSpans(spans.map((span) => toReadableSpan(span, pipeline.resource, attributes)));
          },
        },
      },
    },
  };
}

function toSpanContext(ctx: SerializedSpanContext): SpanContext {
  return {
    traceId: ctx.traceId,
    spanId: ctx.spanId,
    traceFlags: ctx.traceFlags,
    isRemote: ctx.isRemote,
    traceState: ctx.traceState ? createTraceState(ctx.traceState) : undefined,
  };
}

/** A span of workflow code as the SDK's processors take it, with the worker's resource. */
export function toReadableSpan(
  span: SerializedSpan,
  resource: ReadableSpan['resource'],
  attributes: Record<string, string>,
): ReadableSpan {
  const spanContext = toSpanContext(span.spanContext);
  return {
    name: span.name,
    kind: span.kind,
    spanContext: () => spanContext,
    parentSpanContext: span.parentSpanContext ? toSpanContext(span.parentSpanContext) : undefined,
    startTime: span.startTime,
    endTime: span.endTime,
    duration: span.duration,
    status: span.status,
    attributes: { ...span.attributes, ...attributes },
    links: span.links.map((link) => ({ ...link, context: toSpanContext(link.context) })),
    events: span.events,
    ended: true,
    resource,
    instrumentationScope: span.instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}

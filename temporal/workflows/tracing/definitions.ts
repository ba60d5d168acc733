/**
 * What workflow spans look like on their way out of the workflow sandbox: the worker receives
 * them through the `svcTraces` sink and hands them to its OpenTelemetry span processors
 * (apps/worker/src/temporal/tracing.ts). Plain data only: sink arguments are copied out of the
 * sandbox, so class instances (trace state, resources) travel as strings or not at all.
 */
import type { Attributes, HrTime, SpanKind, SpanStatus } from '@opentelemetry/api';
import type { Sinks } from '@temporalio/workflow';

export interface SerializedSpanContext {
  traceId: string;
  spanId: string;
  traceFlags: number;
  isRemote?: boolean;
  /** W3C `tracestate` text. */
  traceState?: string;
}

export interface SerializedSpan {
  name: string;
  kind: SpanKind;
  spanContext: SerializedSpanContext;
  parentSpanContext?: SerializedSpanContext;
  startTime: HrTime;
  endTime: HrTime;
  duration: HrTime;
  status: SpanStatus;
  attributes: Attributes;
  links: Array<{ context: SerializedSpanContext; attributes?: Attributes; droppedAttributesCount?: number }>;
  events: Array<{ name: string; time: HrTime; attributes?: Attributes; droppedAttributesCount?: number }>;
  instrumentationScope: { name: string; version?: string; schemaUrl?: string };
  droppedAttributesCount: number;
  droppedEventsCount: number;
  droppedLinksCount: number;
}

export interface TraceSinks extends Sinks {
  svcTraces: { export(spans: SerializedSpan[]): void };
}

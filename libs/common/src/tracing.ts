/**
 * OpenTelemetry traces of one process (docs/operations.md → Traces), off unless
 * `config.tracing.enabled`. The exporters, sampler, propagators and resource come from the
 * standard `OTEL_*` variables, read by the OpenTelemetry SDK itself (`NodeSDK`); this module only
 * keeps hold of the span processors so that spans made outside the SDK's tracers (those of
 * workflows, which leave the Temporal sandbox through a sink) reach the same exporters.
 * Traces only: the SDK's metrics and logs stay off (metrics are Prometheus, docs/operations.md).
 */
import {
  defaultResource,
  detectResources,
  envDetector,
  resourceFromAttributes,
  type Resource,
} from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
// The very functions NodeSDK calls to read OTEL_TRACES_EXPORTER / OTEL_EXPORTER_OTLP_* and
// OTEL_NODE_RESOURCE_DETECTORS (not re-exported by the package; the version is pinned): with the
// processors in hand, workflow spans go to the same exporters as every other span.
import { getResourceDetectorsFromEnv, getSpanProcessorsFromEnv } from '@opentelemetry/sdk-node/build/src/utils';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { AppConfig } from './config';

/** Where finished spans go in this process. */
export interface SpanPipeline {
  resource: Resource;
  processors: SpanProcessor[];
}

let running: { sdk: NodeSDK; pipeline: SpanPipeline } | null = null;

export interface StartTracingOptions {
  /** Used instead of the exporters the `OTEL_*` variables name (tests: an in-memory exporter). */
  spanProcessors?: SpanProcessor[];
}

/**
 * Starts the OpenTelemetry SDK of this process when tracing is enabled (once per process; call
 * before the app is assembled). The service name is `OTEL_SERVICE_NAME` (or `service.name` in
 * `OTEL_RESOURCE_ATTRIBUTES`) when set, else `<service_name>-<component>`.
 * @returns whether tracing runs in this process.
 */
export function startTracing(config: AppConfig, component: string, options: StartTracingOptions = {}): boolean {
  if (running) {
    return true;
  }
  if (!config.tracing.enabled) {
    return false;
  }
  const processors = options.spanProcessors ?? getSpanProcessorsFromEnv(undefined);
  const named = detectResources({ detectors: [envDetector] }).attributes[ATTR_SERVICE_NAME] !== undefined;
  const resource = defaultResource()
    .merge(detectResources({ detectors: getResourceDetectorsFromEnv() }))
    .merge(named ? null : resourceFromAttributes({ [ATTR_SERVICE_NAME]: `${config.service_name}-${component}` }));
  const sdk = new NodeSDK({
    resource,
    autoDetectResources: false,
    spanProcessors: processors,
    // Traces only: no OpenTelemetry metrics or logs (each would default to an OTLP exporter).
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [],
  });
  sdk.start();
  running = { sdk, pipeline: { resource, processors } };
  return true;
}

/** The running span pipeline, or null when tracing is off in this process. */
export function spanPipeline(): SpanPipeline | null {
  return running?.pipeline ?? null;
}

/** Hands spans finished elsewhere (workflow spans) to this process's span processors. */
export function exportFinishedSpans(spans: readonly ReadableSpan[]): void {
  const processors = running?.pipeline.processors ?? [];
  for (const span of spans) {
    for (const processor of processors) {
      processor.onEnd(span);
    }
  }
}

/** Sends what the batch processors still hold (on shutdown). */
export async function flushTracing(): Promise<void> {
  await Promise.all((running?.pipeline.processors ?? []).map((processor) => processor.forceFlush()));
}

/** Flushes and stops the SDK (tests that start it themselves). */
export async function stopTracing(): Promise<void> {
  const current = running;
  running = null;
  await current?.sdk.shutdown();
}

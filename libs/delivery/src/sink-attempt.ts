/**
 * A stored sink (`sink.kind` + `sink.config`) and the registry helpers every caller shares. What a
 * kind is lives in sinks/sink-kind.ts; which kinds exist, in the process's `SinkRegistry`.
 */
import { CommandSinkKind } from './sinks/command.kind';
import { processSinkRegistry, SinkRegistry } from './sinks/registry';
import { applyRunOverrides, inapplicableOverrides, type RunOverrides } from './sinks/run-overrides';
import type { AnySinkKind } from './sinks/sink-kind';
import { TemporalWorkflowSinkKind } from './sinks/temporal-workflow.kind';
import { WebhookSinkKind } from './sinks/webhook.kind';

export interface Sink {
  kind: string;
  config: Record<string, unknown>;
}

/** A stored sink; null for a kind this process does not know. */
export function toSink(kind: string, config: unknown, registry = defaultSinkRegistry()): Sink | null {
  return registry.get(kind) ? { kind, config: config as Record<string, unknown> } : null;
}

/**
 * What one run sends: the stored sink with the run's overrides applied (run-overrides.ts), or why
 * it cannot be sent as asked (the job's sink kind changed since the run was opened).
 */
export function withRunOverrides(
  sink: Sink,
  overrides: RunOverrides | null | undefined,
  registry = defaultSinkRegistry(),
): Sink | { error: string } {
  const kind = registry.get(sink.kind);
  if (!overrides || !kind) {
    return sink;
  }
  const misfit = inapplicableOverrides(kind, overrides);
  if (misfit.length > 0) {
    return { error: `the run's overrides (${misfit.join(', ')}) do not apply to the job's ${sink.kind} sink` };
  }
  return { kind: sink.kind, config: applyRunOverrides(kind, sink.config, overrides) };
}

/**
 * The built-in kinds' classes, in the order every list of kinds starts with (the OpenAPI document,
 * the dashboard); the Nest glue provides each like any other module's kind.
 */
export const BUILT_IN_SINK_KIND_TYPES: readonly (new () => AnySinkKind)[] = [
  WebhookSinkKind,
  CommandSinkKind,
  TemporalWorkflowSinkKind,
];

/** The built-in kinds, one instance each. */
export function builtInSinkKinds(): AnySinkKind[] {
  return BUILT_IN_SINK_KIND_TYPES.map((Kind) => new Kind());
}

let fallback: SinkRegistry | null = null;

/** The process's registry once the Nest glue set it; the built-ins alone before (pure unit tests, scripts). */
export function defaultSinkRegistry(): SinkRegistry {
  const registry = processSinkRegistry();
  if (registry) {
    return registry;
  }
  fallback ??= new SinkRegistry(builtInSinkKinds());
  return fallback;
}

/** What the attempt record shows before anything is sent (`safe` delivery mode). */
export function summarizeSink(sink: Sink, registry = defaultSinkRegistry()): string {
  return registry.get(sink.kind)?.summarize(sink.config) ?? sink.kind;
}

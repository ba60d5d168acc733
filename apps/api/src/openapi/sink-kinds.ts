import type { JsonSchema } from '../common/openapi/schema';
import { SCHEMA_REF_PREFIX } from './dto-schemas';

/** What the OpenAPI document needs of a registered sink kind (sinks/sink-kind.ts). */
export interface SinkKindDoc {
  kind: string;
  description: string;
  configSchema: JsonSchema;
  /** Accepted in requests on this server; a disabled kind may still be stored on older jobs. */
  enabled: boolean;
}

/** `temporal_workflow` → `TemporalWorkflowSinkConfig`. */
export function sinkConfigComponentName(kind: string): string {
  return `${kind.replace(/(^|_)([a-z0-9])/g, (_, __, c: string) => c.toUpperCase())}SinkConfig`;
}

/**
 * Makes the document describe each registered sink kind precisely (docs/extending.md): one
 * component per kind's config schema, and wherever a sink is written (`SinkDto` of create and
 * sink tests: the kinds enabled here) or read (the `Job` response: every registered kind) a
 * `oneOf` of `{kind: <const>, config: <that kind's config>}`; PATCH's `SinkPatchDto.kind` becomes
 * the enum of enabled kinds (its `config` is a partial, merged before validation: an object).
 */
export function applySinkKinds(components: Record<string, JsonSchema>, kinds: readonly SinkKindDoc[]): void {
  const enabled = kinds.filter((kind) => kind.enabled);
  if (enabled.length === 0) {
    return;
  }
  const sinkOf = (some: readonly SinkKindDoc[]): JsonSchema => ({
    description: `A sink: \`kind\` (${some.map((k) => `\`${k.kind}\``).join(', ')}) and its configuration.`,
    oneOf: some.map((kind) => {
      const name = sinkConfigComponentName(kind.kind);
      components[name] = { ...kind.configSchema, description: kind.description };
      return {
        type: 'object',
        additionalProperties: false,
        required: ['kind', 'config'],
        properties: { kind: { const: kind.kind }, config: { $ref: `${SCHEMA_REF_PREFIX}${name}` } },
      };
    }),
  });
  if (components.SinkDto) {
    components.SinkDto = sinkOf(enabled);
  }
  const job = components.Job as { properties?: Record<string, JsonSchema> } | undefined;
  if (job?.properties?.sink) {
    job.properties.sink = sinkOf(kinds);
  }
  const patch = components.SinkPatchDto as { properties?: Record<string, JsonSchema> } | undefined;
  if (patch?.properties?.kind) {
    patch.properties.kind = { enum: enabled.map((k) => k.kind) };
  }
}

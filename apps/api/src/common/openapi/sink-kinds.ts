import type { JsonSchema } from './schema';
import { SCHEMA_REF_PREFIX } from './dto-schemas';

/** What the OpenAPI document needs of a registered sink kind (sinks/sink-kind.ts). */
export interface SinkKindDoc {
  kind: string;
  description: string;
  configSchema: JsonSchema;
}

/** `temporal_workflow` → `TemporalWorkflowSinkConfig`. */
export function sinkConfigComponentName(kind: string): string {
  return `${kind.replace(/(^|_)([a-z0-9])/g, (_, __, c: string) => c.toUpperCase())}SinkConfig`;
}

/**
 * Makes the document describe each registered sink kind precisely (docs/extending.md): one
 * component per kind's config schema, and wherever a sink is read or written (`SinkDto` of create
 * and sink tests, the `Job` response) a `oneOf` of `{kind: <const>, config: <that kind's config>}`;
 * PATCH's `SinkPatchDto.kind` becomes the enum of registered kinds (its `config` is a partial,
 * merged before validation, so it stays an object).
 */
export function applySinkKinds(components: Record<string, JsonSchema>, kinds: readonly SinkKindDoc[]): void {
  if (kinds.length === 0) {
    return;
  }
  const variants = kinds.map((kind) => {
    const name = sinkConfigComponentName(kind.kind);
    components[name] = { ...kind.configSchema, description: kind.description };
    return {
      type: 'object',
      additionalProperties: false,
      required: ['kind', 'config'],
      properties: { kind: { const: kind.kind }, config: { $ref: `${SCHEMA_REF_PREFIX}${name}` } },
    };
  });
  const sink: JsonSchema = {
    description: `A sink: \`kind\` (${kinds.map((k) => `\`${k.kind}\``).join(', ')}) and its configuration.`,
    oneOf: variants,
  };
  if (components.SinkDto) {
    components.SinkDto = sink;
  }
  const job = components.Job as { properties?: Record<string, JsonSchema> } | undefined;
  if (job?.properties?.sink) {
    job.properties.sink = sink;
  }
  const patch = components.SinkPatchDto as { properties?: Record<string, JsonSchema> } | undefined;
  if (patch?.properties?.kind) {
    patch.properties.kind = { enum: kinds.map((k) => k.kind) };
  }
}

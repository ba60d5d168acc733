/**
 * JSON Schema (2020-12, the dialect of OpenAPI 3.1) building blocks for response schemas. A schema
 * wrapped in `named()` becomes a component (`#/components/schemas/<Name>`) of the generated
 * document; anything else is inlined where it is used.
 */
export type JsonSchema = { [keyword: string]: unknown };

const SCHEMA_NAME = Symbol('openapi.schemaName');

/** Marks a schema as the component `name` (a shallow copy: the original stays untouched). */
export function named<T extends JsonSchema>(name: string, schema: T): T {
  const copy = { ...schema };
  Object.defineProperty(copy, SCHEMA_NAME, { value: name, enumerable: false });
  return copy;
}

/** The component name given by `named()`, if any. */
export function schemaName(schema: unknown): string | undefined {
  return schema && typeof schema === 'object' ? (schema as Record<symbol, string>)[SCHEMA_NAME] : undefined;
}

/** An object whose listed properties are all required (the usual shape of a response). */
export function object(properties: Record<string, JsonSchema>, optional: string[] = []): JsonSchema {
  return {
    type: 'object',
    required: Object.keys(properties).filter((key) => !optional.includes(key)),
    properties,
  };
}

/** `schema` or `null`. */
export function nullable(schema: JsonSchema): JsonSchema {
  const type = schema.type;
  if (typeof type === 'string') {
    return { ...schema, type: [type, 'null'], ...(schema.enum ? { enum: [...(schema.enum as unknown[]), null] } : {}) };
  }
  return { anyOf: [schema, { type: 'null' }] };
}

export const string: JsonSchema = { type: 'string' };
export const integer: JsonSchema = { type: 'integer' };
export const number: JsonSchema = { type: 'number' };
export const boolean: JsonSchema = { type: 'boolean' };
/** RFC 3339 in UTC, as every timestamp of the API (spec → Conventions). */
export const timestamp: JsonSchema = { type: 'string', format: 'date-time' };
/** A free-form JSON object. */
export const anyObject: JsonSchema = { type: 'object', additionalProperties: true };

export function enumOf(values: readonly string[]): JsonSchema {
  return { type: 'string', enum: [...values] };
}

export function arrayOf(items: JsonSchema): JsonSchema {
  return { type: 'array', items };
}

/** A prefixed ULID (`job_01H…`), as `isId` (`@svc/workflow-contract/ids`) accepts. */
export function idOf(prefix: string): JsonSchema {
  return { type: 'string', pattern: `^${prefix}_[0-9A-HJKMNP-TV-Z]{26}$` };
}

/** The list envelope (spec → Conventions): `{data, next_cursor}`, `null` on the last page. */
export function pageOf(name: string, item: JsonSchema): JsonSchema {
  return named(name, {
    type: 'object',
    required: ['data', 'next_cursor'],
    properties: {
      data: arrayOf(item),
      next_cursor: {
        type: ['string', 'null'],
        description: 'Opaque cursor of the next page (send it as `cursor`); `null` on the last page.',
      },
    },
  });
}

import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import type { SinkFieldErrors, SinkJsonSchema } from './sink-kind';

// One instance for every kind's schema: `strict` off so OpenAPI-only keywords (`examples`,
// `x-*`) pass; no coercion, no defaults (normalize fills those).
const ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: false, useDefaults: false });
const compiled = new WeakMap<SinkJsonSchema, ValidateFunction>();

/**
 * Checks a value against a kind's config schema: field path → message, the paths under `base`
 * (`sink.config.workflow_type`), one message per field (the first), unknown fields named as such.
 */
export function checkAgainstSchema(schema: SinkJsonSchema, value: unknown, base = 'sink.config'): SinkFieldErrors {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  if (validate(value)) {
    return {};
  }
  // `anyOf: [X, null]` (optional fields) reports both branches; name the deepest, most specific
  // problem: a nested field's error over its parent's, a branch's error over "must be null".
  const described = (validate.errors ?? []).map((error) => {
    const [path, message] = describeError(error, base);
    const vague = error.keyword === 'anyOf' || error.keyword === 'oneOf' || message === 'must be null';
    return { path, message, vague };
  });
  const fields: SinkFieldErrors = {};
  for (const { path, message } of [...described.filter((e) => !e.vague), ...described.filter((e) => e.vague)]) {
    const deeper = described.some((other) => other.path.startsWith(`${path}.`));
    if (!deeper) {
      fields[path] ??= message;
    }
  }
  return fields;
}

function describeError(error: ErrorObject, base: string): [string, string] {
  const [path, item] = fieldPath(base, error.instancePath);
  const [at, message] = describeAt(error, path);
  return [at, item && at === path ? `each item ${message}` : message];
}

/**
 * The field an error belongs to, as the DTO validation names it: a list's item is reported on the
 * list (`sink.config.retry_on`, not `sink.config.retry_on.0`); says whether an index was dropped.
 */
function fieldPath(base: string, instancePath: string): [string, boolean] {
  const segments = instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const kept = segments.filter((s) => !/^\d+$/.test(s));
  return [[base, ...kept].filter(Boolean).join('.'), kept.length !== segments.length];
}

function describeAt(error: ErrorObject, path: string): [string, string] {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties':
      return [`${path}.${String(params.additionalProperty)}`, 'unknown field'];
    case 'required':
      return [`${path}.${String(params.missingProperty)}`, 'is required'];
    case 'enum':
      return [path, `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`];
    default:
      return [path, error.message ?? 'is invalid'];
  }
}

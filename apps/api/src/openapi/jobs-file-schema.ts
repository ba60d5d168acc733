import type { JsonSchema } from '../common/openapi/schema';
import { SCHEMA_REF_PREFIX } from './dto-schemas';
import type { OpenApiDocument } from './openapi.document';

const DEFS_PREFIX = '#/$defs/';

/**
 * The JSON Schema of a jobs file (issue 42: `svc apply -f jobs.yaml`, editors), cut out of the
 * OpenAPI document's own component schemas, so the file and the API cannot disagree: `managed_by`
 * and `jobs` of `POST /jobs/apply`'s body (`ApplyJobsDto`; each job a `DeclaredJobDto`), with
 * every component they reference copied under `$defs`. Served at `GET /api/v1/schemas/jobs-file.json`
 * and committed as `schemas/jobs-file.schema.json` (scripts/jobs-file-schema.mjs).
 */
export function jobsFileSchema(document: OpenApiDocument): JsonSchema {
  const components = document.components.schemas;
  const apply = components.ApplyJobsDto as { properties: Record<string, JsonSchema> };
  const defs: Record<string, JsonSchema> = {};
  const visit = (value: unknown): unknown => {
    if (Array.isArray(value)) {
      return value.map(visit);
    }
    if (value === null || typeof value !== 'object') {
      return value;
    }
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      if (key === '$ref' && typeof child === 'string' && child.startsWith(SCHEMA_REF_PREFIX)) {
        const name = child.slice(SCHEMA_REF_PREFIX.length);
        if (!(name in defs)) {
          defs[name] = {}; // placeholder first: a schema that refers to itself ends here
          defs[name] = visit(components[name]) as JsonSchema;
        }
        out[key] = `${DEFS_PREFIX}${name}`;
      } else {
        out[key] = visit(child);
      }
    }
    return out;
  };
  const properties = {
    managed_by: {
      ...(visit(apply.properties.managed_by) as JsonSchema),
      description: 'Who declares these jobs (`svc apply --managed-by` overrides it); `prune` deletes only its jobs.',
    },
    jobs: visit(apply.properties.jobs) as JsonSchema,
  };
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'Jobs file',
    description:
      'A set of jobs declared by key (YAML or JSON), as `svc apply -f` and `POST /api/v1/jobs/apply` take it; ' +
      'generated from the OpenAPI document (`GET /api/v1/schemas/jobs-file.json`).',
    type: 'object',
    required: ['jobs'],
    additionalProperties: false,
    properties,
    $defs: Object.fromEntries(Object.entries(defs).sort(([a], [b]) => a.localeCompare(b))),
  };
}

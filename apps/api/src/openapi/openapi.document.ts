import { HTTP_CODE_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import type { Type } from '@nestjs/common';
import { STATUS_CODES } from 'node:http';
import { ANY_KEY, type ScopeRequirement } from '../auth/scopes';
import type { RouteInfo } from '../auth/route-table';
import { ERROR_SCHEMA } from './error-schema';
import type { RegisteredRoute } from '../common/openapi/fastify-routes';
import { DtoSchemas, SCHEMA_REF_PREFIX } from './dto-schemas';
import { MAX_PARAM_LENGTH } from '../common/path-params';
import { isOptionalBody } from '../common/validation';
import { idempotentOptions } from '../common/idempotency/idempotent.decorator';
import {
  API_OPERATION,
  API_SERVER_CHECKS,
  type ApiOperationDoc,
  type FastifyRouteDoc,
  type ResponseDoc,
} from '../common/openapi/openapi.decorators';
import { type JsonSchema, schemaName } from '../common/openapi/schema';
import {
  ERROR_DESCRIPTIONS,
  HEADER_PARAMETERS,
  HEADERS,
  JSON_TYPE,
  orderedTags,
  PARAMETERS,
  QUERY_DESCRIPTIONS,
} from './openapi.vocabulary';
import { applyJobDefaults } from './job-defaults';
import { applySinkKinds, type SinkKindDoc } from './sink-kinds';

export interface OpenApiInput {
  /** Every route the server registered (fastify-routes.ts): what the document must cover. */
  routes: readonly RegisteredRoute[];
  /** Nest's routes with their controller metadata (route-table.ts). */
  nestRoutes: readonly RouteInfo[];
  version: string;
  /** The server's own URL (`public_url`). */
  serverUrl: string;
  /**
   * Enums that depend on this server's configuration, by name: a schema marked
   * `x-enum-of: <name>` gets exactly these values (e.g. the sink kinds enabled here).
   */
  enums: Record<string, readonly string[]>;
  /** Whether the authenticated API and the schedule endpoints send `RateLimit-*` headers (limit > 0). */
  rateLimits: { api: boolean; schedules: boolean };
  /** The registered sink kinds (docs/extending.md): each one's config schema. */
  sinkKinds?: readonly SinkKindDoc[];
}

export type OpenApiDocument = Record<string, unknown> & {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, JsonSchema> } & Record<string, unknown>;
};

type Operation = Record<string, unknown> & {
  operationId: string;
  responses: Record<string, Record<string, unknown>>;
};

/** A parameter of `@Param`/`@Query`/`@Headers` as Nest's route-arguments metadata records it. */
interface RouteArg {
  index: number;
  data?: string;
  pipes?: unknown[];
}

function kebab(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
}

/** Fastify's name for the rest of the path after a trailing `*`. */
const WILDCARD = 'wildcard';

/** `/api/v1/jobs/:id` → `/api/v1/jobs/{id}`; a trailing `*` becomes `{wildcard}`. */
export function openApiPath(fastifyUrl: string): string {
  return fastifyUrl.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\*$/, `{${WILDCARD}}`);
}

function pathParamNames(fastifyUrl: string): string[] {
  return [...openApiPath(fastifyUrl).matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1]);
}

function scopeText(requirement: ScopeRequirement | undefined): string {
  if (requirement === ANY_KEY) {
    return 'Any valid API key.';
  }
  if (!requirement) {
    return 'No key may call it (the route declares no scope).';
  }
  return `Needs an API key with scope ${requirement.map((s) => `\`${s}\``).join(' or ')} (\`*\` always suffices).`;
}

/**
 * Builds the OpenAPI 3.1 document of the running server from what it actually registered:
 * - paths and methods: Fastify's own route list (every route, Nest's and plain Fastify ones);
 * - parameters and request bodies: each Nest handler's `@Param`/`@Query`/`@Headers`/`@Body`, with
 *   the class-validator DTOs converted to JSON Schema (dto-schemas.ts) and path parameters
 *   described by their pipes (`jsonSchema`);
 * - success responses: `@ApiOperation` on the handler (or `config.openapi` of a Fastify route);
 * - security, error responses and headers: from `@Public`/`@Scopes`/`@AnyKey` and the server's
 *   rate-limit configuration.
 * Deterministic: the same server gives byte-identical output.
 */
export function buildOpenApiDocument(input: OpenApiInput): OpenApiDocument {
  const dtos = new DtoSchemas();
  const components: Record<string, JsonSchema> = {};
  const nestByRoute = new Map(input.nestRoutes.map((r) => [`${r.method} ${r.path}`, r]));
  const paths: Record<string, Record<string, Operation>> = {};
  const tags = new Set<string>();
  const operationIds = new Set<string>();

  const hoist = (schema: JsonSchema | null): JsonSchema | null => (schema ? hoistSchema(schema, components) : null);

  const routes = [...input.routes]
    .filter((r) => r.method !== 'HEAD')
    .sort((a, b) => a.url.localeCompare(b.url) || a.method.localeCompare(b.method));
  for (const route of routes) {
    const nest = nestByRoute.get(`${route.method} ${route.url}`);
    const operation = nest
      ? nestOperation(nest, dtos, hoist, input)
      : fastifyOperation(route, route.config.openapi as FastifyRouteDoc | undefined, hoist, input);
    // operationIds must be unique: a description shared by several routes gets the path appended.
    if (operationIds.has(operation.operationId)) {
      operation.operationId = `${operation.operationId}.${route.method.toLowerCase()}${route.url.replace(/[^A-Za-z0-9]+/g, '_')}`;
    }
    operationIds.add(operation.operationId);
    tags.add((operation.tags as string[])[0]);
    const path = openApiPath(route.url);
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = operation;
  }
  addLinks(paths, components);

  for (const [name, schema] of dtos.components()) {
    components[name] = withServerEnums(schema, input.enums);
  }
  components.Error = hoistSchema(ERROR_SCHEMA, components, true);
  applySinkKinds(components, input.sinkKinds ?? []);
  applyJobDefaults(components);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Scheduled Job Service API',
      version: input.version,
      description:
        'Durable scheduled jobs: signed webhooks at every occurrence, retries, runs and attempts. ' +
        'Generated at start-up from the server’s own routes, DTOs and response schemas.',
    },
    servers: [{ url: input.serverUrl }],
    security: [{ ApiKey: [] }],
    tags: orderedTags(tags),
    paths,
    components: {
      securitySchemes: {
        ApiKey: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'sjs_<40 characters>',
          description: 'An API key of the workspace: `Authorization: Bearer sjs_…` (spec → Authentication).',
        },
      },
      parameters: PARAMETERS,
      headers: HEADERS,
      schemas: sortKeys(components),
    },
  };
}

/** Fills every `x-enum-of` schema (at any depth) with this server's values for it. */
function withServerEnums(schema: JsonSchema, enums: OpenApiInput['enums']): JsonSchema {
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) {
      return value.map(walk);
    }
    if (!value || typeof value !== 'object') {
      return value;
    }
    const out = Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, walk(inner)])) as JsonSchema;
    const name = out['x-enum-of'];
    if (typeof name === 'string') {
      const values = enums[name];
      if (!values) {
        throw new Error(`OpenAPI: no values for x-enum-of ${name}`);
      }
      delete out['x-enum-of'];
      out.enum = Array.isArray(out.enum) && out.enum.includes(null) ? [...values, null] : [...values];
    }
    return out;
  };
  return walk(schema) as JsonSchema;
}

/** Replaces `named()` schemas (at any depth) with `$ref`s and records them as components. */
function hoistSchema(schema: JsonSchema, components: Record<string, JsonSchema>, root = false): JsonSchema {
  const name = schemaName(schema);
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) {
      return value.map(walk);
    }
    if (value && typeof value === 'object') {
      return hoistSchema(value as JsonSchema, components);
    }
    return value;
  };
  if (name && !root) {
    if (!components[name]) {
      components[name] = {}; // placeholder against cycles
      components[name] = hoistSchema(schema, components, true);
    }
    return { $ref: `${SCHEMA_REF_PREFIX}${name}` };
  }
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, walk(value)]));
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}

function nestOperation(
  route: RouteInfo,
  dtos: DtoSchemas,
  hoist: (schema: JsonSchema | null) => JsonSchema | null,
  input: OpenApiInput,
): Operation {
  const { controller, methodName } = route;
  const handler = (controller.prototype as Record<string, object>)[methodName];
  const doc = Reflect.getMetadata(API_OPERATION, handler) as ApiOperationDoc | undefined;
  const tag = kebab(controller.name.replace(/Controller$/, ''));
  const parameters: unknown[] = [];
  let requestBody: unknown;
  const serverChecks: Record<string, string> = {
    ...((Reflect.getMetadata(API_SERVER_CHECKS, handler) as Record<string, string> | undefined) ?? {}),
  };

  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, methodName) ?? {}) as Record<string, RouteArg>;
  const types = (Reflect.getMetadata('design:paramtypes', controller.prototype as object, methodName) ?? []) as Type[];
  const pathParams = new Map<string, JsonSchema>(
    pathParamNames(route.path).map((n) => [n, { type: 'string', maxLength: MAX_PARAM_LENGTH }]),
  );
  for (const [key, arg] of Object.entries(args).sort(([, a], [, b]) => a.index - b.index)) {
    const kind = Number(key.split(':')[0]) as RouteParamtypes;
    const type = types[arg.index];
    if (kind === RouteParamtypes.PARAM && arg.data) {
      const described = (arg.pipes ?? []).find((p) => (p as { jsonSchema?: JsonSchema }).jsonSchema) as
        { jsonSchema: JsonSchema } | undefined;
      pathParams.set(arg.data, described ? described.jsonSchema : { type: 'string', maxLength: MAX_PARAM_LENGTH });
    } else if (kind === RouteParamtypes.QUERY) {
      parameters.push(...queryParameters(arg, type, dtos));
      Object.assign(serverChecks, isDto(type) ? dtos.serverChecks(type) : {});
    } else if (kind === RouteParamtypes.HEADERS && arg.data) {
      parameters.push(
        HEADER_PARAMETERS[arg.data.toLowerCase()]
          ? { $ref: `#/components/parameters/${HEADER_PARAMETERS[arg.data.toLowerCase()]}` }
          : { name: arg.data, in: 'header', required: false, schema: { type: 'string' } },
      );
    } else if (kind === RouteParamtypes.BODY) {
      const schema = isDto(type) ? dtos.ref(type) : { type: 'object' };
      Object.assign(serverChecks, isDto(type) ? dtos.serverChecks(type) : {});
      requestBody = { required: !isOptionalBody(type), content: { [JSON_TYPE]: { schema } } };
    }
  }
  if (idempotentOptions(handler)) {
    parameters.push({ $ref: '#/components/parameters/IdempotencyKey' });
  }
  const pathParameters = [...pathParams].map(([name, schema]) => ({ name, in: 'path', required: true, schema }));
  const httpCode = Reflect.getMetadata(HTTP_CODE_METADATA, handler) as number | undefined;
  const defaultStatus = httpCode ?? (route.method === 'POST' ? 201 : 200);
  const hasInput = parameters.length > 0 || requestBody !== undefined || pathParameters.length > 0;

  return {
    operationId: `${tag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())}.${methodName}`,
    tags: [tag],
    summary: doc?.summary ?? `${route.method} ${route.path}`,
    description: [
      doc?.description,
      route.public ? 'No authentication.' : scopeText(route.requirement),
      serverChecksText(serverChecks),
    ]
      .filter(Boolean)
      .join('\n\n'),
    ...(route.public ? { security: [] } : { 'x-scopes': route.requirement === ANY_KEY ? [] : route.requirement }),
    ...(Object.keys(serverChecks).length > 0 ? { 'x-server-checks': sortKeys(serverChecks) } : {}),
    parameters: [...pathParameters, ...parameters, { $ref: '#/components/parameters/RequestId' }],
    ...(requestBody ? { requestBody } : {}),
    responses: responses(doc?.responses ?? { [defaultStatus]: { type: 'object' } }, hoist, {
      authenticated: !route.public,
      rateLimited: !route.public && input.rateLimits.api,
      hasInput,
      hasPathParams: pathParameters.length > 0,
    }),
  };
}

/**
 * The description's account of what the server checks beyond the schemas: a request the document
 * allows can still be `400 validation_failed` naming one of these inputs (docs/api.md → Exact
 * contract). `x-server-checks` holds the same, for tools (scripts/fuzz.sh reads it).
 */
function serverChecksText(checks: Record<string, string>): string | undefined {
  const entries = Object.entries(checks).sort(([a], [b]) => a.localeCompare(b));
  if (entries.length === 0) {
    return undefined;
  }
  return `Checked by the server beyond the schema (\`400\` naming the input): ${entries
    .map(([path, text]) => `\`${path}\`: ${text}`)
    .join('; ')}.`;
}

function fastifyOperation(
  route: RegisteredRoute,
  doc: FastifyRouteDoc | undefined,
  hoist: (schema: JsonSchema | null) => JsonSchema | null,
  input: OpenApiInput,
): Operation {
  const pathParameters = pathParamNames(route.url).map((name) => ({
    name,
    in: 'path',
    required: true,
    // Fastify's router refuses a parameter over `maxParamLength` before the route runs.
    schema: name === WILDCARD ? { type: 'string' } : { type: 'string', maxLength: MAX_PARAM_LENGTH },
  }));
  const isPublic = doc?.public ?? false;
  return {
    operationId: doc?.operationId ?? `${route.method.toLowerCase()}${route.url.replace(/[^A-Za-z0-9]+/g, '_')}`,
    tags: [doc?.tag ?? 'other'],
    summary: doc?.summary ?? `${route.method} ${route.url}`,
    ...(doc?.description || doc?.serverChecks
      ? { description: [doc.description, serverChecksText(doc.serverChecks ?? {})].filter(Boolean).join('\n\n') }
      : {}),
    ...(isPublic ? { security: [] } : {}),
    ...(doc?.serverChecks ? { 'x-server-checks': sortKeys(doc.serverChecks) } : {}),
    parameters: [...pathParameters, { $ref: '#/components/parameters/RequestId' }],
    ...(doc?.requestBody
      ? { requestBody: { required: true, content: { [JSON_TYPE]: { schema: hoist(doc.requestBody) } } } }
      : {}),
    responses: responses(doc?.responses ?? { 200: { type: 'object' } }, hoist, {
      authenticated: !isPublic,
      rateLimited: doc?.rateLimit !== undefined && input.rateLimits[doc.rateLimit],
      hasInput: doc?.requestBody !== undefined || pathParameters.length > 0,
      hasPathParams: pathParameters.length > 0,
    }),
  };
}

function queryParameters(arg: RouteArg, type: Type | undefined, dtos: DtoSchemas): unknown[] {
  if (arg.data) {
    return [{ name: arg.data, in: 'query', required: false, schema: { type: 'string' } }];
  }
  if (!isDto(type)) {
    return [];
  }
  const schema = dtos.schemaOf(type);
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>).map(([name, property]) => ({
    name,
    in: 'query',
    required: required.has(name),
    ...(QUERY_DESCRIPTIONS[name] && !property.description ? { description: QUERY_DESCRIPTIONS[name] } : {}),
    schema: withoutNull(property),
  }));
}

/** A query string cannot carry JSON null: `@IsOptional()`'s null only means "may be omitted" here. */
function withoutNull(schema: JsonSchema): JsonSchema {
  const out = { ...schema };
  if (Array.isArray(out.type)) {
    const types = (out.type as string[]).filter((t) => t !== 'null');
    out.type = types.length === 1 ? types[0] : types;
  }
  if (Array.isArray(out.enum)) {
    out.enum = (out.enum as unknown[]).filter((v) => v !== null);
  }
  if (Array.isArray(out.anyOf)) {
    const rest = (out.anyOf as JsonSchema[]).filter((s) => s.type !== 'null');
    delete out.anyOf;
    return rest.length === 1 ? { ...out, ...rest[0] } : { ...out, anyOf: rest };
  }
  return out;
}

const NOT_DTOS: unknown[] = [String, Number, Boolean, Array, Object, undefined];
function isDto(type: unknown): type is Type {
  return typeof type === 'function' && !NOT_DTOS.includes(type);
}

interface ResponseContext {
  authenticated: boolean;
  rateLimited: boolean;
  hasInput: boolean;
  hasPathParams: boolean;
}

function responses(
  declared: Record<number, ResponseDoc>,
  hoist: (schema: JsonSchema | null) => JsonSchema | null,
  ctx: ResponseContext,
): Record<string, Record<string, unknown>> {
  const headers: Record<string, unknown> = { 'X-Request-ID': { $ref: '#/components/headers/XRequestId' } };
  if (ctx.rateLimited) {
    headers['RateLimit-Limit'] = { $ref: '#/components/headers/RateLimitLimit' };
    headers['RateLimit-Remaining'] = { $ref: '#/components/headers/RateLimitRemaining' };
    headers['RateLimit-Reset'] = { $ref: '#/components/headers/RateLimitReset' };
  }
  const out: Record<string, Record<string, unknown>> = {};
  for (const [status, doc] of Object.entries(declared)) {
    const { description, schema, contentType } = normalize(doc, Number(status));
    out[status] = {
      description,
      headers,
      ...(schema ? { content: { [contentType]: { schema: hoist(schema) } } } : {}),
    };
  }
  const errors: number[] = [];
  if (ctx.hasInput) {
    errors.push(400);
  }
  if (ctx.authenticated) {
    errors.push(401, 403);
  }
  if (ctx.hasPathParams) {
    errors.push(404);
  }
  if (ctx.rateLimited) {
    errors.push(429);
  }
  if (ctx.authenticated) {
    errors.push(503);
  }
  const error = { content: { [JSON_TYPE]: { schema: { $ref: `${SCHEMA_REF_PREFIX}Error` } } } };
  for (const status of errors) {
    if (!out[status]) {
      const extra =
        status === 429 || status === 503 ? { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } : {};
      out[status] = { description: ERROR_DESCRIPTIONS[status], headers: { ...headers, ...extra }, ...error };
    }
  }
  // `default` also covers what Node's HTTP parser refuses before routing (431 headers too large, a
  // malformed request line): envelope and X-Request-ID still, but no rate-limit bucket is known.
  const defaultHeaders = Object.fromEntries(
    Object.entries(headers).map(([name, header]) =>
      name.startsWith('RateLimit-')
        ? [name, { ...HEADERS[name.replace(/-/g, '') as keyof typeof HEADERS], required: false }]
        : [name, header],
    ),
  );
  out.default = {
    description: 'Any other error, in the error envelope (spec → Errors).',
    headers: defaultHeaders,
    ...error,
  };
  return out;
}

function normalize(
  doc: ResponseDoc,
  status: number,
): { description: string; schema: JsonSchema | null; contentType: string } {
  const fallback = STATUS_CODES[status] ?? 'Response';
  if (doc && typeof doc.description === 'string' && 'schema' in doc) {
    const full = doc as { description: string; schema: JsonSchema | null; contentType?: string };
    return { description: full.description, schema: full.schema, contentType: full.contentType ?? JSON_TYPE };
  }
  return { description: fallback, schema: doc as JsonSchema | null, contentType: JSON_TYPE };
}

/**
 * OpenAPI links, for clients and Schemathesis' stateful phase: a value a response carries feeds
 * every operation whose path parameter has the same format (the same `pattern`: a job id from
 * `idOf('job')` fits `JobIdPipe`'s parameter). Values are read at the top level (`id`, `job_id`,
 * `run_id`) and from the first element of a top-level array (`data/0/id` of a page). Only a
 * response to a POST or PUT (what it just created) feeds DELETE operations, so a list never
 * leads the fuzzer to revoke the key it is using.
 */
function addLinks(paths: Record<string, Record<string, Operation>>, components: Record<string, JsonSchema>): void {
  const resolve = (schema: unknown): JsonSchema => {
    const ref = (schema as { $ref?: string } | undefined)?.$ref;
    return (ref ? components[ref.slice(SCHEMA_REF_PREFIX.length)] : (schema as JsonSchema | undefined)) ?? {};
  };
  const patternOf = (schema: unknown): string | undefined => {
    const resolved = resolve(schema);
    return typeof resolved.pattern === 'string' ? resolved.pattern : undefined;
  };
  const targets = new Map<string, Array<{ op: Operation; method: string; param: string }>>();
  for (const ops of Object.values(paths)) {
    for (const [method, op] of Object.entries(ops)) {
      for (const parameter of op.parameters as Array<{ in?: string; name?: string; schema?: JsonSchema }>) {
        const pattern = parameter.in === 'path' ? patternOf(parameter.schema) : undefined;
        if (pattern && parameter.name) {
          targets.set(pattern, [...(targets.get(pattern) ?? []), { op, method, param: parameter.name }]);
        }
      }
    }
  }
  for (const ops of Object.values(paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const creates = method === 'post' || method === 'put';
      for (const [status, response] of Object.entries(op.responses)) {
        const content = response.content as Record<string, { schema: unknown }> | undefined;
        if (!/^2\d\d$/.test(status) || !content?.[JSON_TYPE]) {
          continue;
        }
        const sources: Array<[string, string, boolean]> = [];
        const properties = (resolve(content[JSON_TYPE].schema).properties ?? {}) as Record<string, JsonSchema>;
        for (const [name, property] of Object.entries(properties)) {
          const pattern = patternOf(property);
          if (pattern) {
            sources.push([pattern, `$response.body#/${name}`, creates]);
          }
          const items = resolve(property).items;
          for (const [inner, value] of Object.entries(
            (resolve(items).properties ?? {}) as Record<string, JsonSchema>,
          )) {
            const innerPattern = patternOf(value);
            if (innerPattern) {
              sources.push([innerPattern, `$response.body#/${name}/0/${inner}`, false]);
            }
          }
        }
        const links: Record<string, unknown> = {};
        for (const [pattern, expression, mayDelete] of sources) {
          for (const target of targets.get(pattern) ?? []) {
            if (target.method === 'delete' && !mayDelete) {
              continue;
            }
            const base = target.op.operationId.replace(/[^A-Za-z0-9_.-]/g, '_');
            const name = links[base]
              ? `${base}.${expression.slice('$response.body#/'.length).replace(/\//g, '.')}`
              : base;
            links[name] = { operationId: target.op.operationId, parameters: { [target.param]: expression } };
          }
        }
        if (Object.keys(links).length > 0) {
          response.links = links;
        }
      }
    }
  }
}

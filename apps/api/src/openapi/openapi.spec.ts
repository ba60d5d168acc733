import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { buildConfig } from '@svc/common';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { parse } from 'yaml';
import { createApp } from '../app';
import { AppModule } from '../app.module';
import { routesOfModule } from '../auth/route-table';
import { registeredRoutes } from '../common/openapi/fastify-routes';
import { API_OPERATION, type ApiOperationDoc } from '../common/openapi/openapi.decorators';
import { buildOpenApiDocument, openApiPath, type OpenApiDocument } from './openapi.document';
import { OpenApiService } from './openapi.service';
import { JOB_DEFAULTS } from '../jobs/job-patch';

// The whole API assembled without listening: PostgreSQL and Temporal are never reached (nothing
// here sends a request that needs them), so this stays a unit test.
async function assemble(limits: Record<string, number> = {}, extra: object = {}): Promise<NestFastifyApplication> {
  const config = buildConfig(
    { secrets: { encryption_key: Buffer.alloc(32, 7).toString('base64') }, limits, ...extra },
    { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', TEMPORAL_ADDRESS: '127.0.0.1:1', PORT: '0' },
  );
  return createApp({ config, logLevels: [] });
}

function operations(doc: OpenApiDocument): Array<{ key: string; op: Record<string, any> }> {
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })),
  );
}

describe('OpenAPI document', () => {
  let app: NestFastifyApplication;
  let doc: OpenApiDocument;

  beforeAll(async () => {
    app = await assemble();
    doc = app.get(OpenApiService).json();
  });
  afterAll(async () => {
    await app.close();
  });

  describe('an exact contract (issue #23)', () => {
    // A sink is a `oneOf` of one branch per kind (issue 28), a PATCH's `kind` an enum.
    const kindsOf = (schema: any): string[] =>
      schema.oneOf ? schema.oneOf.map((branch: any) => branch.properties.kind.const) : schema.properties.kind.enum;
    const sinkKinds = (d: OpenApiDocument) =>
      ['SinkDto', 'SinkPatchDto'].map((name) => kindsOf(d.components.schemas[name]));

    it('should list only the sink kinds this server enables in requests, every kind in responses', async () => {
      expect(sinkKinds(doc)).toEqual([
        ['webhook', 'temporal_workflow'],
        ['webhook', 'temporal_workflow'],
      ]);
      const withCommand = await assemble({}, { sinks: { command: { enabled: true } } });
      try {
        const full = withCommand.get(OpenApiService).json();
        expect(sinkKinds(full)).toEqual([
          ['webhook', 'command', 'temporal_workflow'],
          ['webhook', 'command', 'temporal_workflow'],
        ]);
      } finally {
        await withCommand.close();
      }
      expect(kindsOf((doc.components.schemas.Job.properties as any).sink)).toEqual([
        'webhook',
        'command',
        'temporal_workflow',
      ]);
    });

    it('should state cursor formats, duration minimums and what only the server checks', () => {
      const jobsList = doc.paths['/api/v1/jobs'].get.parameters as Array<{ name: string; schema: any }>;
      expect(
        new RegExp(jobsList.find((p) => p.name === 'cursor')!.schema.pattern).test('job_01ARZ3NDEKTSV4RRFFQ69G5FAV'),
      ).toBe(true);
      const timeout = (doc.components.schemas.CreateJobDto.properties as any).timeout;
      const pattern = new RegExp(timeout.pattern ?? timeout.anyOf?.[0]?.pattern);
      expect([pattern.test('0d'), pattern.test('500ms'), pattern.test('30s')]).toEqual([false, false, true]);
      const create = doc.paths['/api/v1/jobs'].post;
      expect(create['x-server-checks']).toMatchObject({
        'schedule.expr': expect.any(String),
        'sink.config': expect.any(String),
      });
      expect(create.description).toContain('Checked by the server beyond the schema');
    });

    it('should keep a check declared on a property that nests another DTO (beside its $ref)', () => {
      // bulk's `filter` is a nested DTO whose emptiness the server checks (found by Schemathesis).
      const bulk = doc.paths['/api/v1/jobs/bulk'].post;
      expect(Object.keys(bulk['x-server-checks'] as Record<string, string>)).toEqual(
        expect.arrayContaining(['all', 'filter', 'filter.state']),
      );
    });
  });

  describe('coverage', () => {
    it('should describe every Nest route of AppModule (walked from the module metadata)', () => {
      const documented = new Set(operations(doc).map((o) => o.key));
      const missing = routesOfModule(AppModule.forRoot())
        .map((r) => `${r.method} ${openApiPath(r.path)}`)
        .filter((key) => !documented.has(key));
      expect(missing).toEqual([]);
    });

    it('should describe every route Fastify serves, plain Fastify routes included', () => {
      const documented = new Set(operations(doc).map((o) => o.key));
      const served = registeredRoutes(app.getHttpAdapter().getInstance() as unknown as FastifyInstance)
        .filter((r) => r.method !== 'HEAD')
        .map((r) => `${r.method} ${openApiPath(r.url)}`);
      expect(served).toEqual(expect.arrayContaining(['POST /api/v1/schedules/validate', 'GET /api/v1/openapi.yaml']));
      expect(served.filter((key) => !documented.has(key))).toEqual([]);
      expect(operations(doc)).toHaveLength(new Set(served).size);
    });

    // A new route must say what it answers (`@ApiOperation`, or `config.openapi` on a Fastify route).
    it('should have a declared summary and success response on every operation', () => {
      const undeclared = routesOfModule(AppModule.forRoot())
        .filter(
          (r) => !Reflect.getMetadata(API_OPERATION, (r.controller.prototype as Record<string, object>)[r.methodName]),
        )
        .map((r) => r.handler);
      expect(undeclared).toEqual([]);
      for (const { key, op } of operations(doc)) {
        expect([key, op.summary]).not.toEqual([key, key]);
        expect([key, Object.keys(op.responses).some((s) => /^2\d\d$/.test(s))]).toEqual([key, true]);
      }
    });

    it('should title operations in plain text and describe and order every tag, jobs first (issue 44)', () => {
      // A summary is a title in the API reference: Markdown there shows as raw backticks.
      const backticked = operations(doc).filter(({ op }) => (op.summary as string).includes('`'));
      expect(backticked.map(({ key, op }) => `${key}: ${op.summary}`)).toEqual([]);
      const used = new Set(operations(doc).map(({ op }) => (op.tags as string[])[0]));
      const tags = doc.tags as Array<{ name: string; description: string }>;
      expect(new Set(tags.map((tag) => tag.name))).toEqual(used);
      for (const tag of tags) {
        expect([tag.name, tag.description !== tag.name && tag.description.length > 0]).toEqual([tag.name, true]);
      }
      expect(tags.slice(0, 2).map((tag) => tag.name)).toEqual(['jobs', 'runs']);
    });
    it("should document each Nest handler's own success status (@HttpCode or Nest's default)", () => {
      const wrong = routesOfModule(AppModule.forRoot()).flatMap((r) => {
        const handler = (r.controller.prototype as Record<string, object>)[r.methodName];
        const declared = Reflect.getMetadata(API_OPERATION, handler) as ApiOperationDoc;
        const status =
          (Reflect.getMetadata(HTTP_CODE_METADATA, handler) as number | undefined) ?? (r.method === 'POST' ? 201 : 200);
        return declared && declared.responses[status] === undefined ? [`${r.handler} answers ${status}`] : [];
      });
      expect(wrong).toEqual([]);
    });
  });

  describe('content', () => {
    it('should be OpenAPI 3.1 with the bearer API key as the default security', () => {
      expect(doc.openapi).toBe('3.1.0');
      expect(doc.security).toEqual([{ ApiKey: [] }]);
      expect((doc.components.securitySchemes as any).ApiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    });

    it('should mark public routes as needing no key', () => {
      for (const key of [
        'GET /healthz',
        'GET /api/v1/features',
        'POST /api/v1/schedules/preview',
        'GET /api/v1/openapi.json',
      ]) {
        expect([key, operations(doc).find((o) => o.key === key)?.op.security]).toEqual([key, []]);
      }
      expect(doc.paths['/api/v1/jobs'].get.security).toBeUndefined();
      expect(doc.paths['/api/v1/jobs'].get['x-scopes']).toEqual(['jobs:read']);
    });

    it('should take request bodies from the class-validator DTOs, as strict as the validation pipe', () => {
      expect(doc.paths['/api/v1/jobs'].post.requestBody).toEqual({
        required: true,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/CreateJobDto' } } },
      });
      const create = doc.components.schemas.CreateJobDto as any;
      expect(create.required).toEqual(expect.arrayContaining(['name', 'schedule', 'sink']));
      expect(create.additionalProperties).toBe(false);
      expect(create.properties.name).toMatchObject({ type: 'string', minLength: 1, maxLength: 200 });
      // @IsOptional() lets null through, so the document says so; nested DTOs are components.
      expect(create.properties.retry).toEqual({ anyOf: [{ $ref: '#/components/schemas/RetryDto' }, { type: 'null' }] });
      expect(create.properties.timeout.type).toEqual(['string', 'null']);
      expect(doc.components.schemas.RetryDto).toBeDefined();
      // @ValidateIf(v => v !== undefined) refuses null: optional, not nullable.
      const update = doc.components.schemas.UpdateJobDto as any;
      expect(update.required).toBeUndefined();
      expect(update.properties.name.type).toBe('string');
      expect(update.properties.tags.type).toEqual(['array', 'null']);
      expect((doc.components.schemas.CreateApiKeyDto as any).properties.scopes.type).toBe('array');
    });

    it('should state the create body’s defaults, those of the one table a create and a PATCH’s null apply', () => {
      const schemas = doc.components.schemas as any;
      const { schedule, retry, ...topLevel } = JOB_DEFAULTS;
      const defaultsOf = (name: string, fields: object) =>
        Object.fromEntries(Object.keys(fields).map((field) => [field, schemas[name].properties[field].default]));
      expect(defaultsOf('CreateJobDto', topLevel)).toEqual(topLevel);
      expect(defaultsOf('ScheduleDto', schedule)).toEqual(schedule);
      expect(defaultsOf('RetryDto', retry)).toEqual(retry);
      expect(topLevel).toMatchObject({ misfire_policy: 'fire_once', overlap_policy: 'allow', timeout: '30s' });
      // Fields without a default (name, schedule.expr, sink) state none.
      expect(schemas.CreateJobDto.properties.name.default).toBeUndefined();
      expect(schemas.ScheduleDto.properties.expr.default).toBeUndefined();
    });

    it('should turn query DTOs into query parameters and pipes into path parameter schemas', () => {
      const params = doc.paths['/api/v1/jobs'].get.parameters as any[];
      expect(params.find((p) => p.name === 'limit')).toMatchObject({
        in: 'query',
        required: false,
        schema: { type: 'integer', minimum: 1, maximum: 200 },
      });
      expect(params.find((p) => p.name === 'state').schema).toEqual({
        type: 'string',
        enum: ['active', 'paused', 'disabled', 'completed'],
      });
      const id = (doc.paths['/api/v1/jobs/{id}'].get.parameters as any[]).find((p) => p.in === 'path');
      expect(id).toEqual({
        name: 'id',
        in: 'path',
        required: true,
        schema: { type: 'string', pattern: '^job_[0-9A-HJKMNP-TV-Z]{26}$' },
      });
    });

    it('should offer Idempotency-Key on the @Idempotent() routes only, and X-Request-ID everywhere', () => {
      const idempotent = operations(doc)
        .filter(({ op }) => op.parameters.some((p: any) => p.$ref === '#/components/parameters/IdempotencyKey'))
        .map((o) => o.key);
      expect(idempotent.sort()).toEqual([
        'POST /api/v1/alert-channels',
        'POST /api/v1/alert-rules',
        'POST /api/v1/api-keys',
        'POST /api/v1/jobs',
        'POST /api/v1/jobs/{id}/trigger',
      ]);
      for (const { key, op } of operations(doc)) {
        expect([key, op.parameters]).toEqual([
          key,
          expect.arrayContaining([{ $ref: '#/components/parameters/RequestId' }]),
        ]);
        for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
          expect([key, status, response.headers['X-Request-ID']]).toEqual([key, status, expect.anything()]);
        }
      }
    });

    it('should give every operation the error envelope and authenticated ones their 401/403/429', () => {
      const list = doc.paths['/api/v1/jobs'].get.responses as Record<string, any>;
      expect(Object.keys(list)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '429', 'default']));
      expect(list['401'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
      expect(list['429'].headers['Retry-After']).toBeDefined();
      expect(list['200'].headers['RateLimit-Remaining']).toEqual({ $ref: '#/components/headers/RateLimitRemaining' });
      expect((doc.components.schemas.Error as any).properties.error.properties.code.enum).toContain(
        'validation_failed',
      );
    });

    it('should link a created job to the operations on it (stateful testing)', () => {
      const links = doc.paths['/api/v1/jobs'].post.responses['201'].links as Record<string, any>;
      expect(links['jobs.get']).toEqual({ operationId: 'jobs.get', parameters: { id: '$response.body#/id' } });
      const triggered = doc.paths['/api/v1/jobs/{id}/trigger'].post.responses['202'].links as Record<string, any>;
      expect(triggered['runs.get']).toEqual({ operationId: 'runs.get', parameters: { id: '$response.body#/run_id' } });
    });

    it('should link list items to reads and updates, never to deletes', () => {
      const jobs = doc.paths['/api/v1/jobs'].get.responses['200'].links as Record<string, any>;
      expect(jobs['jobs.get']).toEqual({ operationId: 'jobs.get', parameters: { id: '$response.body#/data/0/id' } });
      expect(jobs['jobs.remove']).toBeUndefined();
      const keys = (doc.paths['/api/v1/api-keys'].get.responses['200'].links ?? {}) as Record<string, any>;
      expect(Object.values(keys).map((l) => l.operationId)).not.toContain('apiKeys.revoke');
      const created = doc.paths['/api/v1/api-keys'].post.responses['201'].links as Record<string, any>;
      expect(created['apiKeys.revoke']).toEqual({
        operationId: 'apiKeys.revoke',
        parameters: { id: '$response.body#/id' },
      });
      const me = doc.paths['/api/v1/me'].get.responses['200'].links as Record<string, any>;
      expect(me['workspaces.get'].parameters).toEqual({ ws: '$response.body#/workspaces/0/id' });
    });

    it('should compile every schema of the document as JSON Schema 2020-12', () => {
      const ajv = new Ajv2020({ strict: false, allErrors: true });
      addFormats(ajv);
      ajv.addSchema({ $id: 'doc', components: doc.components });
      for (const name of Object.keys(doc.components.schemas)) {
        expect(() => ajv.getSchema(`doc#/components/schemas/${name}`)).not.toThrow();
      }
    });
  });

  describe('serving', () => {
    it('should serve the same document as YAML and JSON without an API key', async () => {
      const yaml = await app.inject({ method: 'GET', url: '/api/v1/openapi.yaml' });
      const json = await app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
      expect(yaml.statusCode).toBe(200);
      expect(yaml.headers['content-type']).toMatch(/^application\/yaml/);
      expect(json.statusCode).toBe(200);
      expect(parse(yaml.body)).toEqual(JSON.parse(json.body));
      expect(yaml.body).not.toMatch(/[&*]a\d+/); // no YAML anchors or aliases
    });

    it('should be deterministic: the same routes give the same document', () => {
      const again = app.get(OpenApiService);
      const input = {
        routes: registeredRoutes(app.getHttpAdapter().getInstance() as unknown as FastifyInstance),
        nestRoutes: routesOfModule(AppModule.forRoot()),
        version: '1',
        serverUrl: 'http://x',
        enums: { enabled_sink_kinds: ['webhook'] },
        rateLimits: { api: true, schedules: true },
      };
      expect(JSON.stringify(buildOpenApiDocument(input))).toBe(JSON.stringify(buildOpenApiDocument(input)));
      expect(again.yaml()).toBe(app.get(OpenApiService).yaml());
    });
  });

  describe('rate-limit headers follow the configuration', () => {
    it('should leave RateLimit-* out when the limits are off', async () => {
      const unlimited = await assemble({ api_rate_limit_per_minute: 0, schedule_rate_limit_per_minute: 0 });
      try {
        const off = unlimited.get(OpenApiService).json();
        expect(off.paths['/api/v1/jobs'].get.responses['200'].headers).toEqual({
          'X-Request-ID': { $ref: '#/components/headers/XRequestId' },
        });
        expect(off.paths['/api/v1/jobs'].get.responses['429']).toBeUndefined();
      } finally {
        await unlimited.close();
      }
    });
  });
});

import { Inject, Injectable, type Type } from '@nestjs/common';
import { HttpAdapterHost, ModulesContainer } from '@nestjs/core';
import type { AppConfig } from '@svc/common';
import { SinkRegistry } from '@svc/delivery';
import type { FastifyInstance } from 'fastify';
import { stringify } from 'yaml';
import { APP_CONFIG } from '../config/config.module';
import { type RouteInfo, routesOfController } from '../auth/route-table';
import { registeredRoutes } from '../common/openapi/fastify-routes';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi.document';
import { jobsFileSchema } from './jobs-file-schema';
import type { JsonSchema } from '../common/openapi/schema';

/**
 * The server's OpenAPI document, built on first request (every route is registered by then) from
 * the routes this process actually serves, and kept: routes do not change while it runs.
 */
@Injectable()
export class OpenApiService {
  private document?: OpenApiDocument;
  private yamlText?: string;
  private jobsFile?: JsonSchema;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly modules: ModulesContainer,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly sinkKinds: SinkRegistry,
  ) {}

  json(): OpenApiDocument {
    this.document ??= buildOpenApiDocument({
      routes: registeredRoutes(this.adapterHost.httpAdapter.getInstance<FastifyInstance>()),
      nestRoutes: this.nestRoutes(),
      version: this.config.version,
      serverUrl: this.config.public_url,
      enums: {
        enabled_sink_kinds: this.sinkKinds
          .all()
          .filter((kind) => kind.disabledReason(this.config) === null)
          .map((kind) => kind.kind),
      },
      rateLimits: {
        api: this.config.limits.api_rate_limit_per_minute > 0,
        schedules: this.config.limits.schedule_rate_limit_per_minute > 0,
      },
      sinkKinds: this.sinkKinds.all().map((kind) => ({
        kind: kind.kind,
        description: kind.description,
        configSchema: kind.configSchema,
        enabled: kind.disabledReason(this.config) === null,
      })),
    });
    return this.document;
  }

  /** The jobs file's JSON Schema, cut from this document (jobs-file-schema.ts). */
  jobsFileSchema(): JsonSchema {
    this.jobsFile ??= jobsFileSchema(this.json());
    return this.jobsFile;
  }

  yaml(): string {
    // No anchors/aliases for objects the document shares (headers, parameters): plain YAML.
    this.yamlText ??= stringify(this.json(), { aliasDuplicateObjects: false, lineWidth: 0 });
    return this.yamlText;
  }

  private nestRoutes(): RouteInfo[] {
    const routes: RouteInfo[] = [];
    for (const module of this.modules.values()) {
      for (const wrapper of module.controllers.values()) {
        routes.push(...routesOfController(wrapper.metatype as Type));
      }
    }
    return routes;
  }
}

import { Inject, Injectable, type Type } from '@nestjs/common';
import { HttpAdapterHost, ModulesContainer } from '@nestjs/core';
import type { AppConfig } from '@svc/common';
import type { FastifyInstance } from 'fastify';
import { stringify } from 'yaml';
import { APP_CONFIG } from '../../config/config.module';
import { type RouteInfo, routesOfController } from '../auth/route-table';
import { enabledSinkKinds } from '../../jobs/dto/job-body.dto';
import { registeredRoutes } from './fastify-routes';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi.document';

/**
 * The server's OpenAPI document, built on first request (every route is registered by then) from
 * the routes this process actually serves, and kept: routes do not change while it runs.
 */
@Injectable()
export class OpenApiService {
  private document?: OpenApiDocument;
  private yamlText?: string;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly modules: ModulesContainer,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  json(): OpenApiDocument {
    this.document ??= buildOpenApiDocument({
      routes: registeredRoutes(this.adapterHost.httpAdapter.getInstance<FastifyInstance>()),
      nestRoutes: this.nestRoutes(),
      version: this.config.version,
      serverUrl: this.config.public_url,
      enums: { enabled_sink_kinds: enabledSinkKinds(this.config) },
      rateLimits: {
        api: this.config.limits.api_rate_limit_per_minute > 0,
        schedules: this.config.limits.schedule_rate_limit_per_minute > 0,
      },
    });
    return this.document;
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
